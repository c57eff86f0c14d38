// Model types (optimizer/model_type.h): the fusion check counts fused ops and the signs of
// patterns left unfused per family, and a type turns off the fusions it never has.
#include <gtest/gtest.h>

#include "optimizer/model_type.h"
#include "pass_test_util.h"

namespace onyx::testing {
namespace {

using optimizer::check_fusions;
using optimizer::find_model_type;

const optimizer::ModelType* type_named(const std::string& name) {
  auto t = find_model_type(name);
  EXPECT_TRUE(t.ok()) << t.status().to_string();
  return t.ok() ? *t : nullptr;
}

ir::Node node(const std::string& op, std::vector<std::string> in, std::vector<std::string> out,
              const std::string& domain = "") {
  ir::Node n;
  n.op_type = op;
  n.domain = domain;
  n.inputs = std::move(in);
  n.outputs = std::move(out);
  return n;
}

TEST(ModelType, AFullyFusedEncoderLayerPasses) {
  ir::Graph g;
  g.nodes.push_back(node("MultiHeadAttention", {"q", "k", "v"}, {"a"}, "com.microsoft"));
  g.nodes.push_back(node("SkipLayerNormalization", {"a", "x", "gamma", "beta"}, {"h"}, "com.microsoft"));
  g.nodes.push_back(node("MatMul", {"h", "w1"}, {"u"}));
  g.nodes.push_back(node("BiasGelu", {"u", "b1"}, {"gu"}, "com.microsoft"));
  const auto* bert = type_named("bert");
  const auto check = check_fusions(g, *bert);
  EXPECT_TRUE(check.fully_fused());
  const std::string text = check.to_string(*bert);
  EXPECT_NE(text.find("attention: 1 fused (com.microsoft:MultiHeadAttention 1); none left unfused"), std::string::npos)
      << text;
  EXPECT_NE(text.find("gelu: 1 fused (com.microsoft:BiasGelu 1)"), std::string::npos) << text;
  EXPECT_NE(text.find("verdict: fully fused"), std::string::npos) << text;
  EXPECT_NE(text.find("not built in onyx: EmbedLayerNormalization"), std::string::npos) << text;
}

TEST(ModelType, EachUnfusedPatternIsNamedWithItsCount) {
  ir::Graph g;
  g.nodes.push_back(node("MultiHeadAttention", {"q", "k", "v"}, {"a"}, "com.microsoft"));
  g.nodes.push_back(node("Softmax", {"scores"}, {"p"}));   // a second attention, unfused
  g.nodes.push_back(node("Add", {"a", "x"}, {"r"}));        // residual into a plain LayerNormalization
  g.nodes.push_back(node("LayerNormalization", {"r", "gamma", "beta"}, {"h"}));
  g.nodes.push_back(node("Erf", {"h"}, {"e1"}));
  g.nodes.push_back(node("Erf", {"e1"}, {"e2"}));
  g.nodes.push_back(node("Add", {"e2", "one"}, {"s"}));    // read twice: not a residual sign
  g.nodes.push_back(node("LayerNormalization", {"s", "gamma", "beta"}, {"o1"}));
  g.nodes.push_back(node("Mul", {"s", "s"}, {"o2"}));
  const auto* bert = type_named("bert");
  const auto check = check_fusions(g, *bert);
  EXPECT_FALSE(check.fully_fused());
  const std::string text = check.to_string(*bert);
  EXPECT_NE(text.find("attention: 1 fused (com.microsoft:MultiHeadAttention 1); left unfused: Softmax 1"),
            std::string::npos) << text;
  EXPECT_NE(text.find("residual add + layer normalization: 0 fused; left unfused: Add before a layer normalization 1"),
            std::string::npos) << text;
  EXPECT_NE(text.find("layer normalization: 2 fused (LayerNormalization 2); none left unfused"), std::string::npos)
      << text;
  EXPECT_NE(text.find("gelu: 0 fused; left unfused: Erf 2"), std::string::npos) << text;
  EXPECT_NE(text.find("verdict: not fully fused: attention (1 left unfused); residual add + layer normalization (1 left "
                      "unfused); gelu (2 left unfused)"),
            std::string::npos) << text;
}

TEST(ModelType, OptionalFamiliesAndConvActivations) {
  ir::Graph g;
  g.nodes.push_back(node("MultiHeadAttention", {"q", "k", "v"}, {"a"}, "com.microsoft"));
  g.nodes.push_back(node("LayerNormalization", {"a", "gamma", "beta"}, {"h"}));
  g.nodes.push_back(node("Gelu", {"h"}, {"g"}, "com.microsoft"));
  const auto* unet = type_named("unet");
  EXPECT_TRUE(check_fusions(g, *unet).fully_fused()) << "FusedConv is optional for a unet";
  EXPECT_NE(check_fusions(g, *unet).to_string(*unet).find("convolution + activation: 0 fused; none left unfused "
                                                          "(optional for this type)"),
            std::string::npos);
  g.nodes.push_back(node("Conv", {"g", "w"}, {"c"}));
  g.nodes.push_back(node("Relu", {"c"}, {"y"}));
  const auto check = check_fusions(g, *unet);
  EXPECT_FALSE(check.fully_fused());
  EXPECT_NE(check.to_string(*unet).find("left unfused: Conv before an activation 1"), std::string::npos);
}

TEST(ModelType, UnknownTypesAreRefusedWithTheKnownOnes) {
  auto bad = find_model_type("t5");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("bert, gpt2, vit, unet"), std::string::npos) << bad.status().to_string();
}

// A transformer type turns the convolution fusions off; every name it lists is a real pass.
TEST(ModelType, TransformerTypesTurnOffTheConvolutionFusions) {
  for (const char* name : {"bert", "gpt2", "vit", "unet"}) {
    const auto* type = type_named(name);
    ASSERT_TRUE(type);
    for (const std::string& pass : type->disabled_passes)
      EXPECT_TRUE(optimizer::PassRegistry::global().canonical_name(pass).ok()) << name << ": " << pass;
  }
  const auto* bert = type_named("bert");
  EXPECT_TRUE(bert->disabled_passes.count("conv_activation_fusion"));
  PassModel m;
  m.input("x", {1, 2, 4, 4});
  m.init_random("w", {3, 2, 1, 1});
  m.node("Conv", {"x", "w"}, {"c"});
  m.node("Relu", {"c"}, {"y"});
  m.output("y");
  ir::Model model = load(m);
  ops::GraphTypes types = ops::infer_graph_types(model.graph, model.opsets);
  auto manager = optimizer::PassManager::for_level(2, bert->disabled_passes);
  ASSERT_TRUE(manager.ok());
  ASSERT_TRUE(manager->run(model, types).ok());
  EXPECT_EQ(histogram(model.graph), (std::map<std::string, int>{{"Conv", 1}, {"Relu", 1}}));
  ir::Model fused = load(m);
  ASSERT_TRUE(apply_level(fused, 2).ok());
  EXPECT_EQ(histogram(fused.graph), (std::map<std::string, int>{{"com.microsoft:FusedConv", 1}}));
}

}  // namespace
}  // namespace onyx::testing
