// The gradient builder and the training models in C++ (the Python tests check every rule
// against finite differences; these run under the sanitizers too): ONNX's Gradient op through
// a session, the training model's gradients and accumulation, and the errors for bad input.
#include <gtest/gtest.h>

#include <cmath>

#include "model_builder.h"
#include "onnx/loader.h"
#include "session/session.h"
#include "training/training_graph.h"

namespace onyx {
namespace {

using testing::ModelBuilder;

std::string with_gradient_op() {  // y = sum(tanh(x @ w)); Gradient(xs = [x, w], y)
  ModelBuilder b(17);
  auto* op = b.model.add_opset_import();
  op->set_domain("ai.onnx.preview.training");
  op->set_version(1);
  b.input("x", {2, 3}).input("w", {3, 2}).output("y", {}).output("dx", {2, 3}).output("dw", {3, 2});
  b.node("MatMul", {"x", "w"}, {"xw"}, "mm");
  b.node("Tanh", {"xw"}, {"t"}, "tanh");
  auto* sum = b.node("ReduceSum", {"t"}, {"y"}, "sum");
  auto* keep = sum->add_attribute();
  keep->set_name("keepdims");
  keep->set_type(onnx::AttributeProto::INT);
  keep->set_i(0);
  auto* g = b.node("Gradient", {"x", "w"}, {"dx", "dw"}, "grad");
  g->set_domain("ai.onnx.preview.training");
  auto* xs = g->add_attribute();
  xs->set_name("xs");
  xs->set_type(onnx::AttributeProto::STRINGS);
  xs->add_strings("x");
  xs->add_strings("w");
  auto* y = g->add_attribute();
  y->set_name("y");
  y->set_type(onnx::AttributeProto::STRING);
  y->set_s("y");
  return b.bytes();
}

TEST(Gradients, TheGradientOpMatchesTheAnalyticGradient) {
  const std::string bytes = with_gradient_op();
  auto s = Session::load_bytes(bytes.data(), bytes.size());
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  Tensor x(DataType::kFloat, {2, 3}), w(DataType::kFloat, {3, 2});
  for (int i = 0; i < 6; ++i) {
    x.data<float>()[i] = 0.1f * float(i) - 0.2f;
    w.data<float>()[i] = 0.3f - 0.05f * float(i);
  }
  auto out = (*s)->run({{"x", Value(x)}, {"w", Value(w)}});
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  const float* dx = (*out)[1].tensor().data<float>();
  const float* dw = (*out)[2].tensor().data<float>();
  // d/dxw = 1 - tanh^2; dx = that @ w^T; dw = x^T @ that.
  float d[2][2];
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j) {
      float acc = 0;
      for (int k = 0; k < 3; ++k) acc += x.data<float>()[i * 3 + k] * w.data<float>()[k * 2 + j];
      d[i][j] = 1 - std::tanh(acc) * std::tanh(acc);
    }
  for (int i = 0; i < 2; ++i)
    for (int k = 0; k < 3; ++k) {
      float want = 0;
      for (int j = 0; j < 2; ++j) want += d[i][j] * w.data<float>()[k * 2 + j];
      EXPECT_NEAR(dx[i * 3 + k], want, 1e-5f);
    }
  for (int k = 0; k < 3; ++k)
    for (int j = 0; j < 2; ++j) {
      float want = 0;
      for (int i = 0; i < 2; ++i) want += x.data<float>()[i * 3 + k] * d[i][j];
      EXPECT_NEAR(dw[k * 2 + j], want, 1e-5f);
    }
}

ir::Model forward_with_loss() {  // loss = mean((x @ w + b)^2)
  ModelBuilder b(17);
  b.input("x", {-1, 3}).output("loss", {});
  b.initializer("w", {3, 2}, {1, 2, 3, 4, 5, 6});
  b.initializer("b", {2}, {0.5f, -0.5f});
  b.node("MatMul", {"x", "w"}, {"xw"}, "mm");
  b.node("Add", {"xw", "b"}, {"y"}, "add");
  b.node("Mul", {"y", "y"}, {"sq"}, "sq");
  auto* mean = b.node("ReduceMean", {"sq"}, {"loss"}, "mean");
  auto* keep = mean->add_attribute();
  keep->set_name("keepdims");
  keep->set_type(onnx::AttributeProto::INT);
  keep->set_i(0);
  const std::string bytes = b.bytes();
  auto m = onnx_format::load_model_bytes(bytes.data(), bytes.size(), "");
  EXPECT_TRUE(m.ok()) << m.status().to_string();
  return m.ok() ? std::move(m).value() : ir::Model{};
}

TEST(TrainingModels, GradientsAccumulateUnderOnnxRuntimesNames) {
  auto made = training::make_training_models(forward_with_loss(), {{"w", "b"}, {}, "loss", {}});
  ASSERT_TRUE(made.ok()) << made.status().to_string();
  EXPECT_EQ(made->parameters, (std::vector<std::string>{"w", "b"}));
  auto s = Session::from_loaded_model(made->training);
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  Tensor x(DataType::kFloat, {1, 3}), w(DataType::kFloat, {3, 2}), b(DataType::kFloat, {2});
  x.data<float>()[0] = 1;  // y = w[0, :] + b = [1.5, 1.5]; loss = 2.25; dy = y; dw[0] = y, db = y
  const float wv[] = {1, 2, 3, 4, 5, 6};
  std::copy(wv, wv + 6, w.data<float>());
  b.data<float>()[0] = 0.5f;
  b.data<float>()[1] = -0.5f;
  Tensor wbuf(DataType::kFloat, {3, 2}), bbuf(DataType::kFloat, {2}), reset(DataType::kBool, {});
  for (int i = 0; i < 2; ++i) bbuf.data<float>()[i] = 10;  // a previous step's sum
  for (bool fresh : {true, false}) {
    reset.data<bool>()[0] = fresh;
    auto out = (*s)->run({{"x", Value(x)}, {"w", Value(w)}, {"b", Value(b)}, {"w_grad.accumulation.buffer", Value(wbuf)},
                          {"b_grad.accumulation.buffer", Value(bbuf)}, {"lazy_reset_grad", Value(reset)}});
    ASSERT_TRUE(out.ok()) << out.status().to_string();
    ASSERT_EQ((*s)->outputs()[2].name, "b_grad.accumulation.out");
    EXPECT_FLOAT_EQ((*out)[0].tensor().data<float>()[0], 2.25f);
    const float* db = (*out)[2].tensor().data<float>();
    EXPECT_FLOAT_EQ(db[0], fresh ? 1.5f : 11.5f);
    EXPECT_FLOAT_EQ(db[1], fresh ? 1.5f : 11.5f);
    EXPECT_FLOAT_EQ((*out)[1].tensor().data<float>()[0], 1.5f);  // dw[0, 0]
  }
}

TEST(TrainingModels, BadSpecificationsAreRefusedWithReasons) {
  const ir::Model m = forward_with_loss();
  auto not_init = training::make_training_models(m, {{"x"}, {}, "loss", {}});
  EXPECT_NE(not_init.status().to_string().find("'x' is not an initializer"), std::string::npos) << not_init.status().to_string();
  auto not_scalar = training::make_training_models(m, {{"w"}, {}, "sq", {}});
  EXPECT_NE(not_scalar.status().to_string().find("must be a scalar"), std::string::npos) << not_scalar.status().to_string();
  auto twice = training::make_training_models(m, {{"w"}, {"w"}, "loss", {}});
  EXPECT_NE(twice.status().to_string().find("listed twice"), std::string::npos);
  auto no_loss = training::make_training_models(m, {{"w"}, {}, "nope", {}});
  EXPECT_EQ(no_loss.status().code(), StatusCode::kInvalidArgument);
  // An op with no rule on the path: the error names it and the path from the loss.
  ModelBuilder b(17);
  b.input("x", {2}).output("loss", {});
  b.initializer("w", {2}, {1, 2});
  b.node("Mul", {"x", "w"}, {"xw"}, "scale");
  b.node("Hardmax", {"xw"}, {"s"}, "hard_max");
  b.node("ReduceSum", {"s"}, {"loss"}, "total")->add_attribute()->CopyFrom([] {
    onnx::AttributeProto a;
    a.set_name("keepdims");
    a.set_type(onnx::AttributeProto::INT);
    a.set_i(0);
    return a;
  }());
  const std::string bytes = b.bytes();
  auto hardmax_model = onnx_format::load_model_bytes(bytes.data(), bytes.size(), "");
  ASSERT_TRUE(hardmax_model.ok());
  auto no_rule = training::make_training_models(*hardmax_model, {{"w"}, {}, "loss", {}});
  ASSERT_FALSE(no_rule.ok());
  EXPECT_EQ(no_rule.status().code(), StatusCode::kNotImplemented);
  EXPECT_NE(no_rule.status().to_string().find("no gradient rule for Hardmax (node 'hard_max' (Hardmax), on the path 'loss' <- "
                                              "'total' (ReduceSum) <- 'hard_max' (Hardmax))"),
            std::string::npos)
      << no_rule.status().to_string();
}

}  // namespace
}  // namespace onyx
