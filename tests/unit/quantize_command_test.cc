// `onyx quantize` (--dynamic and --static) and `onyx optimize`, end to end through the built
// binary: which nodes become quantised operators (and why the others stay), the written model
// loads and stays close to the original, options that are not built are refused by name.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>

#include "cli_runner.h"
#include "model_builder.h"
#include "core/data_type.h"
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
  EXPECT_EQ(run_cli("quantize m.onnx -o q.onnx", &text), 2) << text;
  EXPECT_NE(text.find("one of --dynamic, --int4 and --static"), std::string::npos) << text;
  text.clear();
  EXPECT_EQ(run_cli("quantize m.onnx -o q.onnx --static", &text), 2) << text;
  EXPECT_NE(text.find("--calibration DIR"), std::string::npos) << text;
  text.clear();
  EXPECT_EQ(run_cli("quantize m.onnx -o q.onnx --static --calibration-random 2 --format qxyz", &text), 2) << text;
  EXPECT_NE(text.find("--format takes qoperator or qdq"), std::string::npos) << text;
  text.clear();
  EXPECT_EQ(run_cli("optimize m.onnx -o o.onnx --float16 --auto-mixed-precision", &text), 2) << text;
  EXPECT_NE(text.find("--auto-mixed-precision and --tolerance T go together"), std::string::npos) << text;
  text.clear();
  EXPECT_EQ(run_cli("optimize m.onnx -o o.onnx --model-type t5", &text), 2) << text;
  EXPECT_NE(text.find("unknown model type 't5' (onyx knows bert, gpt2, vit, unet)"), std::string::npos) << text;
}

// --model-type adds the fusion check to the report; --disable-passes takes either spelling and
// refuses names no pass has. (The check itself: tests/passes/model_type_test.cc.)
TEST(OptimizeCommand, ModelTypeChecksTheFusionsAndPassesCanBeDisabled) {
  const fs::path dir = temp_dir("model_type");
  const std::string model = (dir / "m.onnx").string(), out = (dir / "o.onnx").string();
  std::ofstream(model, std::ios::binary) << three_products();
  std::string text;
  ASSERT_EQ(run_cli("optimize " + model + " -o " + out + " --model-type gpt2", &text), 0) << text;
  EXPECT_NE(text.find("fusions expected of a gpt2 model:"), std::string::npos) << text;
  EXPECT_NE(text.find("attention: 0 fused; none left unfused"), std::string::npos) << text;
  EXPECT_NE(text.find("verdict: not fully fused: attention (none found)"), std::string::npos) << text;
  text.clear();
  ASSERT_EQ(run_cli("optimize " + model + " -o " + out + " --disable-passes ConstantFolding,gelu_fusion", &text), 0)
      << text;
  EXPECT_EQ(text.find("fusions expected"), std::string::npos) << "no check without --model-type: " << text;
  text.clear();
  EXPECT_EQ(run_cli("optimize " + model + " -o " + out + " --disable-passes gelu_fusion,bogus", &text), 1) << text;
  EXPECT_NE(text.find("no graph optimisation pass is named 'bogus'"), std::string::npos) << text;
  fs::remove_all(dir);
}

void int_attribute(onnx::NodeProto* n, const char* name, int64_t v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}

void ints_attribute(onnx::NodeProto* n, const char* name, std::vector<int64_t> v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t x : v) a->add_ints(x);
}

// A small ResNet-like float network: Conv -> Relu, Conv, Add with the first Relu's output ->
// Relu, MaxPool, GlobalAveragePool, Flatten, Gemm (transB).
std::string small_cnn() {
  ModelBuilder b;
  b.input("x", {1, 3, 12, 12}).output("y", {1, 5});
  b.initializer("W1", {8, 3, 3, 3}, random_values(8 * 27, 11));
  b.initializer("b1", {8}, random_values(8, 12));
  b.initializer("W2", {8, 8, 3, 3}, random_values(8 * 72, 13));
  b.initializer("b2", {8}, random_values(8, 14));
  b.initializer("Wf", {5, 8}, random_values(40, 15));
  b.initializer("bf", {5}, random_values(5, 16));
  ints_attribute(b.node("Conv", {"x", "W1", "b1"}, {"c1"}, "conv1"), "pads", {1, 1, 1, 1});
  b.node("Relu", {"c1"}, {"r1"}, "relu1");
  ints_attribute(b.node("Conv", {"r1", "W2", "b2"}, {"c2"}, "conv2"), "pads", {1, 1, 1, 1});
  b.node("Add", {"c2", "r1"}, {"s"}, "add");
  b.node("Relu", {"s"}, {"r2"}, "relu2");
  auto* pool = b.node("MaxPool", {"r2"}, {"m"}, "pool");
  ints_attribute(pool, "kernel_shape", {2, 2});
  ints_attribute(pool, "strides", {2, 2});
  b.node("GlobalAveragePool", {"m"}, {"g"}, "gap");
  b.node("Flatten", {"g"}, {"f"}, "flatten");
  int_attribute(b.node("Gemm", {"f", "Wf", "bf"}, {"y"}, "fc"), "transB", 1);
  return b.bytes();
}

TEST(QuantizeCommand, StaticQOperatorQuantisesTheWholeNetworkToInt8Kernels) {
  const fs::path dir = temp_dir("static_qoperator");
  const std::string model = (dir / "m.onnx").string(), out = (dir / "q.onnx").string();
  std::ofstream(model, std::ios::binary) << small_cnn();
  std::string text;
  ASSERT_EQ(run_cli("quantize " + model + " -o " + out + " --static --calibration-random 4 --per-channel", &text), 0)
      << text;
  for (const char* want : {"'conv1' (Conv)", "QLinearConv (Relu absorbed)", "QLinearAdd (Relu absorbed)",
                           "MaxPool on uint8", "QLinearGlobalAveragePool", "Flatten on uint8", "QGemm (float32 output)",
                           "7 node(s) quantised", "oneDNN int8 convolution", "top-1 agreement"})
    EXPECT_NE(text.find(want), std::string::npos) << want << "\n" << text;
  EXPECT_EQ(text.find("fell back"), std::string::npos) << text;
  auto counts = op_counts(out);
  EXPECT_EQ(counts["QLinearConv"], 2);
  EXPECT_EQ(counts["QLinearAdd"], 1);
  EXPECT_EQ(counts["QGemm"], 1);
  EXPECT_EQ(counts["QuantizeLinear"], 1);  // the network's input; everything after stays uint8
  EXPECT_EQ(counts["DequantizeLinear"], 0);
  EXPECT_EQ(counts["Conv"] + counts["Relu"] + counts["Add"] + counts["Gemm"], 0);
  // Close to the float model on other inputs than the calibration sets, not equal to it.
  text.clear();
  EXPECT_EQ(run_cli("compare " + model + " " + out + " --runs 3 --seed 99 --atol 0.15 --rtol 0.1", &text), 0) << text;
  text.clear();
  EXPECT_EQ(run_cli("compare " + model + " " + out + " --runs 1 --atol 0 --rtol 0", &text), 1) << text;
  fs::remove_all(dir);
}

TEST(QuantizeCommand, StaticQdqFromACalibrationFolderWithEachMethod) {
  const fs::path dir = temp_dir("static_qdq");
  const std::string model = (dir / "m.onnx").string(), out = (dir / "q.onnx").string();
  std::ofstream(model, std::ios::binary) << small_cnn();
  // Two feed sets, one folder each, as input_0.pb.
  const std::vector<float> a = random_values(3 * 12 * 12, 21), b = random_values(3 * 12 * 12, 22);
  for (int k = 0; k < 2; ++k) {
    const fs::path set = dir / "calibration" / ("set" + std::to_string(k));
    fs::create_directories(set);
    onnx::TensorProto t;
    t.set_data_type(onnx::TensorProto::FLOAT);
    for (int64_t d : {1, 3, 12, 12}) t.add_dims(d);
    for (float v : k == 0 ? a : b) t.add_float_data(std::abs(v));
    std::ofstream(set / "input_0.pb", std::ios::binary) << t.SerializeAsString();
  }
  const std::string cal = (dir / "calibration").string();
  for (const char* method : {"minmax", "entropy", "percentile"}) {
    std::string text;
    ASSERT_EQ(run_cli("quantize " + model + " -o " + out + " --static --format qdq --calibration " + cal + " --method " +
                          method,
                      &text),
              0)
        << text;
    EXPECT_NE(text.find(std::string(method) + " calibration over 2 set(s)"), std::string::npos) << text;
    EXPECT_NE(text.find("QDQ format"), std::string::npos) << text;
    auto counts = op_counts(out);
    EXPECT_EQ(counts["Conv"], 2) << method;  // QDQ keeps the float operators
    EXPECT_GE(counts["QuantizeLinear"], 4) << method;
    EXPECT_GE(counts["DequantizeLinear"], 6) << method;
    text.clear();
    // Entropy clips hardest on so small a calibration set (its histograms are sparse).
    const std::string atol = std::string(method) == "entropy" ? "1.0" : "0.25";
    EXPECT_EQ(run_cli("compare " + model + " " + out + " --runs 2 --rtol 0.2 --atol " + atol, &text), 0) << method << text;
  }
  std::string text;
  EXPECT_EQ(run_cli("quantize " + model + " -o " + out + " --static --calibration " + (dir / "none").string(), &text), 1)
      << text;
  EXPECT_NE(text.find("no folder of feed sets"), std::string::npos) << text;
  fs::remove_all(dir);
}

// Element types of a saved model's graph inputs, outputs and initializers, by name.
std::map<std::string, int> elem_types(const std::string& path) {
  std::map<std::string, int> types;
  auto m = onnx_format::load_model_file(path);
  EXPECT_TRUE(m.ok()) << m.status().to_string();
  if (!m.ok()) return types;
  for (const auto& vi : m->graph.inputs) types["in:" + vi.name] = int(vi.type.elem_type);
  for (const auto& vi : m->graph.outputs) types["out:" + vi.name] = int(vi.type.elem_type);
  for (const auto& [name, t] : m->graph.initializers) types[name] = int(t.dtype());
  return types;
}

TEST(OptimizeCommand, Float16ConvertsTheGraphAndKeepsWhatItIsAsked) {
  const fs::path dir = temp_dir("float16");
  const std::string model = (dir / "m.onnx").string(), out = (dir / "h.onnx").string();
  std::ofstream(model, std::ios::binary) << small_cnn();
  std::string text;
  ASSERT_EQ(run_cli("optimize " + model + " -o " + out + " --level 1 --float16 --no-compare", &text), 0) << text;
  EXPECT_NE(text.find("float16: 9 node(s) converted, 0 kept float32, 0 Cast(s) added"), std::string::npos) << text;
  auto types = elem_types(out);
  EXPECT_EQ(types["in:x"], int(DataType::kFloat16));
  EXPECT_EQ(types["out:y"], int(DataType::kFloat16));
  for (const auto& [name, t] : types)
    if (name.find(':') == std::string::npos) EXPECT_EQ(t, int(DataType::kFloat16)) << name;
  // float16 arithmetic: close to float32, not equal to it.
  text.clear();
  EXPECT_EQ(run_cli("compare " + model + " " + out + " --level 1 --runs 2 --rtol 0.02 --atol 0.02", &text), 0) << text;
  text.clear();
  EXPECT_EQ(run_cli("compare " + model + " " + out + " --level 1 --runs 1 --rtol 0 --atol 0", &text), 1) << text;

  // Float32 edges and a blocked op: Casts after the input and around the Gemm.
  text.clear();
  ASSERT_EQ(run_cli("optimize " + model + " -o " + out + " --level 1 --float16 --keep-io-types --op-block-list Gemm,TopK",
                    &text),
            0)
      << text;
  EXPECT_NE(text.find("8 node(s) converted, 1 kept float32, 2 Cast(s) added"), std::string::npos) << text;
  types = elem_types(out);
  EXPECT_EQ(types["in:x"], int(DataType::kFloat));
  EXPECT_EQ(types["out:y"], int(DataType::kFloat));
  EXPECT_EQ(types["Wf"], int(DataType::kFloat));  // the Gemm's weights stay float32
  EXPECT_EQ(op_counts(out)["Cast"], 2);
  EXPECT_NE(text.find("float16 against float32"), std::string::npos) << text;
  fs::remove_all(dir);
}

TEST(OptimizeCommand, AutoMixedPrecisionKeepsWhatTheToleranceNeeds) {
  const fs::path dir = temp_dir("amp");
  const std::string model = (dir / "m.onnx").string(), out = (dir / "h.onnx").string();
  std::ofstream(model, std::ios::binary) << small_cnn();
  std::string text;
  // A loose tolerance: everything float16, found in one try.
  ASSERT_EQ(run_cli("optimize " + model + " -o " + out + " --level 1 --float16 --auto-mixed-precision --tolerance 10 "
                    "--no-compare",
                    &text),
            0)
      << text;
  EXPECT_NE(text.find("mixed precision: 0 node(s) kept float32 (0 for float16 overflow) after 1 tries"), std::string::npos)
      << text;
  // Tolerance 0: whatever float16 changes stays float32, and the result equals the original.
  text.clear();
  ASSERT_EQ(run_cli("optimize " + model + " -o " + out + " --level 1 --float16 --auto-mixed-precision --tolerance 0 "
                    "--keep-io-types --runs 2 --no-compare",
                    &text),
            0)
      << text;
  EXPECT_NE(text.find("max abs difference 0 within 0 over 2 feed set(s)"), std::string::npos) << text;
  text.clear();
  EXPECT_EQ(run_cli("compare " + model + " " + out + " --level 1 --runs 2 --atol 0 --rtol 0", &text), 0) << text;

  // y = (x * 1e5) * 1e-5: the first product leaves float16's range and must stay float32.
  ModelBuilder b;
  b.input("x", {4}).output("y", {4});
  b.initializer("big", {1}, {1e5f});
  b.initializer("small", {1}, {1e-5f});
  b.node("Mul", {"x", "big"}, {"t"}, "scale_up");
  b.node("Mul", {"t", "small"}, {"y"}, "scale_down");
  std::ofstream(model, std::ios::binary | std::ios::trunc) << b.bytes();
  text.clear();
  ASSERT_EQ(run_cli("optimize " + model + " -o " + out + " --level 0 --float16 --auto-mixed-precision --tolerance 0.01 "
                    "--keep-io-types --no-compare",
                    &text),
            0)
      << text;
  EXPECT_NE(text.find("kept float32: 'scale_up' (Mul) (overflow)"), std::string::npos) << text;
  text.clear();
  EXPECT_EQ(run_cli("compare " + model + " " + out + " --level 0 --runs 2 --atol 0.01 --rtol 0", &text), 0) << text;
  fs::remove_all(dir);
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

// --for-provider reports where each node of the optimised graph would run, from this build's
// kernels and without the device: the small CNN wholly on CUDA and recordable as a CUDA graph,
// a Sign (no CUDA kernel) on the CPU with the reason, reading its input on the host (not
// recordable).
TEST(OptimizeCommand, ForProviderReportsThePlacementWithoutTheDevice) {
  const fs::path dir = temp_dir("for_provider");
  const std::string cnn = (dir / "cnn.onnx").string(), sign = (dir / "sign.onnx").string(),
                    out = (dir / "o.onnx").string();
  std::ofstream(cnn, std::ios::binary) << small_cnn();
  ModelBuilder b;
  b.input("x", {4}).output("y", {4});
  b.node("Sign", {"x"}, {"s"});
  b.node("Relu", {"s"}, {"y"});
  std::ofstream(sign, std::ios::binary) << b.bytes();
  std::string text;
  ASSERT_EQ(run_cli("optimize " + cnn + " -o " + out + " --for-provider CPUExecutionProvider", &text), 0) << text;
  EXPECT_NE(text.find("node(s) on CPU"), std::string::npos) << text;
  text.clear();
#if defined(ONYX_WITH_CUDA) && defined(ONYX_WITH_CUDNN)
  ASSERT_EQ(run_cli("optimize " + cnn + " -o " + out + " --for-provider cuda", &text), 0) << text;
  EXPECT_NE(text.find("node(s) on CUDA, 0 on the CPU, 2 copy step(s)"), std::string::npos) << text;  // in, out
  EXPECT_NE(text.find("com.microsoft:FusedConv"), std::string::npos) << "fused for CUDA, which has FusedConv: " << text;
  EXPECT_NE(text.find("recorded runs (CUDA graphs, every input bound on CUDA): possible"), std::string::npos) << text;
  text.clear();
  ASSERT_EQ(run_cli("optimize " + sign + " -o " + out + " --for-provider cuda", &text), 0) << text;
  EXPECT_NE(text.find("1 node(s) on CUDA, 1 on the CPU"), std::string::npos) << text;
  EXPECT_NE(text.find("(Sign): CUDA: no kernel for Sign"), std::string::npos) << text;
  // the Sign reads the input on the host: a recorded run, with x bound on the GPU, cannot
  EXPECT_NE(text.find("not possible:\n  input 'x' is read on the host"), std::string::npos) << text;
#elif !defined(ONYX_WITH_CUDA)
  EXPECT_EQ(run_cli("optimize " + cnn + " -o " + out + " --for-provider cuda", &text), 2) << text;  // a usage error
  EXPECT_NE(text.find("'cuda' is not a provider of this build"), std::string::npos) << text;
#endif
  fs::remove_all(dir);
}
#endif

}  // namespace
}  // namespace onyx
