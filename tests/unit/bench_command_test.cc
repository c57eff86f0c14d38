// `onyx bench` end to end through the built binary: the timing report and its JSON, and
// --device-io's requirements (a device provider; one that cannot run here is a clear error).
#include <gtest/gtest.h>

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
#endif

}  // namespace
}  // namespace onyx
