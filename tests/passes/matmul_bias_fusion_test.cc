// matmul_bias_fusion: a projection's bias Add (either side) and its FastGelu join the product as
// one FusedMatMulBias, with outputs equal before and after; a product read elsewhere too, one
// whose weights are not a constant, a bias of the wrong length, a 1-D A and an erf BiasGelu stay.
#include <gtest/gtest.h>

#include "pass_test_util.h"

namespace onyx::testing {
namespace {

// x [N, 3, 8] @ W [8, 6], then `tail` with bias [6] (or the given bias length).
PassModel projection(const std::string& tail, bool bias_first = false, int64_t bias_len = 6, bool w_constant = true,
                     bool product_read_elsewhere = false) {
  PassModel m;
  m.import("com.microsoft", 1);
  m.input("x", {-1, 3, 8});
  if (w_constant) m.init_random("W", {8, 6}, 0.5f);
  else m.input("W", {8, 6});
  m.init_random("b", {bias_len}, 0.5f);
  m.node("MatMul", {"x", "W"}, {"p"});
  if (tail == "Add") m.node("Add", bias_first ? std::vector<std::string>{"b", "p"} : std::vector<std::string>{"p", "b"}, {"y"});
  else m.node(tail, {"p", "b"}, {"y"}, "com.microsoft");
  m.output("y");
  if (product_read_elsewhere) {
    m.node("Relu", {"p"}, {"p_relu"});
    m.output("p_relu");
  }
  return m;
}

const std::string kFused = "ai.onyx.training:FusedMatMulBias";

TEST(MatMulBiasFusion, TheBiasAddJoinsTheProductOnEitherSide) {
  for (bool bias_first : {false, true}) {
    ir::Model out = check_rewrite(projection("Add", bias_first), {"matmul_bias_fusion"}, {{kFused, 1}});
    for (const ir::Node& n : out.graph.nodes) {
      EXPECT_EQ(n.inputs, (std::vector<std::string>{"x", "W", "b"}));
      EXPECT_EQ(n.attribute("activation"), nullptr);
    }
  }
}

TEST(MatMulBiasFusion, FastGeluBecomesTheProductsActivation) {
  ir::Model out = check_rewrite(projection("FastGelu"), {"matmul_bias_fusion"}, {{kFused, 1}}, 1e-5, 1e-5);
  ASSERT_EQ(out.graph.nodes.size(), 1u);
  ASSERT_NE(out.graph.nodes[0].attribute("activation"), nullptr);
  EXPECT_EQ(out.graph.nodes[0].attribute("activation")->s, "FastGelu");
}

TEST(MatMulBiasFusion, WhatCannotFuseStays) {
  check_rewrite(projection("Add", false, 6, true, /*product_read_elsewhere=*/true), {"matmul_bias_fusion"},
                {{"MatMul", 1}, {"Add", 1}, {"Relu", 1}});
  check_rewrite(projection("Add", false, 6, /*w_constant=*/false), {"matmul_bias_fusion"}, {{"MatMul", 1}, {"Add", 1}});
  check_rewrite(projection("Add", false, /*bias_len=*/1), {"matmul_bias_fusion"}, {{"MatMul", 1}, {"Add", 1}});
  check_rewrite(projection("BiasGelu"), {"matmul_bias_fusion"}, {{"MatMul", 1}, {"com.microsoft:BiasGelu", 1}});
  PassModel vector_a;
  vector_a.input("v", {8});
  vector_a.init_random("W", {8, 6}, 0.5f).init_random("b", {6}, 0.5f);
  vector_a.node("MatMul", {"v", "W"}, {"p"});
  vector_a.node("Add", {"p", "b"}, {"y"});
  vector_a.output("y");
  check_rewrite(vector_a, {"matmul_bias_fusion"}, {{"MatMul", 1}, {"Add", 1}});
}

TEST(MatMulBiasFusion, OnlyLevel99Fuses) {
  check_rewrite(projection("Add"), {}, {{"MatMul", 1}, {"Add", 1}}, 1e-5, 1e-6, /*level=*/2);
  check_rewrite(projection("Add"), {}, {{kFused, 1}}, 1e-5, 1e-6, /*level=*/99);
}

}  // namespace
}  // namespace onyx::testing
