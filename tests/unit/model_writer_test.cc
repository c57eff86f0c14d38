// The ONNX writer and SessionOptions::optimized_model_filepath: the optimised graph saved and
// loaded again gives the same outputs, bit for bit (subgraphs, every attribute type, contrib
// ops and layouts included), with or without external data; bad external-data names refuse.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "model_builder.h"
#include "onnx/loader.h"
#include "onnx/writer.h"
#include "session/session.h"

namespace onyx {
namespace {

namespace fs = std::filesystem;
const std::string kData = "/usr/share/libonnx-testdata/data/";

fs::path scratch_dir(const std::string& name) {
  fs::path dir = fs::temp_directory_path() / ("onyx_writer_test_" + std::to_string(::getpid()) + "_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::vector<std::pair<std::string, Value>> case_feeds(const Session& s, const std::string& dir) {
  std::vector<std::pair<std::string, Value>> feeds;
  size_t k = 0;
  for (const auto& vi : s.inputs()) {
    if (s.input_has_default(vi.name)) continue;
    auto v = onnx_format::load_value_file(dir + "/test_data_set_0/input_" + std::to_string(k++) + ".pb", vi.type);
    EXPECT_TRUE(v.ok()) << v.status().to_string();
    if (v.ok()) feeds.emplace_back(vi.name, *v);
  }
  return feeds;
}

void expect_same(const std::vector<Value>& a, const std::vector<Value>& b, const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a[i].describe(), b[i].describe()) << what << " output " << i;
    if (!a[i].is_tensor() || a[i].tensor().dtype() == DataType::kString) continue;
    EXPECT_EQ(std::memcmp(a[i].tensor().raw_data(), b[i].tensor().raw_data(), a[i].tensor().nbytes()), 0)
        << what << " output " << i;
  }
}

// Saves the optimised graph of each case, loads it back without optimisation, and compares.
class SavedCase : public ::testing::TestWithParam<const char*> {};

TEST_P(SavedCase, ReloadsWithTheSameOutputs) {
  const std::string dir = kData + GetParam();
  if (!fs::exists(dir + "/model.onnx")) GTEST_SKIP() << dir << " is not installed";
  const fs::path out = scratch_dir(fs::path(GetParam()).filename().string());
  SessionOptions save;
  save.optimized_model_filepath = (out / "optimized.onnx").string();
  auto original = Session::load_file(dir + "/model.onnx", save);
  ASSERT_TRUE(original.ok()) << original.status().to_string();
  SessionOptions plain;
  plain.graph_optimization_level = 0;
  auto reloaded = Session::load_file(save.optimized_model_filepath, plain);
  ASSERT_TRUE(reloaded.ok()) << reloaded.status().to_string();
  auto feeds = case_feeds(**original, dir);
  auto a = (*original)->run(feeds);
  auto b = (*reloaded)->run(feeds);
  ASSERT_TRUE(a.ok()) << a.status().to_string();
  ASSERT_TRUE(b.ok()) << b.status().to_string();
  expect_same(*a, *b, GetParam());
  fs::remove_all(out);
}

INSTANTIATE_TEST_SUITE_P(
    BackendCases, SavedCase,
    ::testing::Values("node/test_loop11", "node/test_if_seq", "node/test_scan9_sum", "node/test_constant",
                      "node/test_strnormalizer_export_monday_casesensintive_lower",
                      "node/test_resize_downsample_scales_linear", "node/test_optional_get_element_sequence",
                      "node/test_sequence_insert_at_back", "pytorch-converted/test_Conv2d_groups",
                      "pytorch-converted/test_BatchNorm2d_eval", "pytorch-operator/test_operator_maxpool",
                      "node/test_layer_normalization_4d_axis1", "node/test_gru_defaults"),
    [](const ::testing::TestParamInfo<const char*>& info) {
      std::string name = fs::path(info.param).filename().string();
      for (char& c : name)
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
      return name;
    });

// x[1,3,8,8] -> Conv(w, b) -> Relu -> y: fused and made channels-last at level 99.
std::string conv_relu_model() {
  testing::ModelBuilder b(13);
  b.input("x", {1, 3, 8, 8}).output("y", {1, 4, 8, 8});
  std::vector<float> w(4 * 3 * 3 * 3), bias(4);
  for (size_t i = 0; i < w.size(); ++i) w[i] = float(int(i * 7 % 11) - 5) * 0.125f;
  for (size_t i = 0; i < bias.size(); ++i) bias[i] = float(i) * 0.5f - 1.f;
  b.initializer("w", {4, 3, 3, 3}, w);
  b.initializer("b", {4}, bias);
  auto* conv = b.node("Conv", {"x", "w", "b"}, {"c"}, "conv");
  auto* pads = conv->add_attribute();
  pads->set_name("pads");
  pads->set_type(onnx::AttributeProto::INTS);
  for (int i = 0; i < 4; ++i) pads->add_ints(1);
  b.node("Relu", {"c"}, {"y"}, "relu");
  return b.bytes();
}

Tensor ramp(const Shape& shape) {
  Tensor t(DataType::kFloat, shape);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = float(i % 13) * 0.25f - 1.5f;
  return t;
}

TEST(OptimizedModel, ContribOpsAndExternalDataReload) {
  const fs::path out = scratch_dir("conv");
  const std::string bytes = conv_relu_model();
  SessionOptions save;
  save.optimized_model_filepath = (out / "conv_opt.onnx").string();
  save.optimized_model_external_data_file = "conv_opt.weights";
  save.optimized_model_external_min_bytes = 64;  // w (432 bytes) goes out, b (16 bytes) stays
  auto original = Session::load_bytes(bytes.data(), bytes.size(), save);
  ASSERT_TRUE(original.ok()) << original.status().to_string();
  ASSERT_TRUE(fs::exists(out / "conv_opt.weights"));
  EXPECT_EQ(fs::file_size(out / "conv_opt.weights"), 432u);

  auto saved = onnx_format::load_model_file(save.optimized_model_filepath);
  ASSERT_TRUE(saved.ok()) << saved.status().to_string();
  bool contrib = false;
  for (const auto& n : saved->graph.nodes) contrib = contrib || n.domain == "com.microsoft";
  EXPECT_TRUE(contrib) << "the saved graph should hold the fused com.microsoft convolution";
  EXPECT_EQ(saved->opset("com.microsoft"), 1);

  SessionOptions plain;
  plain.graph_optimization_level = 0;
  auto reloaded = Session::load_file(save.optimized_model_filepath, plain);
  ASSERT_TRUE(reloaded.ok()) << reloaded.status().to_string();
  std::vector<std::pair<std::string, Value>> feeds{{"x", Value(ramp({1, 3, 8, 8}))}};
  auto a = (*original)->run(feeds);
  auto b = (*reloaded)->run(feeds);
  ASSERT_TRUE(a.ok() && b.ok());
  expect_same(*a, *b, "conv");

  SessionOptions unoptimised;
  unoptimised.graph_optimization_level = 0;
  auto reference = Session::load_bytes(bytes.data(), bytes.size(), unoptimised);
  ASSERT_TRUE(reference.ok());
  auto c = (*reference)->run(feeds);
  ASSERT_TRUE(c.ok());
  const Tensor& y = (*b)[0].tensor();
  for (int64_t i = 0; i < y.numel(); ++i)
    EXPECT_NEAR(y.data<float>()[i], (*c)[0].tensor().data<float>()[i], 1e-5) << i;
  fs::remove_all(out);
}

TEST(OptimizedModel, ExternalDataNameMustStayInTheFolder) {
  const fs::path out = scratch_dir("bad");
  const std::string bytes = conv_relu_model();
  for (const char* bad : {"../escape.bin", "/tmp/absolute.bin", "sub/../../escape.bin"}) {
    SessionOptions save;
    save.optimized_model_filepath = (out / "m.onnx").string();
    save.optimized_model_external_data_file = bad;
    auto s = Session::load_bytes(bytes.data(), bytes.size(), save);
    ASSERT_FALSE(s.ok()) << bad;
    EXPECT_EQ(s.status().code(), StatusCode::kInvalidArgument) << s.status().to_string();
  }
  SessionOptions unwritable;
  unwritable.optimized_model_filepath = (out / "no_such_dir" / "m.onnx").string();
  auto s = Session::load_bytes(bytes.data(), bytes.size(), unwritable);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().to_string().find("no_such_dir"), std::string::npos) << s.status().to_string();
  fs::remove_all(out);
}

#ifdef ONYX_CLI
TEST(OptimizedModel, CommandLineSavesIt) {
  const fs::path out = scratch_dir("cli");
  {
    std::ofstream model(out / "conv.onnx", std::ios::binary);
    model << conv_relu_model();
  }
  const std::string cmd = std::string(ONYX_CLI) + " run " + (out / "conv.onnx").string() +
                          " --random-inputs --save-optimized " + (out / "opt.onnx").string() +
                          " --save-optimized-external opt.weights > /dev/null";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  ASSERT_TRUE(fs::exists(out / "opt.weights"));
  auto reloaded = Session::load_file((out / "opt.onnx").string());
  ASSERT_TRUE(reloaded.ok()) << reloaded.status().to_string();
  auto y = (*reloaded)->run({{"x", Value(ramp({1, 3, 8, 8}))}});
  ASSERT_TRUE(y.ok()) << y.status().to_string();
  fs::remove_all(out);
}
#endif

}  // namespace
}  // namespace onyx
