// conv_activation_fusion: Conv + activation, Conv + Add (+ activation) become FusedConv; the
// near misses (shared or graph-output intermediates, broadcasting Adds, activation before the
// Add, non-constant weights, 1-D convs) stay; outputs agree before and after.
#include <gtest/gtest.h>

#include <limits>

#include "pass_test_util.h"

namespace onyx::testing {
namespace {

using Hist = std::map<std::string, int>;
constexpr double kRtol = 1e-4, kAtol = 1e-4;  // oneDNN sums in another order
const Hist kOneFused = {{"com.microsoft:FusedConv", 1}};

// x (1, 4, 6, 6) -> Conv 3x3 pad 1 (4 -> 4 maps, bias) -> "c".
PassModel conv_model(std::vector<int64_t> x_dims = {1, 4, 6, 6}, int64_t opset = 17) {
  PassModel m(opset);
  m.input("x", x_dims);
  m.init_random("w", {4, 4, 3, 3}, 0.3f);
  m.init_random("b", {4});
  attr_ints(m.node("Conv", {"x", "w", "b"}, {"c"}), "pads", {1, 1, 1, 1});
  return m;
}

const ir::Node& only_node(const ir::Model& m, const std::string& op) {
  for (const auto& n : m.graph.nodes)
    if (n.op_type == op) return n;
  static const ir::Node kNone;
  ADD_FAILURE() << "no " << op;
  return kNone;
}

std::string activation(const ir::Node& n) {
  const ir::Attribute* a = n.attribute("activation");
  return a ? a->s : "";
}

std::vector<float> params(const ir::Node& n) {
  const ir::Attribute* a = n.attribute("activation_params");
  return a ? a->floats : std::vector<float>{};
}

TEST(ConvActivationFusion, EachActivationFolds) {
  struct Case {
    std::string op;
    std::vector<float> want;
  };
  for (const Case& c : {Case{"Relu", {}}, Case{"Sigmoid", {}}, Case{"Tanh", {}}, Case{"LeakyRelu", {0.1f}},
                        Case{"HardSigmoid", {0.3f, 0.4f}}}) {
    SCOPED_TRACE(c.op);
    PassModel m = conv_model();
    auto* n = m.node(c.op, {"c"}, {"y"});
    if (c.op == "LeakyRelu") attr_float(n, "alpha", 0.1f);
    if (c.op == "HardSigmoid") {
      attr_float(n, "alpha", 0.3f);
      attr_float(n, "beta", 0.4f);
    }
    m.output("y");
    ir::Model after = check_rewrite(m, {"conv_activation_fusion"}, kOneFused, kRtol, kAtol);
    const ir::Node& f = only_node(after, "FusedConv");
    EXPECT_EQ(activation(f), c.op);
    EXPECT_EQ(params(f), c.want);
    EXPECT_EQ(f.inputs, (std::vector<std::string>{"x", "w", "b"}));
    EXPECT_EQ(f.outputs, (std::vector<std::string>{"y"}));
    EXPECT_EQ(after.opsets.at("com.microsoft"), 1);
  }
}

TEST(ConvActivationFusion, LeakyReluAndHardSigmoidDefaults) {
  PassModel m = conv_model();
  m.node("LeakyRelu", {"c"}, {"y"});
  m.output("y");
  EXPECT_EQ(params(only_node(check_rewrite(m, {"conv_activation_fusion"}, kOneFused, kRtol, kAtol), "FusedConv")),
            (std::vector<float>{0.01f}));
  PassModel h = conv_model();
  h.node("HardSigmoid", {"c"}, {"y"});
  h.output("y");
  EXPECT_EQ(params(only_node(check_rewrite(h, {"conv_activation_fusion"}, kOneFused, kRtol, kAtol), "FusedConv")),
            (std::vector<float>{0.2f, 0.5f}));
}

TEST(ConvActivationFusion, ClipAsInputsAndAsAttributes) {
  const float lo = std::numeric_limits<float>::lowest(), hi = std::numeric_limits<float>::max();
  struct Case {
    std::string min, max;
    std::vector<float> want;
  };
  for (const Case& c : {Case{"lo", "hi", {0.f, 6.f}}, Case{"lo", "", {0.f, hi}}, Case{"", "hi", {lo, 6.f}},
                        Case{"", "", {lo, hi}}}) {
    SCOPED_TRACE(c.min + "," + c.max);
    PassModel m = conv_model();
    m.scalar("lo", 0.f);
    m.scalar("hi", 6.f);
    std::vector<std::string> ins = {"c", c.min, c.max};
    while (ins.back().empty()) ins.pop_back();
    m.node("Clip", ins, {"y"});
    m.output("y");
    ir::Model after = check_rewrite(m, {"conv_activation_fusion"}, kOneFused, kRtol, kAtol);
    EXPECT_EQ(activation(only_node(after, "FusedConv")), "Clip");
    EXPECT_EQ(params(only_node(after, "FusedConv")), c.want);
  }
  PassModel a = conv_model({1, 4, 6, 6}, 10);  // opset 10: min and max are attributes
  auto* clip = a.node("Clip", {"c"}, {"y"});
  attr_float(clip, "min", -0.5f);
  attr_float(clip, "max", 0.5f);
  a.output("y");
  ir::Model after = check_rewrite(a, {"conv_activation_fusion"}, kOneFused, kRtol, kAtol);
  EXPECT_EQ(params(only_node(after, "FusedConv")), (std::vector<float>{-0.5f, 0.5f}));

  PassModel v = conv_model();  // a min that is fed is not a constant
  v.input("lo", {});
  v.node("Clip", {"c", "lo"}, {"y"});
  v.output("y");
  check_rewrite(v, {"conv_activation_fusion"}, {{"Conv", 1}, {"Clip", 1}});
}

// ResNet's basic block: y = Relu(Conv(Relu(Conv(x))) + x), with a symbolic batch.
PassModel residual_block(std::vector<int64_t> x_dims = {-1, 4, 6, 6}) {
  PassModel m;
  m.input("x", x_dims);
  m.init_random("w1", {4, 4, 3, 3}, 0.3f);
  m.init_random("b1", {4});
  m.init_random("w2", {4, 4, 3, 3}, 0.3f);
  attr_ints(m.node("Conv", {"x", "w1", "b1"}, {"c1"}), "pads", {1, 1, 1, 1});
  m.node("Relu", {"c1"}, {"r1"});
  attr_ints(m.node("Conv", {"r1", "w2"}, {"c2"}), "pads", {1, 1, 1, 1});
  m.node("Add", {"c2", "x"}, {"s"});
  m.node("Relu", {"s"}, {"y"});
  m.output("y");
  return m;
}

TEST(ConvActivationFusion, ResidualAddThenReluFold) {
  ir::Model after = check_rewrite(residual_block(), {"conv_activation_fusion"}, {{"com.microsoft:FusedConv", 2}},
                                  kRtol, kAtol);
  const ir::Node& last = after.graph.nodes.back();
  EXPECT_EQ(last.inputs, (std::vector<std::string>{"r1", "w2", "", "x"}));
  EXPECT_EQ(last.outputs, (std::vector<std::string>{"y"}));
  EXPECT_EQ(activation(last), "Relu");
  EXPECT_EQ(activation(after.graph.nodes.front()), "Relu");
}

TEST(ConvActivationFusion, AddWithTheConvSecondAndNoActivation) {
  PassModel m = conv_model();
  m.input("skip", {1, 4, 6, 6});
  m.node("Add", {"skip", "c"}, {"y"});
  m.output("y");
  ir::Model after = check_rewrite(m, {"conv_activation_fusion"}, kOneFused, kRtol, kAtol);
  EXPECT_EQ(after.graph.nodes[0].inputs, (std::vector<std::string>{"x", "w", "b", "skip"}));
  EXPECT_EQ(activation(after.graph.nodes[0]), "");
}

TEST(ConvActivationFusion, TwoConvsIntoOneAddFuseOnce) {
  PassModel m = conv_model();  // ResNet's downsampling block: the shortcut is a conv too
  m.init_random("w2", {4, 4, 1, 1}, 0.3f);
  m.node("Conv", {"x", "w2"}, {"d"});
  m.node("Add", {"c", "d"}, {"s"});
  m.node("Relu", {"s"}, {"y"});
  m.output("y");
  check_rewrite(m, {"conv_activation_fusion"}, {{"Conv", 1}, {"com.microsoft:FusedConv", 1}}, kRtol, kAtol);
}

// MobileNetV2's inverted residual: 1x1 expand + Clip(0, 6), 3x3 depthwise + Clip(0, 6),
// 1x1 project, + x.
PassModel mobilenet_block() {
  PassModel m;
  m.input("x", {1, 8, 7, 7});
  m.init_random("we", {24, 8, 1, 1}, 0.3f);
  m.init_random("be", {24});
  m.init_random("wd", {24, 1, 3, 3}, 0.3f);
  m.init_random("bd", {24});
  m.init_random("wp", {8, 24, 1, 1}, 0.3f);
  m.init_random("bp", {8});
  m.scalar("zero", 0.f);
  m.scalar("six", 6.f);
  m.node("Conv", {"x", "we", "be"}, {"e"});
  m.node("Clip", {"e", "zero", "six"}, {"e6"});
  auto* dw = m.node("Conv", {"e6", "wd", "bd"}, {"d"});
  attr_int(dw, "group", 24);
  attr_ints(dw, "pads", {1, 1, 1, 1});
  attr_ints(dw, "kernel_shape", {3, 3});
  m.node("Clip", {"d", "zero", "six"}, {"d6"});
  m.node("Conv", {"d6", "wp", "bp"}, {"p"});
  m.node("Add", {"x", "p"}, {"y"});
  m.output("y");
  return m;
}

TEST(ConvActivationFusion, MobileNetBlockFuses) {
  ir::Model after = check_rewrite(mobilenet_block(), {}, {{"com.microsoft:FusedConv", 3}}, kRtol, kAtol, /*level=*/2);
  EXPECT_EQ(after.graph.nodes.back().inputs, (std::vector<std::string>{"d6", "wp", "bp", "x"}));
}

TEST(ConvActivationFusion, SharedOrGraphOutputIntermediatesStay) {
  PassModel shared = conv_model();  // the conv output has two readers
  shared.node("Relu", {"c"}, {"y"});
  shared.node("Sigmoid", {"c"}, {"z"});
  shared.output("y").output("z");
  check_rewrite(shared, {"conv_activation_fusion"}, {{"Conv", 1}, {"Relu", 1}, {"Sigmoid", 1}});

  PassModel out = conv_model();  // the conv output is a graph output
  out.node("Relu", {"c"}, {"y"});
  out.output("y").output("c");
  check_rewrite(out, {"conv_activation_fusion"}, {{"Conv", 1}, {"Relu", 1}});

  PassModel sum = residual_block({1, 4, 6, 6});  // the sum is a graph output: the Add folds, the Relu stays
  sum.output("s");
  check_rewrite(sum, {"conv_activation_fusion"}, {{"com.microsoft:FusedConv", 2}, {"Relu", 1}}, kRtol, kAtol);
}

TEST(ConvActivationFusion, NearMissesStay) {
  PassModel relu_first = conv_model();  // Relu then Add: the Add cannot join an activated conv
  relu_first.node("Relu", {"c"}, {"r"});
  relu_first.node("Add", {"r", "x"}, {"y"});
  relu_first.output("y");
  check_rewrite(relu_first, {"conv_activation_fusion"}, {{"com.microsoft:FusedConv", 1}, {"Add", 1}}, kRtol, kAtol);

  PassModel bias = conv_model();  // the Add broadcasts a per-channel bias: not Y's shape
  bias.init_random("chan", {1, 4, 1, 1});
  bias.node("Add", {"c", "chan"}, {"y"});
  bias.output("y");
  check_rewrite(bias, {"conv_activation_fusion"}, {{"Conv", 1}, {"Add", 1}});

  PassModel other_n = conv_model({-1, 4, 6, 6});  // a skip whose batch dim is another symbol
  auto* skip = other_n.graph->add_input();
  skip->CopyFrom(other_n.graph->input(0));
  skip->set_name("skip");
  skip->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(0)->set_dim_param("M");
  other_n.node("Add", {"c", "skip"}, {"y"});
  other_n.output("y");
  check_rewrite(other_n, {"conv_activation_fusion"}, {{"Conv", 1}, {"Add", 1}});

  PassModel fed_w;  // W is a graph input
  fed_w.input("x", {1, 4, 6, 6});
  fed_w.input("w", {4, 4, 3, 3});
  fed_w.node("Conv", {"x", "w"}, {"c"});
  fed_w.node("Relu", {"c"}, {"y"});
  fed_w.output("y");
  check_rewrite(fed_w, {"conv_activation_fusion"}, {{"Conv", 1}, {"Relu", 1}});

  PassModel conv1d;  // rank-3 X
  conv1d.input("x", {1, 4, 9});
  conv1d.init_random("w", {4, 4, 3}, 0.3f);
  conv1d.node("Conv", {"x", "w"}, {"c"});
  conv1d.node("Relu", {"c"}, {"y"});
  conv1d.output("y");
  check_rewrite(conv1d, {"conv_activation_fusion"}, {{"Conv", 1}, {"Relu", 1}});

  PassModel softplus = conv_model();  // not an activation FusedConv has
  softplus.node("Softplus", {"c"}, {"y"});
  softplus.output("y");
  check_rewrite(softplus, {"conv_activation_fusion"}, {{"Conv", 1}, {"Softplus", 1}});
}

}  // namespace
}  // namespace onyx::testing
