// `onyx compare A B`, end to end through the built binary: equal models pass, a model that
// differs beyond tolerance exits 1 with its difference printed, models whose outputs or
// inputs do not correspond exit 2, and random ids stay inside the embedding table they index.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "cli_runner.h"
#include "model_builder.h"

namespace onyx {
namespace {

namespace fs = std::filesystem;
using testing::ModelBuilder;

#ifdef ONYX_CLI
using testing::run_cli;

fs::path temp_dir(const std::string& name) { return testing::scratch_folder("compare_test", name); }

// y = x * 2 + c, written either as Mul then Add or as Add(x, x) then Add.
std::string affine(bool as_sum, float c, const std::string& output = "y") {
  ModelBuilder b;
  b.input("x", {2, 3}).output(output, {2, 3});
  b.initializer("two", {1}, {2.f});
  b.initializer("c", {1}, {c});
  if (as_sum) b.node("Add", {"x", "x"}, {"t"});
  else b.node("Mul", {"x", "two"}, {"t"});
  b.node("Add", {"t", "c"}, {output});
  return b.bytes();
}

void write(const fs::path& path, const std::string& bytes) { std::ofstream(path, std::ios::binary) << bytes; }

TEST(CompareCommand, EqualModelsPassAndADifferenceFails) {
  const fs::path dir = temp_dir("affine");
  write(dir / "a.onnx", affine(false, 1.f));
  write(dir / "b.onnx", affine(true, 1.f));
  write(dir / "c.onnx", affine(true, 1.01f));
  std::string out;
  EXPECT_EQ(run_cli("compare " + (dir / "a.onnx").string() + " " + (dir / "b.onnx").string() + " --runs 2", &out), 0)
      << out;
  EXPECT_NE(out.find("all outputs within tolerance"), std::string::npos) << out;
  EXPECT_NE(out.find("0.000e+00"), std::string::npos) << out;

  out.clear();
  EXPECT_EQ(run_cli("compare " + (dir / "a.onnx").string() + " " + (dir / "c.onnx").string(), &out), 1) << out;
  EXPECT_NE(out.find("18 element(s) outside"), std::string::npos) << out;  // 6 per run, 3 runs
  EXPECT_NE(out.find("1.000e-02"), std::string::npos) << out;  // max abs: 1.01 - 1, to the float
  // Within a looser tolerance, the same pair passes.
  out.clear();
  EXPECT_EQ(run_cli("compare " + (dir / "a.onnx").string() + " " + (dir / "c.onnx").string() + " --atol 0.02", &out), 0)
      << out;
  fs::remove_all(dir);
}

TEST(CompareCommand, OutputsOrInputsThatDoNotCorrespondAreErrors) {
  const fs::path dir = temp_dir("names");
  write(dir / "a.onnx", affine(false, 1.f));
  write(dir / "renamed.onnx", affine(false, 1.f, "z"));
  std::string out;
  EXPECT_EQ(run_cli("compare " + (dir / "a.onnx").string() + " " + (dir / "renamed.onnx").string(), &out), 2) << out;
  EXPECT_NE(out.find("A's output 'y' is not an output of B"), std::string::npos) << out;
  out.clear();
  EXPECT_EQ(run_cli("compare " + (dir / "a.onnx").string(), &out), 2) << out;
  EXPECT_NE(out.find("give two models"), std::string::npos) << out;
  out.clear();
  EXPECT_EQ(run_cli("compare " + (dir / "a.onnx").string() + " " + (dir / "missing.onnx").string(), &out), 2) << out;
  fs::remove_all(dir);
}

// y = Gather(table[5, 2], ids), times the mask when `masked`: ids outside [0, 5) make Gather
// fail, and the masked model equals the unmasked one only when the mask is all ones.
std::string embedding(bool masked) {
  ModelBuilder b;
  b.input("ids", {1, 64}, onnx::TensorProto::INT64).input("attention_mask", {1, 64}, onnx::TensorProto::INT64);
  b.output("y", {1, 64, 2});
  b.initializer("table", {5, 2}, {0.f, 1.f, 2.f, 3.f, 4.f, 5.f, 6.f, 7.f, 8.f, 9.f});
  b.node("Gather", {"table", "ids"}, {masked ? "rows" : "y"});
  if (!masked) return b.bytes();
  auto* to = b.node("Cast", {"attention_mask"}, {"m"})->add_attribute();
  to->set_name("to");
  to->set_type(onnx::AttributeProto::INT);
  to->set_i(onnx::TensorProto::FLOAT);
  auto* axes = b.graph->add_initializer();
  axes->set_name("axes");
  axes->set_data_type(onnx::TensorProto::INT64);
  axes->add_dims(1);
  axes->add_int64_data(2);
  b.node("Unsqueeze", {"m", "axes"}, {"m3"});
  b.node("Mul", {"rows", "m3"}, {"y"});
  return b.bytes();
}

TEST(CompareCommand, RandomIdsStayInsideTheTableTheyIndexAndMasksAreOnes) {
  const fs::path dir = temp_dir("ids");
  write(dir / "masked.onnx", embedding(true));
  write(dir / "plain.onnx", embedding(false));
  std::string out;
  EXPECT_EQ(run_cli("compare " + (dir / "masked.onnx").string() + " " + (dir / "plain.onnx").string() + " --runs 5", &out),
            0)
      << out;
  EXPECT_NE(out.find("all outputs within tolerance"), std::string::npos) << out;
  fs::remove_all(dir);
}
#endif

}  // namespace
}  // namespace onyx
