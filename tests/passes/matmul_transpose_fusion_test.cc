// matmul_transpose_fusion: a decoder's attention over its cache (present_key, a graph output, is
// transposed for Q K^T, the scores divided by a constant) becomes one FusedMatMul with transB
// and alpha; the present output stays; outputs equal before and after. A Transpose read by
// something else too stays for that reader; a graph with a subgraph is left alone.
#include <gtest/gtest.h>

#include "pass_test_util.h"

namespace onyx::testing {
namespace {

// q [N,2,3,4], past [N,2,5,4], new_k [N,2,3,4] -> present = Concat(past, new_k) on axis 2,
// scores = MatMul(q, Transpose(present, (0,1,3,2))) / 2.
PassModel cache_attention(bool transpose_read_elsewhere) {
  PassModel m;
  m.input("q", {-1, 2, 3, 4}).input("past", {-1, 2, 5, 4}).input("new_k", {-1, 2, 3, 4});
  attr_int(m.node("Concat", {"past", "new_k"}, {"present"}), "axis", 2);
  attr_ints(m.node("Transpose", {"present"}, {"kt"}), "perm", {0, 1, 3, 2});
  m.node("MatMul", {"q", "kt"}, {"scores"});
  m.node("Div", {"scores", m.scalar("sqrt_d", 2.f)}, {"scaled"});
  m.output("scaled").output("present");
  if (transpose_read_elsewhere) {
    m.node("Relu", {"kt"}, {"kt_relu"});
    m.output("kt_relu");
  }
  return m;
}

TEST(MatMulTransposeFusion, CacheAttentionBecomesOneFusedMatMul) {
  ir::Model out = check_rewrite(cache_attention(false), {"matmul_transpose_fusion"},
                                {{"Concat", 1}, {"com.microsoft:FusedMatMul", 1}});
  for (const ir::Node& n : out.graph.nodes)
    if (n.op_type == "FusedMatMul") {
      ASSERT_NE(n.attribute("transB"), nullptr);
      EXPECT_EQ(n.attribute("transB")->i, 1);
      ASSERT_NE(n.attribute("alpha"), nullptr);
      EXPECT_FLOAT_EQ(n.attribute("alpha")->f, 0.5f);
      EXPECT_EQ(n.inputs[1], "present") << "K is read in place";
    }
}

TEST(MatMulTransposeFusion, ATransposeWithAnotherReaderStaysForIt) {
  check_rewrite(cache_attention(true), {"matmul_transpose_fusion"},
                {{"Concat", 1}, {"Transpose", 1}, {"Relu", 1}, {"com.microsoft:FusedMatMul", 1}});
}

TEST(MatMulTransposeFusion, GraphsWithSubgraphsAreLeftAlone) {
  PassModel m = cache_attention(false);
  m.input("cond", {}, onnx::TensorProto::BOOL);
  auto* branch = m.node("If", {"cond"}, {"picked"});
  for (const char* name : {"then_branch", "else_branch"}) {
    auto* a = branch->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::GRAPH);
    auto* g = a->mutable_g();
    g->set_name(name);
    auto* n = g->add_node();
    n->set_op_type("Identity");
    n->add_input("kt");  // the body reads the Transpose's output by name
    n->add_output(std::string(name) + "_out");
    auto* o = g->add_output();
    o->set_name(std::string(name) + "_out");
    o->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  }
  m.output("picked");
  ir::Model model = load(m);
  auto report = apply_passes(model, {"matmul_transpose_fusion"});
  ASSERT_TRUE(report.ok()) << report.status().to_string();
  const auto h = histogram(model.graph);
  EXPECT_EQ(h.count("Transpose") ? h.at("Transpose") : 0, 1);
  EXPECT_EQ(h.count("com.microsoft:FusedMatMul"), 0u);
}

}  // namespace
}  // namespace onyx::testing
