// ORTModule's graphs (training/module_graphs.h): the interface names, and gradients equal to
// the exact ones when the two graphs run one after the other, for y = Relu(x @ w + b) and for
// training-mode batch normalization (its running variance updated as PyTorch updates it).
#include <gtest/gtest.h>

#include <cmath>

#include "model_builder.h"
#include "onnx/loader.h"
#include "onnx/writer.h"
#include "session/session.h"
#include "training/module_graphs.h"

namespace onyx {
namespace {

using testing::ModelBuilder;

ir::Model load(const ModelBuilder& b) {
  const std::string bytes = b.bytes();
  auto m = onnx_format::load_model_bytes(bytes.data(), bytes.size(), "");
  EXPECT_TRUE(m.ok()) << m.status().to_string();
  return m.ok() ? std::move(*m) : ir::Model{};
}

std::unique_ptr<Session> session_of(const ir::Model& m) {
  auto bytes = onnx_format::serialize_model(m);
  EXPECT_TRUE(bytes.ok()) << bytes.status().to_string();
  auto s = Session::load_bytes(bytes->data(), bytes->size());
  EXPECT_TRUE(s.ok()) << s.status().to_string();
  return s.ok() ? std::move(s).value() : nullptr;
}

Tensor values(Shape shape, std::vector<float> v) {
  Tensor t(DataType::kFloat, std::move(shape));
  std::copy(v.begin(), v.end(), t.data<float>());
  return t;
}

TEST(ModuleGraphs, ALinearReluSplitsAndItsGradientsAreExact) {
  ModelBuilder b(17);
  b.input("x", {-1, 2}).output("y", {-1, 3});
  b.initializer("w", {2, 3}, {0.5f, -1.f, 2.f, 1.5f, 0.25f, -0.5f});
  b.initializer("b", {3}, {0.1f, 0.2f, -0.3f});
  b.node("MatMul", {"x", "w"}, {"xw"}, "mm");
  b.node("Add", {"xw", "b"}, {"z"}, "add");
  b.node("Relu", {"z"}, {"y"}, "relu");
  auto made = training::make_module_graphs(load(b), {{"x"}, {"w", "b"}, {}, {}});
  ASSERT_TRUE(made.ok()) << made.status().to_string();
  EXPECT_EQ(made->forward_inputs, (std::vector<std::string>{"x", "w", "b"}));
  EXPECT_EQ(made->outputs, std::vector<std::string>{"y"});
  EXPECT_EQ(made->output_grads, std::vector<std::string>{"y_grad"});
  EXPECT_EQ(made->gradients, (std::vector<std::string>{"x_grad", "w_grad", "b_grad"}));
  EXPECT_FALSE(made->stashed.empty());  // Relu's output or input, at least
  EXPECT_EQ(made->backward.graph.inputs.back().name, "y_grad");

  auto forward = session_of(made->forward);
  auto backward = session_of(made->backward);
  ASSERT_TRUE(forward && backward);
  const Tensor x = values({2, 2}, {1.f, -2.f, 0.5f, 3.f});
  const Tensor w = values({2, 3}, {0.5f, -1.f, 2.f, 1.5f, 0.25f, -0.5f});
  const Tensor bias = values({3}, {0.1f, 0.2f, -0.3f});
  auto fwd = forward->run({{"x", Value(x)}, {"w", Value(w)}, {"b", Value(bias)}});
  ASSERT_TRUE(fwd.ok()) << fwd.status().to_string();
  ASSERT_EQ(fwd->size(), 1 + made->stashed.size());
  std::vector<std::pair<std::string, Value>> feeds;
  for (size_t i = 0; i < made->stashed.size(); ++i) feeds.emplace_back(made->stashed[i], (*fwd)[1 + i]);
  const std::map<std::string, Tensor> fed = {{"x", x}, {"w", w}, {"b", bias}};
  for (const std::string& name : made->backward_forward_inputs) feeds.emplace_back(name, Value(fed.at(name)));
  const Tensor dy = values({2, 3}, {1.f, 2.f, 3.f, -1.f, 0.5f, 2.f});
  feeds.emplace_back("y_grad", Value(dy));
  auto grads = backward->run(feeds);
  ASSERT_TRUE(grads.ok()) << grads.status().to_string();
  // Exact: dz = dy where z > 0; dx = dz w^T, dw = x^T dz, db = sum over rows of dz.
  float z[2][3], dz[2][3];
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j) {
      z[i][j] = x.data<float>()[i * 2] * w.data<float>()[j] + x.data<float>()[i * 2 + 1] * w.data<float>()[3 + j] +
                bias.data<float>()[j];
      dz[i][j] = z[i][j] > 0 ? dy.data<float>()[i * 3 + j] : 0.f;
      EXPECT_FLOAT_EQ((*fwd)[0].tensor().data<float>()[i * 3 + j], std::max(z[i][j], 0.f));
    }
  const float* gx = (*grads)[0].tensor().data<float>();
  const float* gw = (*grads)[1].tensor().data<float>();
  const float* gb = (*grads)[2].tensor().data<float>();
  for (int i = 0; i < 2; ++i)
    for (int k = 0; k < 2; ++k) {
      float e = 0;
      for (int j = 0; j < 3; ++j) e += dz[i][j] * w.data<float>()[k * 3 + j];
      EXPECT_NEAR(gx[i * 2 + k], e, 1e-6);
    }
  for (int k = 0; k < 2; ++k)
    for (int j = 0; j < 3; ++j) EXPECT_NEAR(gw[k * 3 + j], x.data<float>()[k] * dz[0][j] + x.data<float>()[2 + k] * dz[1][j], 1e-6);
  for (int j = 0; j < 3; ++j) EXPECT_NEAR(gb[j], dz[0][j] + dz[1][j], 1e-6);
}

TEST(ModuleGraphs, BatchNormalizationReturnsPyTorchsRunningStatistics) {
  ModelBuilder b(17);
  b.input("x", {-1, 2}).output("y", {-1, 2});
  b.initializer("scale", {2}, {1.f, 2.f});
  b.initializer("shift", {2}, {0.f, 1.f});
  b.initializer("mean", {2}, {0.f, 0.f});
  b.initializer("var", {2}, {1.f, 1.f});
  auto* bn = b.node("BatchNormalization", {"x", "scale", "shift", "mean", "var"}, {"y", "mean_out", "var_out"}, "bn");
  auto* mode = bn->add_attribute();
  mode->set_name("training_mode");
  mode->set_type(onnx::AttributeProto::INT);
  mode->set_i(1);
  auto* momentum = bn->add_attribute();
  momentum->set_name("momentum");
  momentum->set_type(onnx::AttributeProto::FLOAT);
  momentum->set_f(0.9f);
  auto made = training::make_module_graphs(load(b), {{}, {"scale", "shift"}, {}, {}});
  ASSERT_TRUE(made.ok()) << made.status().to_string();
  EXPECT_EQ(made->running_statistics, (std::vector<std::string>{"mean", "var"}));
  auto forward = session_of(made->forward);
  ASSERT_TRUE(forward);
  // Channel 0 holds 1, 2, 3, 6 (mean 3, biased variance 3.5, unbiased 14/3).
  const Tensor x = values({4, 2}, {1.f, 0.f, 2.f, 0.f, 3.f, 0.f, 6.f, 4.f});
  auto out = forward->run({{"x", Value(x)}, {"scale", Value(values({2}, {1.f, 2.f}))},
                           {"shift", Value(values({2}, {0.f, 1.f}))}, {"mean", Value(values({2}, {0.f, 0.f}))},
                           {"var", Value(values({2}, {1.f, 1.f}))}});
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  const float* mean = (*out)[1].tensor().data<float>();
  const float* var = (*out)[2].tensor().data<float>();
  EXPECT_NEAR(mean[0], 0.1f * 3.f, 1e-6);                // PyTorch: 0.9 * 0 + 0.1 * 3
  EXPECT_NEAR(var[0], 0.9f + 0.1f * 14.f / 3.f, 1e-5);   // with the unbiased variance
  EXPECT_NEAR(var[1], 0.9f + 0.1f * 4.f, 1e-5);          // channel 1: 0, 0, 0, 4: unbiased 4
}

// y = BatchNormalization(x * mask) in training mode, its weights as initializers or (as
// torch.onnx.export(export_params=False) writes them) as graph inputs around the module's own.
ModelBuilder batch_norm_of_masked(bool weights_as_inputs) {
  ModelBuilder b(17);
  if (weights_as_inputs) {
    b.input("mask", {2}).input("x", {-1, 2}).input("scale", {2}).input("shift", {2}).input("mean", {2}).input("var", {2});
  } else {
    b.input("x", {-1, 2});
    b.initializer("mask", {2}, {1.f, 0.5f});
    b.initializer("scale", {2}, {1.f, 2.f});
    b.initializer("shift", {2}, {0.f, 1.f});
    b.initializer("mean", {2}, {0.f, 0.f});
    b.initializer("var", {2}, {1.f, 1.f});
  }
  b.output("y", {-1, 2});
  b.node("Mul", {"x", "mask"}, {"xm"}, "mul");
  auto* bn = b.node("BatchNormalization", {"xm", "scale", "shift", "mean", "var"}, {"y", "mean_out", "var_out"}, "bn");
  auto* mode = bn->add_attribute();
  mode->set_name("training_mode");
  mode->set_type(onnx::AttributeProto::INT);
  mode->set_i(1);
  return b;
}

TEST(ModuleGraphs, AnExportWithoutWeightsFeedsItsParametersAndKeepsItsBuffersAsConstants) {
  training::ModuleGraphSpec spec{{"x"}, {"scale", "shift"}, {}, {}};
  auto with_weights = training::make_module_graphs(load(batch_norm_of_masked(false)), spec);
  spec.buffers = {{"mask", values({2}, {1.f, 0.5f})}, {"mean", values({2}, {0.f, 0.f})}, {"var", values({2}, {1.f, 1.f})}};
  auto without = training::make_module_graphs(load(batch_norm_of_masked(true)), spec);
  ASSERT_TRUE(with_weights.ok()) << with_weights.status().to_string();
  ASSERT_TRUE(without.ok()) << without.status().to_string();
  for (const auto* made : {&*with_weights, &*without}) {
    EXPECT_EQ(made->forward_inputs, (std::vector<std::string>{"x", "scale", "shift", "mean", "var"}));
    EXPECT_EQ(made->running_statistics, (std::vector<std::string>{"mean", "var"}));
    EXPECT_EQ(made->gradients, (std::vector<std::string>{"x_grad", "scale_grad", "shift_grad"}));
    EXPECT_TRUE(made->forward.graph.initializers.count("mask"));
  }
  // The same forward values from both: the mask a constant, the parameters and statistics fed.
  const Tensor x = values({4, 2}, {1.f, 0.f, 2.f, 2.f, 3.f, 0.f, 6.f, 4.f});
  std::vector<std::pair<std::string, Value>> feeds = {
      {"x", Value(x)}, {"scale", Value(values({2}, {1.f, 2.f}))}, {"shift", Value(values({2}, {0.f, 1.f}))},
      {"mean", Value(values({2}, {0.f, 0.f}))}, {"var", Value(values({2}, {1.f, 1.f}))}};
  auto a = session_of(with_weights->forward)->run(feeds);
  auto b = session_of(without->forward)->run(feeds);
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_EQ(a->size(), b->size());
  for (size_t i = 0; i < a->size(); ++i) {
    const Tensor& ta = (*a)[i].tensor();
    const Tensor& tb = (*b)[i].tensor();
    ASSERT_EQ(ta.shape(), tb.shape());
    for (int64_t j = 0; j < ta.numel(); ++j) EXPECT_EQ(ta.data<float>()[j], tb.data<float>()[j]) << i << ", " << j;
  }
  // Channel 1 of the running mean saw the mask: 0.1 x the mean of 0.5 x (0, 2, 0, 4).
  EXPECT_NEAR((*b)[1].tensor().data<float>()[1], 0.1f * 0.5f * (0.f + 2.f + 0.f + 4.f) / 4.f, 1e-6);
}

TEST(ModuleGraphs, ABufferOfAnotherTypeThanTheExportDeclaresIsRefused) {
  Tensor mask(DataType::kDouble, Shape{2});
  training::ModuleGraphSpec spec{{"x"}, {"scale", "shift"}, {}, {{"mask", mask}}};
  spec.buffers.emplace("mean", values({2}, {0.f, 0.f}));
  spec.buffers.emplace("var", values({2}, {1.f, 1.f}));
  auto made = training::make_module_graphs(load(batch_norm_of_masked(true)), spec);
  ASSERT_FALSE(made.ok());
  EXPECT_EQ(made.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(made.status().message().find("'mask'"), std::string::npos) << made.status().to_string();
}

TEST(ModuleGraphs, AParameterOfAnIntegerTypeIsRefused) {
  ModelBuilder b(17);
  b.input("x", {2}).output("y", {2});
  auto* t = b.graph->add_initializer();
  t->set_name("k");
  t->set_data_type(onnx::TensorProto::INT64);
  t->add_dims(2);
  t->add_int64_data(1);
  t->add_int64_data(2);
  b.node("Identity", {"x"}, {"y"}, "id");
  auto made = training::make_module_graphs(load(b), {{}, {"k"}, {}, {}});
  ASSERT_FALSE(made.ok());
  EXPECT_EQ(made.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(made.status().message().find("'k'"), std::string::npos) << made.status().to_string();
}

}  // namespace
}  // namespace onyx
