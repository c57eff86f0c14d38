// inverted_residual_fusion: MobileNetV2's blocks whose expanded tensor exceeds the banding size
// become one ai.onyx InvertedResidual after the NHWC layout; strides, odd sizes, channel counts
// off the vector width, asymmetric pads, a symbolic batch, no expansion, no residual; blocks
// that are small or whose intermediates have other readers stay as they were (or fuse only the
// part they can); outputs agree with the unoptimised graph. The kernel's unbanded form and its
// errors are checked on the op written directly.
#include <gtest/gtest.h>

#include "pass_test_util.h"

namespace onyx::testing {
namespace {

using Hist = std::map<std::string, int>;
constexpr double kRtol = 1e-4, kAtol = 1e-4;

struct Block {
  int64_t batch = 1;  // -1: the symbolic "N" (2 at run)
  int64_t c_in = 16, c_mid = 96, c_out = 16, h = 56, w = 56, stride = 1;
  std::vector<int64_t> pads = {1, 1, 1, 1};
  bool expand = true, residual = true;
  std::string activation = "Clip";  // after the expansion and the depthwise stage
};

// The block in NCHW as an exporter writes it: Conv 1x1 (+ act), depthwise Conv 3x3 (+ act),
// Conv 1x1, + x.
PassModel block_model(const Block& b) {
  PassModel m;
  m.input("x", {b.batch, b.c_in, b.h, b.w});
  m.scalar("zero", 0.f);
  m.scalar("six", 6.f);
  auto activate = [&](const std::string& in, const std::string& out) {
    if (b.activation == "Clip") m.node("Clip", {in, "zero", "six"}, {out});
    else if (b.activation == "Relu") m.node("Relu", {in}, {out});
    else m.node("Identity", {in}, {out});
  };
  std::string mid = "x";
  if (b.expand) {
    m.init_random("we", {b.c_mid, b.c_in, 1, 1}, 0.3f);
    m.init_random("be", {b.c_mid});
    m.node("Conv", {"x", "we", "be"}, {"e"});
    activate("e", "e_act");
    mid = "e_act";
  }
  m.init_random("wd", {b.c_mid, 1, 3, 3}, 0.3f);
  m.init_random("bd", {b.c_mid});
  auto* dw = m.node("Conv", {mid, "wd", "bd"}, {"d"});
  attr_int(dw, "group", b.c_mid);
  attr_ints(dw, "pads", b.pads);
  attr_ints(dw, "strides", {b.stride, b.stride});
  activate("d", "d_act");
  m.init_random("wp", {b.c_out, b.c_mid, 1, 1}, 0.3f);
  m.init_random("bp", {b.c_out});
  m.node("Conv", {"d_act", "wp", "bp"}, {b.residual ? "p" : "y"});
  if (b.residual) m.node("Add", {"x", "p"}, {"y"});
  m.output("y");
  return m;
}

const ir::Node& fused_node(const ir::Model& m) {
  for (const auto& n : m.graph.nodes)
    if (n.op_type == "InvertedResidual") return n;
  ADD_FAILURE() << "no InvertedResidual";
  return m.graph.nodes.front();
}

std::string attr_s(const ir::Node& n, const std::string& name) {
  const ir::Attribute* a = n.attribute(name);
  return a ? a->s : "";
}

TEST(InvertedResidualFusion, MobileNetV2BlockBecomesOneNode) {
  ir::Model after = check_rewrite(block_model({}), {}, {{"Transpose", 2}, {"ai.onyx:InvertedResidual", 1}}, kRtol, kAtol);
  const ir::Node& n = fused_node(after);
  EXPECT_EQ(n.inputs.size(), 8u);
  EXPECT_EQ(n.inputs[1], "we");
  EXPECT_EQ(n.inputs[3], "wd");
  EXPECT_EQ(n.inputs[5], "wp");
  EXPECT_EQ(attr_s(n, "expand_activation"), "Clip");
  EXPECT_EQ(attr_s(n, "depthwise_activation"), "Clip");
  EXPECT_EQ(n.attribute("project_activation"), nullptr);
  EXPECT_EQ(n.attribute("expand_activation_params")->floats, (std::vector<float>{0.f, 6.f}));
  EXPECT_EQ(n.attribute("pads")->ints, (std::vector<int64_t>{1, 1, 1, 1}));
  EXPECT_EQ(after.opsets.at("ai.onyx"), 1);
}

TEST(InvertedResidualFusion, StridesOddSizesAndChannelsOffTheVectorWidth) {
  Block b;
  b.batch = -1;  // two images, split into bands across both
  b.h = 57, b.w = 45, b.c_mid = 200, b.c_out = 24, b.stride = 2;
  b.residual = false;
  b.activation = "Relu";
  ir::Model after = check_rewrite(block_model(b), {}, {{"Transpose", 2}, {"ai.onyx:InvertedResidual", 1}}, kRtol, kAtol);
  EXPECT_EQ(attr_s(fused_node(after), "depthwise_activation"), "Relu");
  EXPECT_EQ(fused_node(after).inputs.size(), 7u);  // no residual

  b.pads = {0, 1, 1, 0};  // TensorFlow's SAME at stride 2, written out
  b.activation = "";
  check_rewrite(block_model(b), {}, {{"Transpose", 2}, {"ai.onyx:InvertedResidual", 1}}, kRtol, kAtol);
}

TEST(InvertedResidualFusion, BlockWithoutExpansion) {
  Block b;  // MobileNetV2's first block: depthwise on the stem's 32 channels, then project
  b.expand = false;
  b.c_in = b.c_mid = 32, b.h = b.w = 112;
  b.residual = false;
  ir::Model after = check_rewrite(block_model(b), {}, {{"Transpose", 2}, {"ai.onyx:InvertedResidual", 1}}, kRtol, kAtol);
  EXPECT_EQ(fused_node(after).inputs[1], "");
  EXPECT_EQ(fused_node(after).attribute("expand_activation"), nullptr);
}

TEST(InvertedResidualFusion, WhatDoesNotPayOrFitStays) {
  Block small;  // 14 x 14 x 96 expanded: fits in cache, three convolutions are faster
  small.h = small.w = 14;
  check_rewrite(block_model(small), {}, {{"Transpose", 2}, {"com.microsoft:NhwcFusedConv", 3}}, kRtol, kAtol);

  PassModel shared = block_model({});  // the expanded tensor has a second reader: the rest fuses
  shared.node("ReduceMean", {"e_act"}, {"m"});
  shared.output("m");
  ir::Model after = check_rewrite(shared, {}, {{"Transpose", 3}, {"com.microsoft:NhwcFusedConv", 1},
                                               {"ai.onyx:InvertedResidual", 1}, {"ReduceMean", 1}},
                                  kRtol, kAtol);
  EXPECT_EQ(fused_node(after).inputs[1], "");

  Block wide;  // a dilated depthwise window (pads 2 keep the size)
  wide.pads = {2, 2, 2, 2};
  PassModel dilated = block_model(wide);
  for (auto& n : *dilated.graph->mutable_node())
    if (n.input(0) == "e_act") attr_ints(&n, "dilations", {2, 2});
  check_rewrite(dilated, {}, {{"Transpose", 2}, {"com.microsoft:NhwcFusedConv", 3}}, kRtol, kAtol);
}

// The op as the pass writes it, on a block too small to band, against the three channels-last
// convolutions it replaces.
PassModel direct_model(bool fused, int64_t c_in) {
  PassModel m;
  m.import("com.microsoft", 1).import("ai.onyx", 1);
  m.input("x", {2, 9, 11, c_in});
  m.init_random("we", {40, 8, 1, 1}, 0.3f);
  m.init_random("be", {40});
  m.init_random("wd", {40, 1, 3, 3}, 0.3f);
  m.init_random("bd", {40});
  m.init_random("wp", {8, 40, 1, 1}, 0.3f);
  m.init_random("bp", {8});
  auto clip = [](onnx::NodeProto* n, const std::string& prefix) {
    auto* a = n->add_attribute();
    a->set_name(prefix + "activation");
    a->set_type(onnx::AttributeProto::STRING);
    a->set_s("Clip");
    auto* p = n->add_attribute();
    p->set_name(prefix + "activation_params");
    p->set_type(onnx::AttributeProto::FLOATS);
    p->add_floats(0.f);
    p->add_floats(6.f);
  };
  if (fused) {
    auto* n = m.node("InvertedResidual", {"x", "we", "be", "wd", "bd", "wp", "bp", "x"}, {"y"}, "ai.onyx");
    attr_ints(n, "strides", {1, 1});
    attr_ints(n, "pads", {1, 1, 1, 1});
    clip(n, "expand_");
    clip(n, "depthwise_");
  } else {
    clip(m.node("NhwcFusedConv", {"x", "we", "be"}, {"e"}, "com.microsoft"), "");
    auto* dw = m.node("NhwcFusedConv", {"e", "wd", "bd"}, {"d"}, "com.microsoft");
    attr_int(dw, "group", 40);
    attr_ints(dw, "pads", {1, 1, 1, 1});
    clip(dw, "");
    m.node("NhwcFusedConv", {"d", "wp", "bp", "x"}, {"y"}, "com.microsoft");
  }
  m.output("y");
  return m;
}

TEST(InvertedResidualKernel, UnbandedFormMatchesTheConvolutions) {
  const ir::Model reference = load(direct_model(false, 8)), fused = load(direct_model(true, 8));
  const std::vector<Value> inputs = random_inputs(reference);
  Result<std::vector<Value>> want = run_model(reference, inputs);
  Result<std::vector<Value>> got = run_model(fused, inputs);
  ASSERT_TRUE(want.ok()) << want.status().to_string();
  ASSERT_TRUE(got.ok()) << got.status().to_string();
  expect_same_outputs(*want, *got, kRtol, kAtol);
}

TEST(InvertedResidualKernel, WrongChannelsAreAnError) {
  const ir::Model fused = load(direct_model(true, 8));
  PassModel wrong = direct_model(true, 8);
  wrong.graph->mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(3)->set_dim_value(7);
  const ir::Model bad = load(wrong);
  Result<std::vector<Value>> r = run_model(bad, random_inputs(bad));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().to_string().find("InvertedResidual"), std::string::npos) << r.status().to_string();
}

}  // namespace
}  // namespace onyx::testing
