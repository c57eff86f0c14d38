// transpose_folding (training): MatMul over a Transpose of the last two dims becomes
// FusedMatMul with transA / transB, the unread Transpose goes, a Transpose that something
// else still reads stays, a bias Add joins the product (FusedMatMulBias), and the outputs are
// the same before and after.
#include <gtest/gtest.h>

#include "model_builder.h"
#include "onnx/loader.h"
#include "session/session.h"
#include "training/transpose_folding.h"

namespace onyx {
namespace {

ir::Model transposed_products() {
  // y = x @ W^T + c (W [5, 4], c [5]); z = Transpose(v)[.., 4, 3] @ u, with Transpose(v) also
  // an output.
  testing::ModelBuilder b(17);
  b.input("x", {2, 3, 4}).input("v", {2, 3, 4}).input("u", {3, 6});
  b.output("y", {2, 3, 5}).output("z", {2, 4, 6}).output("vt", {2, 4, 3});
  b.initializer("w", {5, 4}, std::vector<float>(20, 0.5f));
  b.initializer("c", {5}, {0.1f, -0.2f, 0.3f, -0.4f, 0.5f});
  auto* t = b.node("Transpose", {"w"}, {"wt"}, "t_w");
  auto* perm = t->add_attribute();
  perm->set_name("perm");
  perm->set_type(onnx::AttributeProto::INTS);
  perm->add_ints(1);
  perm->add_ints(0);
  b.node("MatMul", {"x", "wt"}, {"xw"}, "mm_w");
  b.node("Add", {"xw", "c"}, {"y"}, "bias");
  auto* t2 = b.node("Transpose", {"v"}, {"vt"}, "t_v");
  auto* perm2 = t2->add_attribute();
  perm2->set_name("perm");
  perm2->set_type(onnx::AttributeProto::INTS);
  for (int p : {0, 2, 1}) perm2->add_ints(p);
  b.node("MatMul", {"vt", "u"}, {"z"}, "mm_v");
  const std::string bytes = b.bytes();
  auto m = onnx_format::load_model_bytes(bytes.data(), bytes.size(), "");
  EXPECT_TRUE(m.ok()) << m.status().to_string();
  return std::move(*m);
}

std::vector<Value> run(const ir::Model& m) {
  auto s = Session::from_loaded_model(m);
  EXPECT_TRUE(s.ok()) << s.status().to_string();
  Tensor x(DataType::kFloat, {2, 3, 4}), v(DataType::kFloat, {2, 3, 4}), u(DataType::kFloat, {3, 6});
  for (auto* t : {&x, &v, &u})
    for (int64_t i = 0; i < t->numel(); ++i) t->data<float>()[i] = 0.01f * float(i % 17) - 0.05f;
  auto out = (*s)->run({{"x", Value(x)}, {"v", Value(v)}, {"u", Value(u)}});
  EXPECT_TRUE(out.ok()) << out.status().to_string();
  return out.ok() ? *out : std::vector<Value>{};
}

TEST(TransposeFolding, ProductsReadTheTransposeInPlaceWithTheSameOutputs) {
  ir::Model m = transposed_products();
  const std::vector<Value> before = run(m);
  ASSERT_TRUE(training::fold_transposes_into_products(m));
  int fused = 0, with_bias = 0, transposes = 0, adds = 0;
  for (const ir::Node& n : m.graph.nodes) {
    if (n.op_type == "FusedMatMul" || n.op_type == "FusedMatMulBias") {
      ++fused;
      const bool weight = n.inputs[1] == "w";
      EXPECT_EQ(n.attribute("transB")->i, weight ? 1 : 0);
      EXPECT_EQ(n.attribute("transA")->i, weight ? 0 : 1);
      if (n.op_type == "FusedMatMulBias") {
        ++with_bias;
        EXPECT_TRUE(weight);
        EXPECT_EQ(n.inputs.size(), 3u);
        EXPECT_EQ(n.outputs[0], "y");
      }
    }
    transposes += n.op_type == "Transpose";
    adds += n.op_type == "Add";
  }
  EXPECT_EQ(fused, 2);
  EXPECT_EQ(with_bias, 1);
  EXPECT_EQ(adds, 0);
  EXPECT_EQ(transposes, 1) << "Transpose(v) is a graph output and stays; Transpose(w) goes";
  const std::vector<Value> after = run(m);
  ASSERT_EQ(before.size(), after.size());
  for (size_t k = 0; k < before.size(); ++k)
    for (int64_t i = 0; i < before[k].tensor().numel(); ++i)
      EXPECT_NEAR(before[k].tensor().data<float>()[i], after[k].tensor().data<float>()[i], 1e-6) << k << " " << i;
}

}  // namespace
}  // namespace onyx

namespace onyx {
namespace {

TEST(TransposeFolding, ABiasMadeAfterTheProductKeepsTheGraphInOrderAndIntegersStay) {
  // y = x @ W^T + Neg(c) (the bias made after the product); k = i @ Transpose(j) in int64.
  testing::ModelBuilder b(17);
  b.input("x", {3, 4}).input("i", {2, 2}, onnx::TensorProto::INT64).input("j", {2, 2}, onnx::TensorProto::INT64);
  b.output("y", {3, 5}).output("k", {2, 2}, onnx::TensorProto::INT64);
  b.initializer("w", {5, 4}, std::vector<float>(20, 0.25f));
  b.initializer("c", {5}, {1, 2, 3, 4, 5});
  for (const char* t : {"w", "j"}) {
    auto* n = b.node("Transpose", {t}, {std::string(t) + "t"}, std::string("t_") + t);
    auto* perm = n->add_attribute();
    perm->set_name("perm");
    perm->set_type(onnx::AttributeProto::INTS);
    perm->add_ints(1);
    perm->add_ints(0);
  }
  b.node("MatMul", {"x", "wt"}, {"xw"}, "mm");
  b.node("Neg", {"c"}, {"negc"}, "neg");
  b.node("Add", {"xw", "negc"}, {"y"}, "bias");
  b.node("MatMul", {"i", "jt"}, {"k"}, "int_mm");
  const std::string bytes = b.bytes();
  auto loaded = onnx_format::load_model_bytes(bytes.data(), bytes.size(), "");
  ASSERT_TRUE(loaded.ok()) << loaded.status().to_string();
  ir::Model m = std::move(*loaded);
  ASSERT_TRUE(training::fold_transposes_into_products(m));
  std::vector<std::string> order;
  for (const ir::Node& n : m.graph.nodes) order.push_back(n.op_type);
  // The fused node sits where the Add was, after the Neg that makes its bias; the integer
  // product keeps its MatMul and Transpose.
  EXPECT_EQ(order, (std::vector<std::string>{"Transpose", "Neg", "FusedMatMulBias", "MatMul"}));
  auto s = Session::from_loaded_model(m);
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  Tensor x(DataType::kFloat, {3, 4}), i(DataType::kInt64, {2, 2}), j(DataType::kInt64, {2, 2});
  for (int64_t k = 0; k < 12; ++k) x.data<float>()[k] = float(k);
  for (int64_t k = 0; k < 4; ++k) i.data<int64_t>()[k] = j.data<int64_t>()[k] = k;
  auto out = (*s)->run({{"x", Value(x)}, {"i", Value(i)}, {"j", Value(j)}});
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  // y[r][n] = 0.25 * sum_k x[r][k] - c[n]; k = i @ j^T
  for (int r = 0; r < 3; ++r)
    for (int n = 0; n < 5; ++n)
      EXPECT_FLOAT_EQ((*out)[0].tensor().data<float>()[r * 5 + n], 0.25f * float(16 * r + 6) - float(n + 1));
  EXPECT_EQ((*out)[1].tensor().data<int64_t>()[1], 0 * 2 + 1 * 3);
}

}  // namespace
}  // namespace onyx
