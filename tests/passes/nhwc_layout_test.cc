// nhwc_layout: Conv, FusedConv and MaxPool become their channels-last com.microsoft forms
// between Transposes; what the NHWC kernels cannot take stays; outputs agree.
#include <gtest/gtest.h>

#include "pass_test_util.h"

namespace onyx::testing {
namespace {

using Hist = std::map<std::string, int>;
constexpr double kRtol = 1e-4, kAtol = 1e-4;

std::vector<int64_t> perm_of(const ir::Node& n) {
  const ir::Attribute* a = n.attribute("perm");
  return a ? a->ints : std::vector<int64_t>{};
}

TEST(NhwcLayout, ConvBecomesNhwcFusedConvBetweenTransposes) {
  PassModel m;
  m.input("x", {-1, 3, 9, 8});
  m.init_random("w", {6, 3, 3, 3}, 0.3f);
  m.init_random("b", {6});
  auto* conv = m.node("Conv", {"x", "w", "b"}, {"y"});
  attr_ints(conv, "strides", {2, 2});
  attr_ints(conv, "pads", {1, 0, 1, 2});
  m.output("y");
  ir::Model after =
      check_rewrite(m, {"nhwc_layout"}, {{"Transpose", 2}, {"com.microsoft:NhwcFusedConv", 1}}, kRtol, kAtol);
  ASSERT_EQ(after.graph.nodes.size(), 3u);
  EXPECT_EQ(perm_of(after.graph.nodes[0]), (std::vector<int64_t>{0, 2, 3, 1}));
  EXPECT_EQ(after.graph.nodes[1].inputs[1], "w");
  EXPECT_EQ(after.graph.nodes[1].attribute("strides")->ints, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(perm_of(after.graph.nodes[2]), (std::vector<int64_t>{0, 3, 1, 2}));
  EXPECT_EQ(after.graph.nodes[2].outputs[0], "y");
  EXPECT_EQ(after.opsets.at("com.microsoft"), 1);
}

TEST(NhwcLayout, FusedConvWithResidualTransposesZ) {
  PassModel m;
  m.import("com.microsoft", 1);
  m.input("x", {1, 4, 5, 5});
  m.input("z", {1, 4, 5, 5});
  m.init_random("w", {4, 2, 3, 3}, 0.3f);
  auto* conv = m.node("FusedConv", {"x", "w", "", "z"}, {"y"}, "com.microsoft");
  attr_ints(conv, "pads", {1, 1, 1, 1});
  attr_int(conv, "group", 2);
  auto* a = conv->add_attribute();
  a->set_name("activation");
  a->set_type(onnx::AttributeProto::STRING);
  a->set_s("Relu");
  m.output("y");
  ir::Model after =
      check_rewrite(m, {"nhwc_layout"}, {{"Transpose", 3}, {"com.microsoft:NhwcFusedConv", 1}}, kRtol, kAtol);
  for (const auto& n : after.graph.nodes)
    if (n.op_type == "NhwcFusedConv") {
      EXPECT_EQ(n.inputs.size(), 4u);
      EXPECT_EQ(n.inputs[2], "");
      EXPECT_EQ(n.attribute("activation")->s, "Relu");
    }
}

TEST(NhwcLayout, MaxPool) {
  PassModel m;
  m.input("x", {2, 3, 9, 9});
  auto* pool = m.node("MaxPool", {"x"}, {"y"});
  attr_ints(pool, "kernel_shape", {3, 3});
  attr_ints(pool, "strides", {2, 2});
  attr_ints(pool, "pads", {1, 1, 1, 1});
  attr_int(pool, "storage_order", 0);
  attr_int(pool, "ceil_mode", 1);
  m.output("y");
  ir::Model after = check_rewrite(m, {"nhwc_layout"}, {{"Transpose", 2}, {"com.microsoft:NhwcMaxPool", 1}});
  for (const auto& n : after.graph.nodes)
    if (n.op_type == "NhwcMaxPool") {
      EXPECT_EQ(n.attribute("storage_order"), nullptr);
    }
}

TEST(NhwcLayout, WhatTheNhwcKernelsCannotTakeStays) {
  PassModel idx;  // MaxPool with its Indices output
  idx.input("x", {1, 3, 6, 6});
  attr_ints(idx.node("MaxPool", {"x"}, {"y", "i"}), "kernel_shape", {2, 2});
  idx.output("y").output("i", onnx::TensorProto::INT64);
  check_rewrite(idx, {"nhwc_layout"}, {{"MaxPool", 1}});

  PassModel order;  // column-major indices order
  order.input("x", {1, 3, 6, 6});
  auto* pool = order.node("MaxPool", {"x"}, {"y"});
  attr_ints(pool, "kernel_shape", {2, 2});
  attr_int(pool, "storage_order", 1);
  order.output("y");
  check_rewrite(order, {"nhwc_layout"}, {{"MaxPool", 1}});

  PassModel dilated;  // dilations, and pads as large as the kernel: the NHWC kernel takes neither
  dilated.input("x", {1, 3, 9, 9});
  auto* d = dilated.node("MaxPool", {"x"}, {"y"});
  attr_ints(d, "kernel_shape", {3, 3});
  attr_ints(d, "dilations", {2, 2});
  auto* wide = dilated.node("MaxPool", {"x"}, {"z"});
  attr_ints(wide, "kernel_shape", {2, 2});
  attr_ints(wide, "strides", {4, 4});
  attr_ints(wide, "pads", {0, 0, 0, 2});  // the stride keeps every window on the input
  dilated.output("y").output("z");
  check_rewrite(dilated, {"nhwc_layout"}, {{"MaxPool", 2}});

  PassModel conv1d;  // rank 3
  conv1d.input("x", {1, 3, 8});
  conv1d.init_random("w", {4, 3, 3});
  conv1d.node("Conv", {"x", "w"}, {"y"});
  conv1d.output("y");
  check_rewrite(conv1d, {"nhwc_layout"}, {{"Conv", 1}});

  PassModel fed_w;  // W fed at run
  fed_w.input("x", {1, 3, 8, 8});
  fed_w.input("w", {4, 3, 3, 3});
  fed_w.node("Conv", {"x", "w"}, {"y"});
  fed_w.output("y");
  check_rewrite(fed_w, {"nhwc_layout"}, {{"Conv", 1}});

  PassModel dbl;  // float64
  dbl.input("x", {1, 3, 6, 6}, onnx::TensorProto::DOUBLE);
  attr_ints(dbl.node("MaxPool", {"x"}, {"y"}), "kernel_shape", {2, 2});
  dbl.output("y", onnx::TensorProto::DOUBLE);
  check_rewrite(dbl, {"nhwc_layout"}, {{"MaxPool", 1}});
}

}  // namespace
}  // namespace onyx::testing
