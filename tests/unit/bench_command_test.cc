// `onyx bench` end to end through the built binary: the timing report and its JSON,
// --device-io's requirements (a device provider; one that cannot run here is a clear error),
// the report of the sizes chosen for symbolic dims of random inputs, and --disable-optimizer.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli_runner.h"
#include "model_builder.h"

namespace onyx {
namespace {

#ifdef ONYX_CLI
using testing::run_cli;

TEST(BenchCommand, ReportsLatencyAndWritesJson) {
  const auto dir = testing::scratch_folder("bench_test", "report");
  const std::string model = (dir / "m.onnx").string(), json = (dir / "r.json").string();
  testing::ModelBuilder b;
  b.input("x", {2, 3}).output("y", {2, 3});
  b.node("Relu", {"x"}, {"y"});
  std::ofstream(model, std::ios::binary) << b.bytes();
  std::string text;
  ASSERT_EQ(run_cli("bench " + model + " --runs 3 --warmup 1 --json " + json, &text), 0) << text;
  EXPECT_NE(text.find("over 3 runs"), std::string::npos) << text;
  std::stringstream written;
  written << std::ifstream(json).rdbuf();
  EXPECT_NE(written.str().find("\"median_ms\""), std::string::npos) << written.str();

  text.clear();
  EXPECT_EQ(run_cli("bench " + model + " --device-io", &text), 2) << text;
  EXPECT_NE(text.find("--device-io needs a device provider (--provider cuda)"), std::string::npos) << text;
  // Here CUDA cannot run (no device, or a build without it): the session says so, no fallback.
  text.clear();
  if (run_cli("providers --require cuda", &text) != 0) {
    text.clear();
    EXPECT_EQ(run_cli("bench " + model + " --provider cuda --device-io --runs 1", &text), 1) << text;
    EXPECT_NE(text.find("CUDA"), std::string::npos) << text;
  }
}

// A first bench of a BERT-like model once ran sequence length 1 without a word: the sizes
// chosen for symbolic dims are printed, --batch and --seq choose them.
TEST(BenchCommand, ReportsTheSizesChosenForSymbolicDims) {
  const auto dir = testing::scratch_folder("bench_test", "dims");
  const std::string model = (dir / "m.onnx").string();
  testing::ModelBuilder b;
  b.input("ids", {-1, -1}, onnx::TensorProto::INT64).output("y", {-1, -1, 3});
  auto* shape = b.graph->mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape();
  shape->mutable_dim(0)->set_dim_param("batch");
  shape->mutable_dim(1)->set_dim_param("sequence");
  b.initializer("table", {2, 3}, {0.f, 1.f, 2.f, 3.f, 4.f, 5.f});
  b.node("Gather", {"table", "ids"}, {"y"});
  std::ofstream(model, std::ios::binary) << b.bytes();
  std::string text;
  ASSERT_EQ(run_cli("bench " + model + " --runs 1 --warmup 0 --batch 2 --seq 8", &text), 0) << text;
  EXPECT_NE(text.find("random input 'ids': int64[2,8] (batch=2, sequence=8)\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("not given is 1"), std::string::npos) << text;
  text.clear();
  ASSERT_EQ(run_cli("bench " + model + " --runs 1 --warmup 0", &text), 0) << text;
  EXPECT_NE(text.find("random input 'ids': int64[1,1] (batch=1, sequence=1)\n"), std::string::npos) << text;
  EXPECT_NE(text.find("a symbolic dim not given is 1; choose with --batch N, --seq N or --free-dim NAME=VALUE"),
            std::string::npos)
      << text;
  std::filesystem::remove_all(dir);
}
// --disable-optimizer leaves the pass out (seen in the saved graph); an unknown name is an error
// that lists the passes.
TEST(BenchCommand, DisableOptimizerLeavesThePassOut) {
  const auto dir = testing::scratch_folder("bench_test", "disable");
  const std::string model = (dir / "m.onnx").string(), saved = (dir / "opt.onnx").string();
  testing::ModelBuilder b;
  b.input("x", {2, 3}).output("y", {2, 3});
  b.node("Identity", {"x"}, {"i"});
  b.node("Relu", {"i"}, {"y"});
  std::ofstream(model, std::ios::binary) << b.bytes();
  auto saved_ops = [&] {
    onnx::ModelProto m;
    std::ifstream in(saved, std::ios::binary);
    EXPECT_TRUE(m.ParseFromIstream(&in));
    std::string ops;
    for (const auto& n : m.graph().node()) ops += n.op_type() + " ";
    return ops;
  };
  std::string text;
  ASSERT_EQ(run_cli("bench " + model + " --runs 1 --warmup 0 --save-optimized " + saved, &text), 0) << text;
  EXPECT_EQ(saved_ops(), "Relu ");
  text.clear();
  ASSERT_EQ(run_cli("bench " + model + " --runs 1 --warmup 0 --disable-optimizer identity_elimination --save-optimized " +
                        saved, &text), 0)
      << text;
  EXPECT_EQ(saved_ops(), "Identity Relu ");
  text.clear();
  EXPECT_NE(run_cli("bench " + model + " --runs 1 --disable-optimizer no_such_pass", &text), 0) << text;
  EXPECT_NE(text.find("no_such_pass"), std::string::npos) << text;
  EXPECT_NE(text.find("identity_elimination"), std::string::npos) << text;
}

#endif

}  // namespace
}  // namespace onyx
