// The PassManager and the registry: a pass that breaks the graph, fails, or renames an output
// is reported by name; phases stop at a fixpoint or at max_rounds; a graph that does not
// verify as loaded is left alone; levels enable the phases they should; the session runs the
// optimiser by SessionOptions::graph_optimization_level.
#include <gtest/gtest.h>

#include <algorithm>

#include "pass_test_util.h"
#include "session/session.h"

namespace onyx::testing {
namespace {

using optimizer::Pass;
using optimizer::PassContext;
using optimizer::PassManager;
using optimizer::Phase;

class BreaksGraph final : public Pass {
 public:
  std::string name() const override { return "breaks_graph"; }
  Result<bool> run(PassContext& ctx) const override {
    ctx.model.graph.nodes[0].inputs[0] = "nowhere";
    return true;
  }
};

class Fails final : public Pass {
 public:
  std::string name() const override { return "fails"; }
  Result<bool> run(PassContext&) const override { return invalid_model("cannot cope"); }
};

class RenamesOutput final : public Pass {
 public:
  std::string name() const override { return "renames_output"; }
  Result<bool> run(PassContext& ctx) const override {
    ctx.model.graph.nodes.back().outputs[0] = "renamed";
    ctx.model.graph.outputs[0].name = "renamed";
    return true;
  }
};

class NeverSettles final : public Pass {
 public:
  std::string name() const override { return "never_settles"; }
  Result<bool> run(PassContext&) const override { return true; }
};

PassModel relu_model() {
  PassModel m;
  m.input("x", {3});
  m.node("Relu", {"x"}, {"r"});
  m.node("Neg", {"r"}, {"y"});
  m.output("y");
  return m;
}

Result<optimizer::OptimizeReport> run_one(ir::Model& model, std::shared_ptr<const Pass> pass, int max_rounds = 16) {
  PassManager manager({{Phase::kSimplify, {std::move(pass)}}});
  manager.max_rounds = max_rounds;
  ops::GraphTypes types = ops::infer_graph_types(model.graph, model.opsets);
  return manager.run(model, types);
}

TEST(PassManager, ABrokenGraphNamesThePass) {
  ir::Model m = load(relu_model());
  auto r = run_one(m, std::make_shared<BreaksGraph>());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInternal);
  EXPECT_NE(r.status().message().find("optimizer pass 'breaks_graph' left an invalid graph"), std::string::npos)
      << r.status().to_string();
  EXPECT_NE(r.status().message().find("nowhere"), std::string::npos);
}

TEST(PassManager, APassErrorNamesThePass) {
  ir::Model m = load(relu_model());
  auto r = run_one(m, std::make_shared<Fails>());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("optimizer pass 'fails' failed"), std::string::npos) << r.status().to_string();
  EXPECT_NE(r.status().message().find("cannot cope"), std::string::npos);
}

TEST(PassManager, RenamedGraphOutputsAreCaught) {
  ir::Model m = load(relu_model());
  auto r = run_one(m, std::make_shared<RenamesOutput>());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("'renames_output'"), std::string::npos);
  EXPECT_NE(r.status().message().find("graph output names changed"), std::string::npos) << r.status().to_string();
}

TEST(PassManager, APhaseThatNeverSettlesStopsAtMaxRounds) {
  ir::Model m = load(relu_model());
  auto r = run_one(m, std::make_shared<NeverSettles>(), 3);
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ(r->changes.at("never_settles"), 3);
}

TEST(PassManager, AGraphThatDoesNotVerifyIsLeftAlone) {
  PassModel p = relu_model();
  p.node("Identity", {"undefined_value"}, {"z"});
  p.output("z");
  ir::Model m = load(p);
  const size_t nodes = m.graph.nodes.size();
  auto r = apply_level(m, 99);
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_NE(r->skipped.find("undefined_value"), std::string::npos) << r->skipped;
  EXPECT_EQ(m.graph.nodes.size(), nodes);
}

TEST(PassManager, AnUnsortedGraphIsSortedFirst) {
  PassModel p;
  p.input("x", {3});
  p.node("Neg", {"r"}, {"y"});
  p.node("Relu", {"x"}, {"r"});
  p.output("y");
  ir::Model m = load(p);
  ASSERT_TRUE(apply_level(m, 1).ok());
  EXPECT_EQ(m.graph.nodes[0].op_type, "Relu");
}

TEST(PassRegistry, EveryPassIsInItsPhase) {
  auto names = [](Phase phase) {
    std::vector<std::string> out;
    for (const auto& p : optimizer::PassRegistry::global().phase(phase)) out.push_back(p->name());
    return out;
  };
  const auto simplify = names(Phase::kSimplify), fuse = names(Phase::kFuse);
  for (const char* n : {"constant_to_initializer", "shape_folding", "constant_folding", "identity_elimination",
                        "dropout_elimination", "cast_elimination", "dead_node_elimination"})
    EXPECT_NE(std::find(simplify.begin(), simplify.end(), n), simplify.end()) << n;
  for (const char* n : {"attention_fusion", "gelu_fusion", "fast_gelu_fusion", "bias_gelu_fusion", "layer_norm_fusion",
                        "skip_layer_norm_fusion", "conv_bn_fusion", "dead_node_elimination"})
    EXPECT_NE(std::find(fuse.begin(), fuse.end(), n), fuse.end()) << n;
  EXPECT_EQ(simplify.front(), "constant_to_initializer");
  EXPECT_EQ(simplify.back(), "dead_node_elimination");
}

// y = gelu(x) written out, plus an Identity: level 1 removes the Identity only, level 2 fuses.
PassModel gelu_with_identity() {
  PassModel m;
  m.input("x", {2, 5});
  m.node("Identity", {"x"}, {"xi"});
  m.node("Div", {"xi", m.scalar("sqrt2", 1.4142135f)}, {"s"});
  m.node("Erf", {"s"}, {"e"});
  m.node("Add", {"e", m.scalar("one", 1.f)}, {"p"});
  m.node("Mul", {"xi", "p"}, {"xp"});
  m.node("Mul", {"xp", m.scalar("half", 0.5f)}, {"y"});
  m.output("y");
  return m;
}

TEST(Levels, EachLevelRunsItsPhases) {
  const PassModel m = gelu_with_identity();
  check_rewrite(m, {}, {{"Identity", 1}, {"Div", 1}, {"Erf", 1}, {"Add", 1}, {"Mul", 2}}, 0, 0, 0);
  check_rewrite(m, {}, {{"Div", 1}, {"Erf", 1}, {"Add", 1}, {"Mul", 2}}, 0, 0, 1);
  check_rewrite(m, {}, {{"com.microsoft:Gelu", 1}}, 1e-4, 1e-5, 2);
  check_rewrite(m, {}, {{"com.microsoft:Gelu", 1}}, 1e-4, 1e-5, 99);
}

TEST(Levels, TheSessionOptimisesByItsOption) {
  const std::string bytes = gelu_with_identity().bytes();
  SessionOptions none;
  none.graph_optimization_level = 0;
  auto plain = Session::load_bytes(bytes.data(), bytes.size(), none);
  auto optimised = Session::load_bytes(bytes.data(), bytes.size());
  ASSERT_TRUE(plain.ok()) << plain.status().to_string();
  ASSERT_TRUE(optimised.ok()) << optimised.status().to_string();
  EXPECT_EQ(histogram((*plain)->model().graph).size(), 5u);
  EXPECT_EQ(histogram((*optimised)->model().graph), (std::map<std::string, int>{{"com.microsoft:Gelu", 1}}));
  EXPECT_EQ((*optimised)->outputs()[0].name, "y");
  EXPECT_EQ((*optimised)->static_types().all.at("y").to_string(), "float32[2,5]");
  Tensor x(DataType::kFloat, {2, 5});
  for (int64_t i = 0; i < x.numel(); ++i) x.data<float>()[i] = float(i) - 4.5f;
  auto a = (*plain)->run({{"x", Value(x)}});
  auto b = (*optimised)->run({{"x", Value(x)}});
  ASSERT_TRUE(a.ok() && b.ok());
  expect_same_outputs(*a, *b, 1e-5, 1e-6);
}

TEST(DisabledPasses, OnyxAndOrtSpellingsNameTheSamePass) {
  const auto& registry = optimizer::PassRegistry::global();
  auto canonical = [&](const std::string& name) {
    auto r = registry.canonical_name(name);
    return r.ok() ? *r : "error: " + r.status().to_string();
  };
  for (const char* name : {"gelu_fusion", "GeluFusion"}) EXPECT_EQ(canonical(name), "gelu_fusion");
  EXPECT_EQ(canonical("ConvBNFusion"), "conv_bn_fusion");
  EXPECT_EQ(canonical("SkipLayerNormFusion"), "skip_layer_norm_fusion");
  auto bad = registry.canonical_name("NchwcTransformer");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("no graph optimisation pass is named 'NchwcTransformer'"), std::string::npos);
  EXPECT_NE(bad.status().message().find("attention_fusion"), std::string::npos) << "the message lists the passes";
}

TEST(DisabledPasses, TheSessionSkipsThemAndRefusesUnknownNames) {
  const std::string bytes = gelu_with_identity().bytes();
  SessionOptions options;
  options.disabled_optimizers = {"GeluFusion"};
  auto s = Session::load_bytes(bytes.data(), bytes.size(), options);
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  // Level-1 passes still ran (the Identity went); the GELU stays written out.
  EXPECT_EQ(histogram((*s)->model().graph), (std::map<std::string, int>{{"Div", 1}, {"Erf", 1}, {"Add", 1}, {"Mul", 2}}));
  options.disabled_optimizers = {"gelu_fusion", "no_such_pass"};
  auto bad = Session::load_bytes(bytes.data(), bytes.size(), options);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("'no_such_pass'"), std::string::npos) << bad.status().to_string();
  options.graph_optimization_level = 0;  // checked even when nothing runs
  EXPECT_FALSE(Session::load_bytes(bytes.data(), bytes.size(), options).ok());
}

}  // namespace
}  // namespace onyx::testing
