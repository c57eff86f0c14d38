// Attention-shaped folding before gradients (training): K's Transpose (0, 2, 3, 1) becomes
// (0, 2, 1, 3) read with transB, the scale Div joins the product as FusedMatMul's alpha, a
// Div by a graph input or one whose product is read twice stays, and the outputs are the same
// before and after.
#include <gtest/gtest.h>

#include "model_builder.h"
#include "onnx/loader.h"
#include "session/session.h"
#include "training/product_scale_folding.h"
#include "training/transpose_folding.h"

namespace onyx {
namespace {

void set_perm(onnx::NodeProto* n, std::initializer_list<int> perm) {
  auto* a = n->add_attribute();
  a->set_name("perm");
  a->set_type(onnx::AttributeProto::INTS);
  for (int p : perm) a->add_ints(p);
}

// s = (Transpose(q, 0213) @ Transpose(k, 0231)) / 8 (q, k [B=2, S=3, H=2, D=4]);
// t = (a @ b) / d with d a graph input; u = (a @ b) * 0.5 where a @ b is also read by w.
ir::Model attention_scores() {
  testing::ModelBuilder b(17);
  b.input("q", {2, 3, 2, 4}).input("k", {2, 3, 2, 4}).input("a", {3, 4}).input("bm", {4, 5}).input("d", {});
  b.output("s", {2, 2, 3, 3}).output("t", {3, 5}).output("u", {3, 5}).output("w", {3, 5});
  b.initializer("eight", {}, {8.f});
  b.initializer("half", {}, {0.5f});
  set_perm(b.node("Transpose", {"q"}, {"qt"}, "t_q"), {0, 2, 1, 3});
  set_perm(b.node("Transpose", {"k"}, {"kt"}, "t_k"), {0, 2, 3, 1});
  b.node("MatMul", {"qt", "kt"}, {"scores"}, "qk");
  b.node("Div", {"scores", "eight"}, {"s"}, "scale");
  b.node("MatMul", {"a", "bm"}, {"ab"}, "ab");
  b.node("Div", {"ab", "d"}, {"t"}, "by_input");
  b.node("MatMul", {"a", "bm"}, {"ab2"}, "ab2");
  b.node("Mul", {"half", "ab2"}, {"u"}, "halve");
  b.node("Neg", {"ab2"}, {"w"}, "neg");
  const std::string bytes = b.bytes();
  auto m = onnx_format::load_model_bytes(bytes.data(), bytes.size(), "");
  EXPECT_TRUE(m.ok()) << m.status().to_string();
  return std::move(*m);
}

std::vector<Value> run(const ir::Model& m) {
  auto s = Session::from_loaded_model(m);
  EXPECT_TRUE(s.ok()) << s.status().to_string();
  std::vector<std::pair<std::string, Value>> feeds;
  for (const auto& [name, shape] : std::vector<std::pair<std::string, Shape>>{
           {"q", {2, 3, 2, 4}}, {"k", {2, 3, 2, 4}}, {"a", {3, 4}}, {"bm", {4, 5}}, {"d", {}}}) {
    Tensor t(DataType::kFloat, shape);
    for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = 0.03f * float((i * 7 + name[0]) % 23) - 0.3f;
    if (name == "d") t.data<float>()[0] = 3.f;
    feeds.emplace_back(name, Value(t));
  }
  auto out = (*s)->run(feeds);
  EXPECT_TRUE(out.ok()) << out.status().to_string();
  return out.ok() ? *out : std::vector<Value>{};
}

TEST(ProductScaleFolding, AttentionScoresBecomeOneScaledProductOverRowCopies) {
  ir::Model m = attention_scores();
  const std::vector<Value> before = run(m);
  ASSERT_TRUE(training::fold_transposes_into_products(m, /*fold_biases=*/false));
  ASSERT_TRUE(training::fold_scales_into_products(m));
  std::map<std::string, const ir::Node*> by_name;
  for (const ir::Node& n : m.graph.nodes) by_name[n.name] = &n;
  ASSERT_TRUE(by_name.count("t_k"));
  EXPECT_EQ(by_name["t_k"]->attribute("perm")->ints, (std::vector<int64_t>{0, 2, 1, 3}));
  const ir::Node* qk = by_name["qk"];
  EXPECT_EQ(qk->op_type, "FusedMatMul");
  EXPECT_EQ(qk->attribute("transB")->i, 1);
  EXPECT_FLOAT_EQ(qk->attribute("alpha")->f, 0.125f);
  EXPECT_EQ(qk->outputs[0], "s");
  EXPECT_FALSE(by_name.count("scale")) << "the Div went into alpha";
  EXPECT_TRUE(by_name.count("by_input")) << "a Div by a graph input is not a constant";
  EXPECT_TRUE(by_name.count("halve")) << "a product read twice keeps its Mul";
  EXPECT_EQ(by_name["ab"]->op_type, "MatMul");
  const std::vector<Value> after = run(m);
  ASSERT_EQ(before.size(), after.size());
  for (size_t k = 0; k < before.size(); ++k) {
    ASSERT_EQ(before[k].tensor().shape(), after[k].tensor().shape()) << k;
    for (int64_t i = 0; i < before[k].tensor().numel(); ++i)
      EXPECT_NEAR(before[k].tensor().data<float>()[i], after[k].tensor().data<float>()[i], 1e-6) << k << " " << i;
  }
}

TEST(ProductScaleFolding, AMulOnEitherSideAndAnExistingAlphaMultiply) {
  // y = 4 * FusedMatMul(a, b, alpha=0.5) -> alpha 2; nothing to fold in a second call.
  testing::ModelBuilder b(17);
  b.input("a", {2, 3}).input("bm", {3, 2}).output("y", {2, 2});
  b.initializer("four", {1}, {4.f});
  auto* f = b.node("FusedMatMul", {"a", "bm"}, {"p"}, "p");
  f->set_domain("com.microsoft");
  auto* alpha = f->add_attribute();
  alpha->set_name("alpha");
  alpha->set_type(onnx::AttributeProto::FLOAT);
  alpha->set_f(0.5f);
  b.node("Mul", {"four", "p"}, {"y"}, "times_four");
  auto* ms = b.model.add_opset_import();
  ms->set_domain("com.microsoft");
  ms->set_version(1);
  const std::string bytes = b.bytes();
  auto loaded = onnx_format::load_model_bytes(bytes.data(), bytes.size(), "");
  ASSERT_TRUE(loaded.ok()) << loaded.status().to_string();
  ir::Model m = std::move(*loaded);
  ASSERT_TRUE(training::fold_scales_into_products(m));
  ASSERT_EQ(m.graph.nodes.size(), 1u);
  EXPECT_FLOAT_EQ(m.graph.nodes[0].attribute("alpha")->f, 2.f);
  EXPECT_EQ(m.graph.nodes[0].outputs[0], "y");
  EXPECT_FALSE(training::fold_scales_into_products(m));
}

}  // namespace
}  // namespace onyx
