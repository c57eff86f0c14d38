// The gradient kernels of ai.onyx.training that the Python tests check against torch
// (ResizeGrad, SliceGrad, AveragePoolGrad, LSTMGrad, GRUGrad, RNNGrad), here in C++ so that they
// also run under the sanitizers: each forward op's gradient, built by ONNX's Gradient op and run
// in a session in float64, against central finite differences of the same session's loss.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "model_builder.h"
#include "session/session.h"

namespace onyx {
namespace {

using testing::ModelBuilder;

struct Operand {
  std::string name;
  Shape shape;
};

void int64_initializer(ModelBuilder& b, const std::string& name, std::vector<int64_t> values) {
  auto* t = b.graph->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::INT64);
  t->add_dims(int64_t(values.size()));
  for (int64_t v : values) t->add_int64_data(v);
}

onnx::AttributeProto* attribute(onnx::NodeProto* n, const std::string& name) {
  auto* a = n->add_attribute();
  a->set_name(name);
  return a;
}
void set_int(onnx::NodeProto* n, const std::string& name, int64_t v) {
  auto* a = attribute(n, name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}
void set_ints(onnx::NodeProto* n, const std::string& name, std::vector<int64_t> v) {
  auto* a = attribute(n, name);
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t x : v) a->add_ints(x);
}
void set_string(onnx::NodeProto* n, const std::string& name, const std::string& v) {
  auto* a = attribute(n, name);
  a->set_type(onnx::AttributeProto::STRING);
  a->set_s(v);
}

// loss = sum(y * weights), y made by `forward` from the operands; checks d loss / d operand for
// every operand against central differences.
void expect_gradients_match_differences(const std::vector<Operand>& xs, const Shape& y_shape,
                                        const std::function<void(ModelBuilder&)>& forward) {
  ModelBuilder b(17);
  auto* op = b.model.add_opset_import();
  op->set_domain("ai.onnx.preview.training");
  op->set_version(1);
  for (const Operand& x : xs) b.input(x.name, x.shape, onnx::TensorProto::DOUBLE);
  b.input("weights", y_shape, onnx::TensorProto::DOUBLE);
  b.output("loss", {}, onnx::TensorProto::DOUBLE);
  forward(b);
  b.node("Mul", {"y", "weights"}, {"weighted"});
  set_int(b.node("ReduceSum", {"weighted"}, {"loss"}), "keepdims", 0);
  std::vector<std::string> names, grads;
  for (const Operand& x : xs) {
    names.push_back(x.name);
    grads.push_back("d_" + x.name);
    b.output(grads.back(), x.shape, onnx::TensorProto::DOUBLE);
  }
  auto* g = b.node("Gradient", names, grads, "gradient");
  g->set_domain("ai.onnx.preview.training");
  auto* a = attribute(g, "xs");
  a->set_type(onnx::AttributeProto::STRINGS);
  for (const auto& n : names) a->add_strings(n);
  set_string(g, "y", "loss");
  const std::string bytes = b.bytes();
  auto session = Session::load_bytes(bytes.data(), bytes.size());
  ASSERT_TRUE(session.ok()) << session.status().to_string();
  std::vector<std::pair<std::string, Value>> feeds;
  uint64_t state = 12345;
  auto next = [&] {  // deterministic values in [-1, 1)
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return double(state >> 11) / double(uint64_t(1) << 53) * 2 - 1;
  };
  for (const Operand& x : xs) {
    Tensor t(DataType::kDouble, x.shape);
    for (int64_t i = 0; i < t.numel(); ++i) t.data<double>()[i] = next();
    feeds.emplace_back(x.name, Value(t));
  }
  Tensor w(DataType::kDouble, y_shape);
  for (int64_t i = 0; i < w.numel(); ++i) w.data<double>()[i] = next();
  feeds.emplace_back("weights", Value(w));
  auto out = (*session)->run(feeds);
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  auto loss_at = [&](size_t which, int64_t i, double delta) {
    Tensor& t = feeds[which].second.tensor();
    const double kept = t.data<double>()[i];
    t.data<double>()[i] = kept + delta;
    auto r = (*session)->run(feeds);
    t.data<double>()[i] = kept;
    EXPECT_TRUE(r.ok()) << r.status().to_string();
    return r.ok() ? (*r)[0].tensor().data<double>()[0] : 0.0;
  };
  const double eps = 1e-6;
  for (size_t k = 0; k < xs.size(); ++k) {
    const Tensor& analytic = (*out)[1 + k].tensor();
    ASSERT_EQ(analytic.shape(), xs[k].shape) << xs[k].name;
    for (int64_t i = 0; i < analytic.numel(); ++i) {
      const double numeric = (loss_at(k, i, eps) - loss_at(k, i, -eps)) / (2 * eps);
      EXPECT_NEAR(analytic.data<double>()[i], numeric, 1e-6 + 1e-6 * std::abs(numeric)) << xs[k].name << "[" << i << "]";
    }
  }
}

TEST(TrainingGradKernels, ResizeGradSpreadsLinearWeightsBack) {
  expect_gradients_match_differences({{"x", {1, 2, 3, 4}}}, {1, 2, 6, 6}, [](ModelBuilder& b) {
    b.initializer("scales", {4}, {1, 1, 2, 1.5f});
    auto* n = b.node("Resize", {"x", "", "scales"}, {"y"});
    set_string(n, "mode", "linear");
    set_string(n, "coordinate_transformation_mode", "pytorch_half_pixel");
  });
}

TEST(TrainingGradKernels, SliceGradWritesBackWithNegativeAndLongSteps) {
  expect_gradients_match_differences({{"x", {4, 5}}}, {2, 3}, [](ModelBuilder& b) {
    int64_initializer(b, "starts", {-1, 0});
    int64_initializer(b, "ends", {-100, 5});
    int64_initializer(b, "axes", {0, 1});
    int64_initializer(b, "steps", {-2, 2});
    b.node("Slice", {"x", "starts", "ends", "axes", "steps"}, {"y"});
  });
}

TEST(TrainingGradKernels, AveragePoolGradWithCeilModeAndPadding) {
  expect_gradients_match_differences({{"x", {1, 2, 5, 5}}}, {1, 2, 3, 3}, [](ModelBuilder& b) {
    auto* n = b.node("AveragePool", {"x"}, {"y"});
    set_ints(n, "kernel_shape", {3, 3});
    set_ints(n, "strides", {2, 2});
    set_ints(n, "pads", {1, 1, 1, 1});
    set_int(n, "ceil_mode", 1);
  });
}

TEST(TrainingGradKernels, LstmGradThroughTimeBothDirections) {
  expect_gradients_match_differences(
      {{"x", {3, 2, 2}}, {"w", {2, 8, 2}}, {"r", {2, 8, 2}}, {"bias", {2, 16}}, {"h0", {2, 2, 2}}, {"c0", {2, 2, 2}},
       {"p", {2, 6}}},
      {3, 2, 2, 2}, [](ModelBuilder& b) {
        auto* n = b.node("LSTM", {"x", "w", "r", "bias", "", "h0", "c0", "p"}, {"y"});
        set_int(n, "hidden_size", 2);
        set_string(n, "direction", "bidirectional");
      });
}

TEST(TrainingGradKernels, GruGradThroughTimeBothResetForms) {
  for (int64_t lbr : {0, 1})
    expect_gradients_match_differences({{"x", {3, 2, 2}}, {"w", {1, 6, 2}}, {"r", {1, 6, 2}}, {"bias", {1, 12}},
                                        {"h0", {1, 2, 2}}},
                                       {3, 1, 2, 2}, [lbr](ModelBuilder& b) {
                                         auto* n = b.node("GRU", {"x", "w", "r", "bias", "", "h0"}, {"y"});
                                         set_int(n, "hidden_size", 2);
                                         set_int(n, "linear_before_reset", lbr);
                                       });
}

TEST(TrainingGradKernels, RnnGradThroughTime) {
  expect_gradients_match_differences({{"x", {3, 2, 2}}, {"w", {1, 2, 2}}, {"r", {1, 2, 2}}, {"bias", {1, 4}},
                                      {"h0", {1, 2, 2}}},
                                     {3, 1, 2, 2}, [](ModelBuilder& b) {
                                       auto* n = b.node("RNN", {"x", "w", "r", "bias", "", "h0"}, {"y"});
                                       set_int(n, "hidden_size", 2);
                                     });
}

// A gradient kernel named directly by a (hostile) model: inputs of the wrong shape are refused
// with an error, never read past their ends.
Status run_recurrent_grad(const std::string& op, const std::vector<std::pair<std::string, Shape>>& inputs,
                          const std::vector<std::string>& node_inputs, int64_t hidden) {
  ModelBuilder b(17);
  auto* domain = b.model.add_opset_import();
  domain->set_domain("ai.onyx.training");
  domain->set_version(1);
  std::vector<std::pair<std::string, Value>> feeds;
  for (const auto& [name, shape] : inputs) {
    const bool lens = name == "lens";
    b.input(name, shape, lens ? onnx::TensorProto::INT32 : onnx::TensorProto::FLOAT);
    Tensor t(lens ? DataType::kInt32 : DataType::kFloat, shape);
    for (int64_t i = 0; i < t.numel(); ++i) {
      if (lens) t.data<int32_t>()[i] = 1;
      else t.data<float>()[i] = 0.1f * float(i % 7);
    }
    feeds.emplace_back(name, Value(t));
  }
  b.output("dx", {-1, -1, -1});
  auto* n = b.node(op, node_inputs, {"dx"});
  n->set_domain("ai.onyx.training");
  set_int(n, "hidden_size", hidden);
  const std::string bytes = b.bytes();
  auto session = Session::load_bytes(bytes.data(), bytes.size());
  if (!session.ok()) return session.status();
  auto out = (*session)->run(feeds);
  return out.ok() ? Status::Ok() : out.status();
}

TEST(TrainingGradKernels, RecurrentGradientKernelsRefuseInputsOfTheWrongShape) {
  // LSTMGrad with eight inputs: initial_h and P far too small.
  Status s = run_recurrent_grad("LSTMGrad", {{"x", {2, 1, 3}}, {"w", {1, 8, 3}}, {"r", {1, 8, 2}}, {"h0", {1}}, {"p", {1}}},
                                {"x", "w", "r", "", "", "h0", "", "p"}, 2);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.to_string();
  // GRUGrad with six inputs: sequence_lens for one row of three.
  s = run_recurrent_grad("GRUGrad", {{"x", {2, 3, 3}}, {"w", {1, 6, 3}}, {"r", {1, 6, 2}}, {"lens", {1}}},
                         {"x", "w", "r", "", "lens"}, 2);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.to_string();
  // RNNGrad with a dY of the wrong size, and with one input too many.
  s = run_recurrent_grad("RNNGrad", {{"x", {2, 1, 3}}, {"w", {1, 2, 3}}, {"r", {1, 2, 2}}, {"dy", {5}}},
                         {"x", "w", "r", "", "", "", "dy"}, 2);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.to_string();
  s = run_recurrent_grad("RNNGrad", {{"x", {2, 1, 3}}, {"w", {1, 2, 3}}, {"r", {1, 2, 2}}},
                         {"x", "w", "r", "", "", "", "", "", "x"}, 2);
  EXPECT_FALSE(s.ok());
}

}  // namespace
}  // namespace onyx
