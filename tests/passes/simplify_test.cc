// The basic-level passes (src/optimizer/simplify): each rewrites what it should, leaves what it
// must not touch, and the outputs before and after agree on random inputs.
#include <gtest/gtest.h>

#include "pass_test_util.h"

namespace onyx::testing {
namespace {

using TP = onnx::TensorProto;

TEST(ConstantToInitializer, EveryAttributeFormBecomesAnInitializer) {
  PassModel m;
  m.input("x", {2, 3});
  attr_tensor(m.node("Constant", {}, {"c1"}), "value", {3}, {1, 2, 3});
  attr_float(m.node("Constant", {}, {"c2"}), "value_float", 0.5f);
  m.node("Add", {"x", "c1"}, {"a"});
  m.node("Mul", {"a", "c2"}, {"y"});
  m.output("y");
  ir::Model after = check_rewrite(m, {"constant_to_initializer"}, {{"Add", 1}, {"Mul", 1}});
  EXPECT_EQ(after.graph.initializers.at("c1").numel(), 3);
  EXPECT_EQ(after.graph.initializers.at("c2").rank(), 0);
}

TEST(ConstantFolding, FoldsConstantChainsIntoInitializers) {
  PassModel m;
  m.input("x", {3, 2});
  m.init_random("w", {2, 3});
  m.node("Transpose", {"w"}, {"wt"});
  m.node("Mul", {"wt", m.scalar("two", 2.f)}, {"w2"});
  m.node("Add", {"x", "w2"}, {"y"});
  m.node("Sqrt", {m.scalar("nine", 9.f)}, {"z"});  // a folded graph output keeps its name
  m.output("y").output("z");
  ir::Model after = check_rewrite(m, {"constant_folding"}, {{"Add", 1}});
  EXPECT_TRUE(after.graph.initializers.count("w2"));
  EXPECT_FLOAT_EQ(after.graph.initializers.at("z").data<float>()[0], 3.f);
  EXPECT_FALSE(after.graph.initializers.count("w")) << "the unused source initializer is dropped";
}

TEST(ConstantFolding, LeavesRandomOpsFeedableInputsAndHugeResults) {
  PassModel m;
  m.input("x", {2});
  m.init("seed_like", {2}, {0, 0});
  m.node("RandomUniformLike", {"seed_like"}, {"r"});
  m.node("Mul", {"r", m.scalar("zero", 0.f)}, {"r0"});  // random * 0: output still deterministic
  m.init_i64("big_shape", {2}, {2048, 1024});
  m.node("ConstantOfShape", {"big_shape"}, {"big"});
  m.node("ReduceSum", {"big"}, {"s"});
  m.init("feedable", {2}, {1, 2});  // an initializer that is also a graph input may be fed
  m.input("feedable", {2});
  m.node("Neg", {"feedable"}, {"f"});
  m.node("Add", {"x", "r0"}, {"a"});
  m.node("Add", {"a", "f"}, {"y"});
  m.output("y").output("s");
  check_rewrite(m, {"constant_folding"},
                {{"RandomUniformLike", 1}, {"Mul", 1}, {"ConstantOfShape", 1}, {"ReduceSum", 1}, {"Neg", 1}, {"Add", 2}});
}

TEST(ConstantFolding, KernelErrorsAreLeftForTheRun) {
  PassModel m;
  m.input("x", {2});
  m.init("a", {2}, {1, 2});
  m.init_i64("bad_shape", {1}, {5});  // 2 elements cannot take shape [5]
  m.node("Reshape", {"a", "bad_shape"}, {"r"});
  m.node("Add", {"x", "r"}, {"y"});
  m.output("y");
  ir::Model after = load(m);
  auto report = apply_passes(after, {"constant_folding"});
  ASSERT_TRUE(report.ok()) << report.status().to_string();
  EXPECT_EQ(histogram(after.graph), (std::map<std::string, int>{{"Add", 1}, {"Reshape", 1}}));
}

// A tied embedding / output projection (torch's dynamo export of GPT-2): Gather(W) and
// MatMul(h, Transpose(W)) with W over 1M elements. Folding the Transpose would keep a second,
// transposed W; it stays for matmul_transpose_fusion (FusedMatMul transB) instead. A W read
// by the Transpose alone still folds.
TEST(ConstantFolding, TransposeOfASharedLargeWeightStaysForTheProduct) {
  for (bool shared : {true, false}) {
    SCOPED_TRACE(shared ? "W also gathered" : "W read by the Transpose alone");
    PassModel m;
    m.input("ids", {2}, onnx::TensorProto::INT64);
    m.input("h", {2, 64});
    m.init_random("w", {16400, 64}, 0.1f);  // 1,049,600 elements
    attr_ints(m.node("Transpose", {"w"}, {"wt"}), "perm", {1, 0});
    m.node("MatMul", {"h", "wt"}, {"logits"});
    m.output("logits");
    if (shared) {
      attr_int(m.node("Gather", {"w", "ids"}, {"emb"}), "axis", 0);
      m.output("emb");
    }
    ir::Model folded = check_rewrite(m, {"constant_folding"},
                                     shared ? std::map<std::string, int>{{"Transpose", 1}, {"MatMul", 1}, {"Gather", 1}}
                                            : std::map<std::string, int>{{"MatMul", 1}});
    EXPECT_EQ(folded.graph.initializers.count("wt"), shared ? 0u : 1u);
    if (shared)
      check_rewrite(m, {}, {{"com.microsoft:FusedMatMul", 1}, {"Gather", 1}}, 1e-5, 1e-5, 2);
  }
}

TEST(ShapeFolding, TorchReshapeChainCollapses) {
  // y = x.reshape(x.size(0), -1) as torch exports it, with static shapes.
  PassModel m;
  m.input("x", {2, 3, 4});
  m.node("Shape", {"x"}, {"s"});
  m.init_i64("zero", {}, {0});
  m.node("Gather", {"s", "zero"}, {"d0"});
  m.init_i64("axes", {1}, {0});
  m.node("Unsqueeze", {"d0", "axes"}, {"d0u"});
  m.init_i64("minus1", {1}, {-1});
  attr_int(m.node("Concat", {"d0u", "minus1"}, {"shape"}), "axis", 0);
  m.node("Reshape", {"x", "shape"}, {"y"});
  m.output("y");
  check_rewrite(m, {}, {{"Reshape", 1}}, 0, 0, /*level=*/1);
}

TEST(ShapeFolding, SymbolicDimsFoldOnlyWhereKnown) {
  PassModel m;
  m.input("x", {-1, 3, 4});
  m.node("Shape", {"x"}, {"s"});
  m.init_i64("one", {}, {1});
  m.node("Gather", {"s", "one"}, {"d1"});  // 3: known
  m.init_i64("zero", {}, {0});
  m.node("Gather", {"s", "zero"}, {"d0"});  // N: stays
  m.node("Size", {"x"}, {"n"});            // depends on N: stays
  m.node("Mul", {"d0", "d1"}, {"p"});
  m.node("Add", {"p", "n"}, {"y"});
  m.output("y", TP::INT64);
  check_rewrite(m, {"shape_folding"}, {{"Shape", 1}, {"Gather", 1}, {"Size", 1}, {"Mul", 1}, {"Add", 1}});
}

TEST(ShapeFolding, ShapeWithStartAndEnd) {
  PassModel m(15);
  m.input("x", {-1, 5, 6});
  auto* s = m.node("Shape", {"x"}, {"s"});
  attr_int(s, "start", -2);
  m.node("Identity", {"s"}, {"y"});
  m.output("y", TP::INT64);
  ir::Model after = check_rewrite(m, {"shape_folding"}, {{"Identity", 1}});
  EXPECT_EQ(after.graph.initializers.at("s").to_int64_vector(), (std::vector<int64_t>{5, 6}));
}

TEST(DeadNodeElimination, RemovesNodesThatReachNoOutput) {
  PassModel m;
  m.input("x", {4});
  m.node("Relu", {"x"}, {"y"});
  m.node("Neg", {"x"}, {"unused"});
  m.node("Exp", {"unused"}, {"unused2"});
  m.output("y");
  check_rewrite(m, {"dead_node_elimination"}, {{"Relu", 1}});
}

TEST(IdentityElimination, BypassesAndKeepsOutputNames) {
  PassModel m;
  m.input("x", {4});
  m.node("Identity", {"x"}, {"a"});
  m.node("Relu", {"a"}, {"r"});
  m.node("Identity", {"r"}, {"y"});   // graph output: Relu is renamed to write "y"
  m.node("Identity", {"x"}, {"z"});   // graph input to graph output: must stay
  m.output("y").output("z");
  ir::Model after = check_rewrite(m, {"identity_elimination"}, {{"Relu", 1}, {"Identity", 1}});
  EXPECT_EQ(after.graph.nodes[0].outputs[0] == "y" || after.graph.nodes[1].outputs[0] == "y", true);
}

TEST(IdentityElimination, ChainsIntoAGraphOutputTakeTwoSweeps) {
  PassModel m;
  m.input("x", {4});
  m.node("Relu", {"x"}, {"r"});
  m.node("Identity", {"r"}, {"i1"});
  m.node("Identity", {"i1"}, {"i2"});
  m.node("Identity", {"i2"}, {"y"});  // graph output: Relu ends up writing "y"
  m.output("y");
  ir::Model after = check_rewrite(m, {"identity_elimination"}, {{"Relu", 1}});
  EXPECT_EQ(after.graph.nodes[0].outputs[0], "y");
}

TEST(IdentityElimination, KeepsValuesASubgraphReads) {
  PassModel m;
  m.input("x", {2});
  m.input("cond", {}, TP::BOOL);
  m.node("Identity", {"x"}, {"captured"});
  auto* if_node = m.node("If", {"cond"}, {"y"});
  for (const char* branch : {"then_branch", "else_branch"}) {
    auto* a = if_node->add_attribute();
    a->set_name(branch);
    a->set_type(onnx::AttributeProto::GRAPH);
    auto* g = a->mutable_g();
    g->set_name(branch);
    auto* n = g->add_node();
    n->set_op_type(std::string(branch) == "then_branch" ? "Neg" : "Abs");
    n->add_input("captured");
    n->add_output(std::string(branch) + "_out");
    auto* o = g->add_output();
    o->set_name(std::string(branch) + "_out");
    o->mutable_type()->mutable_tensor_type()->set_elem_type(TP::FLOAT);
  }
  m.output("y");
  check_rewrite(m, {}, {{"Identity", 1}, {"If", 1}}, 0, 0, /*level=*/99);
}

TEST(DropoutElimination, InferenceDropoutGoesTrainingOrMaskedStays) {
  PassModel m(13);
  m.input("x", {6});
  m.node("Dropout", {"x"}, {"d1"});
  m.node("Dropout", {"d1"}, {"d2", "mask"});  // mask read below: stays
  m.node("Cast", {"mask"}, {"maskf"})->add_attribute()->CopyFrom([] {
    onnx::AttributeProto a;
    a.set_name("to");
    a.set_type(onnx::AttributeProto::INT);
    a.set_i(TP::FLOAT);
    return a;
  }());
  m.node("Add", {"d2", "maskf"}, {"y"});
  m.output("y");
  check_rewrite(m, {"dropout_elimination"}, {{"Dropout", 1}, {"Cast", 1}, {"Add", 1}});
}

TEST(DropoutElimination, TrainingModeInputDecides) {
  PassModel m(13);
  m.input("x", {6});
  m.init("ratio", {}, {0.5f});
  auto* f = m.graph->add_initializer();
  f->set_name("off");
  f->set_data_type(TP::BOOL);
  f->add_int32_data(0);
  auto* on = m.graph->add_initializer();
  on->set_name("on");
  on->set_data_type(TP::BOOL);
  on->add_int32_data(1);
  m.node("Dropout", {"x", "ratio", "off"}, {"d1"});              // training off: goes
  m.node("Dropout", {"d1", m.scalar("r0", 0.f), "on"}, {"d2"});  // ratio 0: goes
  m.node("Relu", {"d2"}, {"y"});
  m.output("y");
  check_rewrite(m, {"dropout_elimination"}, {{"Relu", 1}});

  PassModel t(13);  // training mode fed at run: stays
  t.input("x", {6});
  t.input("training", {}, TP::BOOL);
  t.node("Dropout", {"x", "", "training"}, {"d"});
  t.node("Relu", {"d"}, {"y"});
  t.output("y");
  ir::Model after = load(t);
  ASSERT_TRUE(apply_passes(after, {"dropout_elimination"}).ok());
  EXPECT_EQ(histogram(after.graph), (std::map<std::string, int>{{"Dropout", 1}, {"Relu", 1}}));
}

TEST(CastElimination, SameTypeCastGoes) {
  PassModel m;
  m.input("x", {3});
  attr_int(m.node("Cast", {"x"}, {"a"}), "to", TP::FLOAT);
  attr_int(m.node("Cast", {"a"}, {"b"}), "to", TP::INT64);
  m.node("CastLike", {"b", "b"}, {"y"});
  m.output("y", TP::INT64);
  check_rewrite(m, {"cast_elimination"}, {{"Cast", 1}});
}

TEST(BasicLevel, RunsEveryBasicPassToAFixpoint) {
  PassModel m;
  m.input("x", {2, 3});
  attr_tensor(m.node("Constant", {}, {"c"}), "value", {3}, {1, 2, 3});
  m.node("Identity", {"c"}, {"ci"});
  m.node("Shape", {"x"}, {"s"});
  attr_int(m.node("Cast", {"s"}, {"sf"}), "to", TP::FLOAT);
  m.node("ReduceSum", {"sf"}, {"n"});  // 5, folded
  m.node("Mul", {"ci", "n"}, {"k"});
  m.node("Add", {"x", "k"}, {"y"});
  m.node("Dropout", {"y"}, {"out"});
  m.output("out");
  check_rewrite(m, {}, {{"Add", 1}}, 1e-6, 0, /*level=*/1);
}

}  // namespace
}  // namespace onyx::testing
