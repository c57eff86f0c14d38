// The extended-level fusions (src/optimizer/fusions): each exported variant is fused, the
// near misses are left, and the outputs before and after agree on random inputs.
#include <gtest/gtest.h>

#include "pass_test_util.h"

namespace onyx::testing {
namespace {

using Hist = std::map<std::string, int>;
constexpr double kRtol = 1e-4, kAtol = 1e-5;  // fused kernels round differently

// x * 0.5 * (1 + erf(x / sqrt2)) in one of the groupings exporters write.
enum class ErfForm { kDivThenTimesHalf, kMulInvSqrt2, kHalfFirst, kHalfOnAdd };

void add_erf_gelu(PassModel& m, const std::string& x, const std::string& y, ErfForm form, const std::string& tag = "") {
  const std::string t = tag;
  if (form == ErfForm::kMulInvSqrt2) m.node("Mul", {m.scalar("inv_sqrt2" + t, 0.70710677f), x}, {"scaled" + t});
  else m.node("Div", {x, m.scalar("sqrt2" + t, 1.4142135f)}, {"scaled" + t});
  m.node("Erf", {"scaled" + t}, {"erf" + t});
  m.node("Add", {m.scalar("one" + t, 1.f), "erf" + t}, {"plus1" + t});
  switch (form) {
    case ErfForm::kDivThenTimesHalf:
    case ErfForm::kMulInvSqrt2:
      m.node("Mul", {x, "plus1" + t}, {"xp" + t});
      m.node("Mul", {"xp" + t, m.scalar("half" + t, 0.5f)}, {y});
      break;
    case ErfForm::kHalfFirst:
      m.node("Mul", {m.scalar("half" + t, 0.5f), x}, {"hx" + t});
      m.node("Mul", {"plus1" + t, "hx" + t}, {y});
      break;
    case ErfForm::kHalfOnAdd:
      m.node("Mul", {"plus1" + t, m.scalar("half" + t, 0.5f)}, {"hp" + t});
      m.node("Mul", {x, "hp" + t}, {y});
      break;
  }
}

TEST(GeluFusion, EveryExportedGroupingFuses) {
  for (ErfForm form : {ErfForm::kDivThenTimesHalf, ErfForm::kMulInvSqrt2, ErfForm::kHalfFirst, ErfForm::kHalfOnAdd}) {
    SCOPED_TRACE(int(form));
    PassModel m;
    m.input("x", {-1, 8});
    add_erf_gelu(m, "x", "y", form);
    m.output("y");
    check_rewrite(m, {"gelu_fusion"}, {{"com.microsoft:Gelu", 1}}, kRtol, kAtol);
  }
}

TEST(GeluFusion, SharedIntermediatesAndWrongConstantsStay) {
  PassModel m;
  m.input("x", {4, 8});
  add_erf_gelu(m, "x", "y", ErfForm::kDivThenTimesHalf);
  m.output("y").output("erf");  // erf is read outside the pattern
  check_rewrite(m, {"gelu_fusion"}, {{"Div", 1}, {"Erf", 1}, {"Add", 1}, {"Mul", 2}});

  PassModel w;  // 0.6 instead of 0.5: not GELU
  w.input("x", {4, 8});
  w.node("Div", {"x", w.scalar("sqrt2", 1.4142135f)}, {"s"});
  w.node("Erf", {"s"}, {"e"});
  w.node("Add", {"e", w.scalar("one", 1.f)}, {"p"});
  w.node("Mul", {"x", "p"}, {"xp"});
  w.node("Mul", {"xp", w.scalar("not_half", 0.6f)}, {"y"});
  w.output("y");
  check_rewrite(w, {"gelu_fusion"}, {{"Div", 1}, {"Erf", 1}, {"Add", 1}, {"Mul", 2}});
}

// 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3))).
void add_tanh_gelu(PassModel& m, const std::string& x, const std::string& y, bool use_pow) {
  if (use_pow) {
    m.node("Pow", {x, m.scalar("three", 3.f)}, {"cube"});
  } else {
    m.node("Mul", {x, x}, {"sq"});
    m.node("Mul", {"sq", x}, {"cube"});
  }
  m.node("Mul", {m.scalar("c", 0.044715f), "cube"}, {"cc"});
  m.node("Add", {x, "cc"}, {"inner"});
  m.node("Mul", {"inner", m.scalar("k", 0.7978846f)}, {"scaled"});
  m.node("Tanh", {"scaled"}, {"t"});
  m.node("Add", {"t", m.scalar("one", 1.f)}, {"p"});
  m.node("Mul", {m.scalar("half", 0.5f), x}, {"hx"});
  m.node("Mul", {"hx", "p"}, {y});
}

TEST(FastGeluFusion, PowAndMulCubesFuse) {
  for (bool use_pow : {true, false}) {
    PassModel m;
    m.input("x", {3, 16});
    add_tanh_gelu(m, "x", "y", use_pow);
    m.output("y");
    check_rewrite(m, {"fast_gelu_fusion"}, {{"com.microsoft:FastGelu", 1}}, kRtol, kAtol);
  }
}

TEST(BiasGeluFusion, ProjectionBiasJoinsTheGelu) {
  PassModel m;
  m.input("x", {-1, 4, 8});
  m.init_random("w", {8, 16}, 0.5f);
  m.init_random("b", {16});
  m.node("MatMul", {"x", "w"}, {"xw"});
  m.node("Add", {"xw", "b"}, {"h"});
  add_erf_gelu(m, "h", "y", ErfForm::kDivThenTimesHalf);
  m.output("y");
  ir::Model after = check_rewrite(m, {}, {{"MatMul", 1}, {"com.microsoft:BiasGelu", 1}}, kRtol, kAtol, /*level=*/2);
  EXPECT_EQ(after.opsets.at("com.microsoft"), 1);

  PassModel t;  // the tanh form takes the bias as FastGelu's second input
  t.input("x", {2, 8});
  t.init_random("w", {8, 16}, 0.5f);
  t.init_random("b", {16});
  t.node("MatMul", {"x", "w"}, {"xw"});
  t.node("Add", {"b", "xw"}, {"h"});
  add_tanh_gelu(t, "h", "y", true);
  t.output("y");
  ir::Model fused = check_rewrite(t, {}, {{"MatMul", 1}, {"com.microsoft:FastGelu", 1}}, kRtol, kAtol, 2);
  for (const auto& n : fused.graph.nodes)
    if (n.op_type == "FastGelu") EXPECT_EQ(n.inputs.size(), 2u);
}

TEST(BiasGeluFusion, BroadcastingAndUnknownShapesFuse) {
  PassModel m;
  m.input("x", {4, 1});
  m.init_random("b", {16});  // the Add broadcasts x's last dim: the kernel does the same
  m.node("Add", {"x", "b"}, {"h"});
  add_erf_gelu(m, "h", "y", ErfForm::kDivThenTimesHalf);
  m.output("y");
  check_rewrite(m, {}, {{"com.microsoft:BiasGelu", 1}}, kRtol, kAtol, 2);

  PassModel u;  // x's shape unknown (no rule for what feeds it): still fused
  u.input("x", {3, 16});
  u.input("shape", {2}, onnx::TensorProto::INT64);
  u.node("Reshape", {"x", "shape"}, {"r"});
  u.init_random("b", {16});
  u.node("Add", {"r", "b"}, {"h"});
  add_erf_gelu(u, "h", "y", ErfForm::kHalfFirst);
  u.output("y");
  ir::Model before = load(u), after = load(u);
  ASSERT_TRUE(apply_level(after, 2).ok());
  EXPECT_EQ(histogram(after.graph), (Hist{{"Reshape", 1}, {"com.microsoft:BiasGelu", 1}}));
  Tensor shape(DataType::kInt64, {2});
  shape.data<int64_t>()[0] = 6;
  shape.data<int64_t>()[1] = 8;  // 6x8 + [16] does not broadcast: both graphs must refuse
  std::vector<Value> feeds = random_inputs(before);
  feeds[1] = Value(shape);
  EXPECT_FALSE(run_model(before, feeds).ok());
  EXPECT_FALSE(run_model(after, feeds).ok());
  shape.data<int64_t>()[0] = 3;
  shape.data<int64_t>()[1] = 16;
  feeds[1] = Value(shape);
  auto expected = run_model(before, feeds);
  auto actual = run_model(after, feeds);
  ASSERT_TRUE(expected.ok() && actual.ok());
  expect_same_outputs(*expected, *actual, kRtol, kAtol);
}

// BERT's residual block: y = LN(x + (x @ w + b)), with the sum read again by `also`.
PassModel residual_block(bool reuse_sum, int64_t axis = -1) {
  PassModel m;
  m.input("x", {-1, 4, 16});
  m.init_random("w", {16, 16}, 0.3f);
  m.init_random("b", {16});
  m.init_random("gamma", {16});
  m.init_random("beta", {16});
  m.node("MatMul", {"x", "w"}, {"xw"});
  m.node("Add", {"xw", "b"}, {"proj"});
  m.node("Add", {"proj", "x"}, {"sum"});
  auto* ln = m.node("LayerNormalization", {"sum", "gamma", "beta"}, {"y"});
  attr_int(ln, "axis", axis);
  attr_float(ln, "epsilon", 1e-5f);
  m.output("y");
  if (reuse_sum) {
    m.node("Relu", {"sum"}, {"also"});
    m.output("also");
  }
  return m;
}

TEST(SkipLayerNormFusion, ResidualWithBiasFuses) {
  ir::Model after = check_rewrite(residual_block(false), {"skip_layer_norm_fusion"},
                                  {{"MatMul", 1}, {"com.microsoft:SkipLayerNormalization", 1}}, kRtol, kAtol);
  for (const auto& n : after.graph.nodes)
    if (n.op_type == "SkipLayerNormalization") {
      EXPECT_EQ(n.inputs, (std::vector<std::string>{"xw", "x", "gamma", "beta", "b"}));
      EXPECT_EQ(n.outputs, (std::vector<std::string>{"y"}));
    }
}

TEST(SkipLayerNormFusion, ReusedSumBecomesTheFourthOutput) {
  ir::Model after = check_rewrite(residual_block(true), {"skip_layer_norm_fusion"},
                                  {{"MatMul", 1}, {"Relu", 1}, {"com.microsoft:SkipLayerNormalization", 1}}, kRtol, kAtol);
  for (const auto& n : after.graph.nodes)
    if (n.op_type == "SkipLayerNormalization") EXPECT_EQ(n.outputs, (std::vector<std::string>{"y", "", "", "sum"}));
}

TEST(SkipLayerNormFusion, OtherAxesStay) {
  check_rewrite(residual_block(false, 1), {"skip_layer_norm_fusion"},
                {{"MatMul", 1}, {"Add", 2}, {"LayerNormalization", 1}});
}

// LayerNorm(x) over the last dim written out, as opset < 17 exports have it.
void add_decomposed_ln(PassModel& m, const std::string& x, const std::string& y, bool pow_square, bool beta,
                       int64_t axis = -1) {
  attr_ints(m.node("ReduceMean", {x}, {"mean"}), "axes", {axis});
  m.node("Sub", {x, "mean"}, {"d"});
  if (pow_square) m.node("Pow", {"d", m.scalar("two", 2.f)}, {"sq"});
  else m.node("Mul", {"d", "d"}, {"sq"});
  attr_ints(m.node("ReduceMean", {"sq"}, {"var"}), "axes", {axis});
  m.node("Add", {"var", m.scalar("eps", 1e-5f)}, {"ve"});
  m.node("Sqrt", {"ve"}, {"sd"});
  m.node("Div", {"d", "sd"}, {"n"});
  m.init_random("gamma", {16});
  m.node("Mul", {"n", "gamma"}, {beta ? std::string("scaled") : y});
  if (beta) {
    m.init_random("beta", {16});
    m.node("Add", {"beta", "scaled"}, {y});
  }
}

TEST(LayerNormFusion, WrittenOutAfterAResidualBecomesSkipLayerNorm) {
  for (bool pow_square : {true, false})
    for (bool beta : {true, false}) {
      SCOPED_TRACE(std::to_string(pow_square) + std::to_string(beta));
      PassModel m(14);
      m.input("a", {-1, 4, 16});
      m.input("b", {-1, 4, 16});
      m.node("Add", {"a", "b"}, {"x"});
      add_decomposed_ln(m, "x", "y", pow_square, beta);
      m.node("Relu", {"x"}, {"also"});  // the sum is read again: the fused node's 4th output
      m.output("y").output("also");
      ir::Model after = check_rewrite(m, {"layer_norm_fusion"},
                                      {{"com.microsoft:SkipLayerNormalization", 1}, {"Relu", 1}}, 1e-4, 1e-5);
      for (const auto& n : after.graph.nodes)
        if (n.op_type == "SkipLayerNormalization") EXPECT_EQ(n.outputs.back(), "x");
    }
}

TEST(LayerNormFusion, WithoutAResidualOnlyFromOpset17) {
  for (int64_t opset : {14, 17}) {
    PassModel m(opset);
    m.input("x", {3, 16});
    add_decomposed_ln(m, "x", "y", true, true);
    m.output("y");
    if (opset == 17)
      check_rewrite(m, {"layer_norm_fusion"}, {{"LayerNormalization", 1}}, 1e-4, 1e-5);
    else
      check_rewrite(m, {"layer_norm_fusion"},
                    {{"ReduceMean", 2}, {"Sub", 1}, {"Pow", 1}, {"Add", 2}, {"Sqrt", 1}, {"Div", 1}, {"Mul", 1}});
  }
}

TEST(LayerNormFusion, OtherAxesStay) {
  PassModel m(14);
  m.input("a", {16, 16});
  m.input("b", {16, 16});
  m.node("Add", {"a", "b"}, {"x"});
  add_decomposed_ln(m, "x", "y", true, false, 0);
  m.output("y");
  check_rewrite(m, {"layer_norm_fusion"},
                {{"ReduceMean", 2}, {"Sub", 1}, {"Pow", 1}, {"Add", 2}, {"Sqrt", 1}, {"Div", 1}, {"Mul", 1}});
}

PassModel conv_bn(bool conv_bias, int64_t group) {
  PassModel m;
  m.input("x", {1, 4, 6, 6});
  m.init_random("w", {6, 4 / group, 3, 3}, 0.3f);
  if (conv_bias) m.init_random("cb", {6});
  m.init_random("scale", {6});
  m.init_random("bias", {6});
  m.init_random("mean", {6});
  m.init_random("var", {6}, 0.2f, 1.f);
  auto* conv = m.node("Conv", {"x", "w", conv_bias ? "cb" : ""}, {"c"});
  attr_ints(conv, "pads", {1, 1, 1, 1});
  attr_int(conv, "group", group);
  attr_float(m.node("BatchNormalization", {"c", "scale", "bias", "mean", "var"}, {"y"}), "epsilon", 1e-3f);
  m.output("y");
  return m;
}

TEST(ConvBnFusion, FoldsIntoWeightsAndBias) {
  for (bool bias : {true, false})
    for (int64_t group : {1, 2}) {
      SCOPED_TRACE(std::to_string(bias) + " group " + std::to_string(group));
      ir::Model after = check_rewrite(conv_bn(bias, group), {"conv_bn_fusion"}, {{"Conv", 1}}, kRtol, kAtol);
      EXPECT_EQ(after.graph.nodes[0].outputs[0], "y");
      EXPECT_EQ(after.graph.initializers.size(), 2u) << "W', B' only: the originals are dropped";
    }
}

TEST(ConvBnFusion, ConvOutputReadElsewhereStays) {
  PassModel m = conv_bn(true, 1);
  m.output("c");
  check_rewrite(m, {"conv_bn_fusion"}, {{"Conv", 1}, {"BatchNormalization", 1}});
}

}  // namespace
}  // namespace onyx::testing
