// nhwc_layout and transpose_optimization on a statically quantised network (QOperator form,
// optimizer/quantize_static.h): QLinearConv becomes NhwcQLinearConv, uint8 MaxPool
// NhwcMaxPool, and the Transposes between them cancel through QLinearAdd and
// QLinearGlobalAveragePool, leaving one after the input's QuantizeLinear and one after the
// pool; the outputs are exactly those of the NCHW graph (the same int8 arithmetic). And
// qdq_fusion: the QDQ form of the same network fuses back into the QOperator graph.
#include <gtest/gtest.h>

#include "optimizer/quantize_static.h"
#include "pass_test_util.h"

namespace onyx::testing {
namespace {

// Conv -> Relu, Conv, Add(., first Relu) -> Relu, MaxPool, GlobalAveragePool, Flatten, Gemm.
PassModel small_cnn() {
  PassModel m;
  m.input("x", {2, 3, 10, 10});
  m.init_random("w1", {8, 3, 3, 3}, 0.3f);
  m.init_random("b1", {8}, 0.1f);
  m.init_random("w2", {8, 8, 3, 3}, 0.2f);
  m.init_random("b2", {8}, 0.1f);
  m.init_random("wf", {4, 8}, 0.3f);
  m.init_random("bf", {4}, 0.1f);
  attr_ints(m.node("Conv", {"x", "w1", "b1"}, {"c1"}), "pads", {1, 1, 1, 1});
  m.node("Relu", {"c1"}, {"r1"});
  attr_ints(m.node("Conv", {"r1", "w2", "b2"}, {"c2"}), "pads", {1, 1, 1, 1});
  m.node("Add", {"c2", "r1"}, {"s"});
  m.node("Relu", {"s"}, {"r2"});
  auto* pool = m.node("MaxPool", {"r2"}, {"p"});
  attr_ints(pool, "kernel_shape", {3, 3});
  attr_ints(pool, "strides", {2, 2});
  attr_ints(pool, "pads", {1, 1, 1, 1});
  m.node("GlobalAveragePool", {"p"}, {"g"});
  m.node("Flatten", {"g"}, {"f"});
  attr_int(m.node("Gemm", {"f", "wf", "bf"}, {"y"}), "transB", 1);
  m.output("y");
  return m;
}

// The network in QOperator (or QDQ) form: the activations after the Relus get the range [0, 4],
// the others [-4, 4].
ir::Model quantized_cnn(bool per_channel, bool qdq = false) {
  ir::Model model = load(small_cnn());
  std::map<std::string, optimizer::TensorRange> ranges;
  for (const auto& t : optimizer::calibration_tensors(model))
    ranges[t] = t == "r1" || t == "r2" || t == "p" || t == "g" ? optimizer::TensorRange{0.f, 4.f}
                                                               : optimizer::TensorRange{-4.f, 4.f};
  optimizer::StaticQuantizeOptions options;
  options.per_channel = per_channel;
  if (qdq) options.format = optimizer::QuantFormat::kQdq;
  auto report = optimizer::quantize_static(model, ranges, options);
  EXPECT_TRUE(report.ok()) << report.status().to_string();
  return model;
}

TEST(QLinearLayout, QuantisedChainRunsChannelsLastWithTheSameOutputs) {
  for (bool per_channel : {false, true}) {
    ir::Model before = quantized_cnn(per_channel);
    EXPECT_EQ(histogram(before.graph),
              (std::map<std::string, int>{{"QuantizeLinear", 1}, {"QLinearConv", 2}, {"com.microsoft:QLinearAdd", 1},
                                          {"MaxPool", 1}, {"com.microsoft:QLinearGlobalAveragePool", 1}, {"Flatten", 1},
                                          {"com.microsoft:QGemm", 1}}));
    ir::Model after = quantized_cnn(per_channel);
    auto report = apply_level(after, 99);
    ASSERT_TRUE(report.ok()) << report.status().to_string();
    EXPECT_EQ(histogram(after.graph),
              (std::map<std::string, int>{{"QuantizeLinear", 1}, {"Transpose", 2}, {"com.microsoft:NhwcQLinearConv", 2},
                                          {"com.microsoft:QLinearAdd", 1}, {"com.microsoft:NhwcMaxPool", 1},
                                          {"com.microsoft:QLinearGlobalAveragePool", 1}, {"Flatten", 1},
                                          {"com.microsoft:QGemm", 1}}));
    for (const auto& n : after.graph.nodes)
      if (n.op_type == "QLinearGlobalAveragePool") {
        ASSERT_NE(n.attribute("channels_last"), nullptr);
        EXPECT_EQ(n.attribute("channels_last")->i, 1);
      }
    const std::vector<Value> inputs = random_inputs(before);
    auto expected = run_model(before, inputs);
    auto actual = run_model(after, inputs);
    ASSERT_TRUE(expected.ok()) << expected.status().to_string();
    ASSERT_TRUE(actual.ok()) << actual.status().to_string();
    expect_same_outputs(*expected, *actual, 0.0, 0.0);
  }
}

// qdq_fusion turns the QDQ form back into the quantised operators: the same graph as the
// QOperator form and bit-identical outputs; the unfused QDQ graph (float operators on
// dequantised values) stays close.
TEST(QdqFusion, QdqFormBecomesTheQuantisedOperators) {
  for (bool per_channel : {false, true}) {
    ir::Model qdq = quantized_cnn(per_channel, /*qdq=*/true);
    EXPECT_EQ(histogram(qdq.graph)["Conv"], 2);
    ir::Model fused = quantized_cnn(per_channel, /*qdq=*/true);
    auto report = apply_passes(fused, {"qdq_fusion", "dead_node_elimination"});
    ASSERT_TRUE(report.ok()) << report.status().to_string();
    EXPECT_EQ(histogram(fused.graph),
              (std::map<std::string, int>{{"QuantizeLinear", 1}, {"QLinearConv", 2}, {"com.microsoft:QLinearAdd", 1},
                                          {"MaxPool", 1}, {"com.microsoft:QLinearGlobalAveragePool", 1}, {"Flatten", 1},
                                          {"com.microsoft:QGemm", 1}}));
    ir::Model qoperator = quantized_cnn(per_channel);
    const std::vector<Value> inputs = random_inputs(qoperator);
    auto expected = run_model(qoperator, inputs);
    auto actual = run_model(fused, inputs);
    auto unfused = run_model(qdq, inputs);
    ASSERT_TRUE(expected.ok() && actual.ok() && unfused.ok());
    expect_same_outputs(*expected, *actual, 0.0, 0.0);
    expect_same_outputs(*unfused, *actual, 0.05, 0.05);
  }
}

TEST(QdqFusion, ReluStaysWhenTheZeroPointIsNotTheLowestValue) {
  // A Relu absorbed into a Q whose zero point is not 0 (uint8) would change values below 0.
  ir::Model m = quantized_cnn(false, /*qdq=*/true);
  for (auto& [name, t] : m.graph.initializers)
    if (name.find("r1_zero_point") != std::string::npos) t.data<uint8_t>()[0] = 3;
  auto report = apply_passes(m, {"qdq_fusion"});
  ASSERT_TRUE(report.ok()) << report.status().to_string();
  EXPECT_EQ(histogram(m.graph)["Relu"], 1);
  EXPECT_EQ(histogram(m.graph)["QLinearConv"], 1);
}

TEST(QLinearLayout, WeightsBeyondInt8StayNchw) {
  // uint8 weights with zero point 0 (differences up to 255): only the reference path takes them.
  ir::Model model = quantized_cnn(false);
  for (auto& n : model.graph.nodes)
    if (n.op_type == "QLinearConv") {
      Tensor w(DataType::kUInt8, model.graph.initializers.at(n.inputs[3]).shape());
      for (int64_t i = 0; i < w.numel(); ++i) w.data<uint8_t>()[i] = uint8_t(i % 256);
      const std::string name = n.inputs[3] + "_u8", zp = n.inputs[5] + "_u8";
      model.graph.initializers.emplace(name, std::move(w));
      model.graph.initializers.emplace(zp, Tensor::scalar<uint8_t>(0));
      n.inputs[3] = name;
      n.inputs[5] = zp;
    }
  auto report = apply_level(model, 99);
  ASSERT_TRUE(report.ok()) << report.status().to_string();
  EXPECT_EQ(histogram(model.graph)["QLinearConv"], 2);
  EXPECT_EQ(histogram(model.graph)["com.microsoft:NhwcQLinearConv"], 0);
}

}  // namespace
}  // namespace onyx::testing
