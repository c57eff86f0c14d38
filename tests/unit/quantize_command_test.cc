// `onyx quantize --dynamic` and `onyx optimize`, end to end through the built binary: which
// MatMul/Gemm nodes become DynamicQuantizeMatMul (and why the others stay), the written model
// loads and stays close to the original, options that are not built are refused by name.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>

#include "cli_runner.h"
#include "model_builder.h"
#include "onnx/loader.h"

namespace onyx {
namespace {

namespace fs = std::filesystem;
using testing::ModelBuilder;

#ifdef ONYX_CLI
using testing::run_cli;

fs::path temp_dir(const std::string& name) { return testing::scratch_folder("quantize_test", name); }

std::vector<float> random_values(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.f, 0.5f);
  std::vector<float> v(n);
  for (float& x : v) x = normal(rng);
  return v;
}

// y = MatMul(Gemm(MatMul(x, W1), W2, C, transB = 1), b3): W1, W2 and C initializers, b3 an input.
std::string three_products() {
  ModelBuilder b;
  b.input("x", {2, 8}).input("b3", {4, 3}).output("y", {2, 3});
  b.initializer("W1", {8, 16}, random_values(8 * 16, 1));
  b.initializer("W2", {4, 16}, random_values(4 * 16, 2));
  b.initializer("C", {4}, random_values(4, 3));
  b.node("MatMul", {"x", "W1"}, {"h"}, "first");
  auto* gemm = b.node("Gemm", {"h", "W2", "C"}, {"g"}, "second");
  auto* trans = gemm->add_attribute();
  trans->set_name("transB");
  trans->set_type(onnx::AttributeProto::INT);
  trans->set_i(1);
  b.node("MatMul", {"g", "b3"}, {"y"}, "third");
  return b.bytes();
}

std::map<std::string, int> op_counts(const std::string& path) {
  std::map<std::string, int> counts;
  auto m = onnx_format::load_model_file(path);
  EXPECT_TRUE(m.ok()) << m.status().to_string();
  if (m.ok())
    for (const auto& n : m->graph.nodes) ++counts[n.op_type];
  return counts;
}

TEST(QuantizeCommand, DynamicQuantizesMatMulAndGemmWithInitializerWeights) {
  const fs::path dir = temp_dir("dynamic");
  const std::string model = (dir / "m.onnx").string(), out = (dir / "q.onnx").string();
  std::ofstream(model, std::ios::binary) << three_products();
  std::string text;
  ASSERT_EQ(run_cli("quantize " + model + " -o " + out + " --dynamic --no-compare", &text), 0) << text;
  EXPECT_NE(text.find("2 of 3 MatMul/Gemm quantised"), std::string::npos) << text;
  EXPECT_NE(text.find("kept: B is not an initializer"), std::string::npos) << text;
  auto counts = op_counts(out);
  EXPECT_EQ(counts["DynamicQuantizeMatMul"], 2);
  EXPECT_EQ(counts["MatMul"], 1);
  EXPECT_EQ(counts["Gemm"], 0);
  // int8 weights: close to the float model, not equal to it.
  text.clear();
  EXPECT_EQ(run_cli("compare " + model + " " + out + " --runs 3 --atol 0.05 --rtol 0.05", &text), 0) << text;
  text.clear();
  EXPECT_EQ(run_cli("compare " + model + " " + out + " --runs 3 --atol 0 --rtol 0", &text), 1) << text;

  // Excluding Gemm leaves it float.
  text.clear();
  ASSERT_EQ(run_cli("quantize " + model + " -o " + out + " --dynamic --no-compare --exclude Gemm", &text), 0) << text;
  EXPECT_NE(text.find("1 of 3 MatMul/Gemm quantised"), std::string::npos) << text;
  EXPECT_EQ(op_counts(out)["Gemm"], 1);
  fs::remove_all(dir);
}

TEST(QuantizeCommand, UnbuiltModesAreRefusedByName) {
  std::string text;
  EXPECT_EQ(run_cli("quantize m.onnx -o q.onnx --static --calibration dir", &text), 2) << text;
  EXPECT_NE(text.find("--static is not built yet"), std::string::npos) << text;
  text.clear();
  EXPECT_EQ(run_cli("quantize m.onnx -o q.onnx", &text), 2) << text;
  EXPECT_NE(text.find("--dynamic"), std::string::npos) << text;
  text.clear();
  EXPECT_EQ(run_cli("optimize m.onnx -o o.onnx --float16", &text), 2) << text;
  EXPECT_NE(text.find("--float16 is not built yet"), std::string::npos) << text;
}

TEST(OptimizeCommand, WritesTheOptimisedGraphAndReportsIt) {
  // y = x + (a * b): the product of two initializers folds into one.
  ModelBuilder b;
  b.input("x", {3}).output("y", {3});
  b.initializer("a", {3}, {1.f, 2.f, 3.f});
  b.initializer("b", {3}, {4.f, 5.f, 6.f});
  b.node("Mul", {"a", "b"}, {"ab"});
  b.node("Add", {"x", "ab"}, {"y"});
  const fs::path dir = temp_dir("optimize");
  const std::string model = (dir / "m.onnx").string(), out = (dir / "o.onnx").string();
  std::ofstream(model, std::ios::binary) << b.bytes();
  std::string text;
  ASSERT_EQ(run_cli("optimize " + model + " -o " + out, &text), 0) << text;
  EXPECT_NE(text.find("nodes: 2 -> 1"), std::string::npos) << text;
  EXPECT_NE(text.find("constant_folding"), std::string::npos) << text;
  auto counts = op_counts(out);
  EXPECT_EQ(counts["Add"], 1);
  EXPECT_EQ(counts["Mul"], 0);
  text.clear();
  EXPECT_EQ(run_cli("compare " + model + " " + out + " --level 0 --atol 0 --rtol 0", &text), 0) << text;
  fs::remove_all(dir);
}
#endif

}  // namespace
}  // namespace onyx
