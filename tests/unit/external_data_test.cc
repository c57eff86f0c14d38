// External data beyond the basics in loader_test: a model whose external file is over 2 GB
// (sparse on disk), external files held in memory for models loaded from bytes, the
// ExternalDataLoader hook, and sessions made from one loaded model without re-parsing.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "model_builder.h"
#include "process_stats.h"
#include "onnx/loader.h"
#include "providers/external_data_loader.h"
#include "session/session.h"

namespace onyx {
namespace {

namespace fs = std::filesystem;
using testing::ModelBuilder;

fs::path scratch_dir(const std::string& name) {
  fs::path dir = fs::temp_directory_path() / ("onyx_external_test_" + std::to_string(::getpid()) + "_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}


// big: float[575,000,000] (2.3 GB) at offset 0; tail: float[4] at offset 2,300,000,000 (past
// 2^31). y = Gather(big, idx); t = tail + 0.
TEST(ExternalData, ModelOverTwoGigabytesIsMappedNotCopied) {
  const fs::path dir = scratch_dir("big");
  constexpr int64_t kBig = 575'000'000, kTailOffset = 2'300'000'000;
  {
    const int fd = ::open((dir / "weights.bin").c_str(), O_CREAT | O_RDWR | O_TRUNC, 0600);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::ftruncate(fd, kTailOffset + 16), 0);  // sparse: only the pages written below use disk
    const float last = 7.5f, tail[4] = {1, 2, 3, 42};
    ASSERT_EQ(::pwrite(fd, &last, 4, (kBig - 1) * 4), 4);
    ASSERT_EQ(::pwrite(fd, tail, 16, kTailOffset), 16);
    ::close(fd);
  }
  ModelBuilder b;
  b.input("idx", {1}, onnx::TensorProto::INT64).output("y", {1}).output("t", {4});
  b.external_initializer("big", {kBig}, "weights.bin", 0, kBig * 4);
  b.external_initializer("tail", {4}, "weights.bin", kTailOffset, 16);
  b.initializer("zero", {1}, {0.f});
  b.node("Gather", {"big", "idx"}, {"y"});
  b.node("Add", {"tail", "zero"}, {"t"});
  {
    std::ofstream out(dir / "model.onnx", std::ios::binary);
    out << b.bytes();
  }
  const int64_t before = testing::rss_kb();
  auto s = Session::load_file((dir / "model.onnx").string());
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  Tensor idx(DataType::kInt64, {1});
  idx.data<int64_t>()[0] = kBig - 1;
  auto out = (*s)->run({{"idx", Value(idx)}});
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  EXPECT_EQ((*out)[0].tensor().data<float>()[0], 7.5f);
  EXPECT_EQ((*out)[1].tensor().data<float>()[3], 42.f);
  const int64_t grown_mb = (testing::rss_kb() - before) / 1024;
  EXPECT_LT(grown_mb, 200) << "loading a 2.3 GB external file must map it, not read it";
  s = Status(StatusCode::kInternal, "released");
  fs::remove_all(dir);
}

// y = x + w, w float[4] external in "w.bin" at offset 8.
std::string add_external_model() {
  ModelBuilder b;
  b.input("x", {4}).output("y", {4});
  b.external_initializer("w", {4}, "w.bin", 8, 16);
  b.node("Add", {"x", "w"}, {"y"});
  return b.bytes();
}

std::shared_ptr<Buffer> held_file(std::vector<float>& storage) {
  return std::make_shared<Buffer>(storage.data(), storage.size() * sizeof(float), nullptr);
}

Tensor ones() {
  Tensor x(DataType::kFloat, {4});
  for (int i = 0; i < 4; ++i) x.data<float>()[i] = 1;
  return x;
}

TEST(ExternalData, FileHeldInMemoryServesAModelLoadedFromBytes) {
  std::vector<float> file = {-1, -1, 10, 20, 30, 40};  // 8 bytes of padding, then w
  SessionOptions o;
  o.add_external_data_file_in_memory("w.bin", held_file(file));
  o.graph_optimization_level = 0;
  const std::string bytes = add_external_model();
  auto s = Session::load_bytes(bytes.data(), bytes.size(), o);
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  EXPECT_EQ((*s)->model().graph.initializers.at("w").raw_data(), static_cast<const void*>(&file[2]));  // no copy
  auto out = (*s)->run({{"x", Value(ones())}});
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  EXPECT_EQ((*out)[0].tensor().data<float>()[3], 41.f);

  auto missing = Session::load_bytes(bytes.data(), bytes.size());  // no folder, nothing held
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().to_string().find("hold the file in memory"), std::string::npos)
      << missing.status().to_string();
  std::vector<float> short_file = {1, 2, 3};
  SessionOptions short_o;
  short_o.add_external_data_file_in_memory("w.bin", held_file(short_file));
  auto past_end = Session::load_bytes(bytes.data(), bytes.size(), short_o);
  ASSERT_FALSE(past_end.ok());
  EXPECT_NE(past_end.status().to_string().find("past the end"), std::string::npos) << past_end.status().to_string();
}

// A test loader standing in for a device: it places a doubled copy, so the outputs show that
// kernels read what the loader returned, and it records what it was given.
class DoublingLoader final : public ExternalDataLoader {
 public:
  std::string name() const override { return "test-doubling"; }
  Result<Tensor> load(const std::string& name, const Tensor& mapped, const ir::ExternalDataRef& ref) const override {
    calls.push_back(name + "@" + ref.location + ":" + std::to_string(ref.offset) + "+" + std::to_string(ref.length));
    Tensor placed(mapped.dtype(), mapped.shape());
    for (int64_t i = 0; i < mapped.numel(); ++i) placed.data<float>()[i] = 2 * mapped.data<float>()[i];
    return placed;
  }
  mutable std::vector<std::string> calls;
};

TEST(ExternalData, LoaderPlacesEachExternalInitializer) {
  std::vector<float> file = {0, 0, 1, 2, 3, 4};
  auto loader = std::make_shared<DoublingLoader>();
  SessionOptions o;
  o.add_external_data_file_in_memory("w.bin", held_file(file));
  o.external_data_loader = loader;
  const std::string bytes = add_external_model();
  auto s = Session::load_bytes(bytes.data(), bytes.size(), o);
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  EXPECT_EQ(loader->calls, (std::vector<std::string>{"w@w.bin:8+16"}));
  auto out = (*s)->run({{"x", Value(ones())}});
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  EXPECT_EQ((*out)[0].tensor().data<float>()[0], 3.f);  // 1 + 2 * 1
  EXPECT_EQ((*out)[0].tensor().data<float>()[3], 9.f);  // 1 + 2 * 4
  EXPECT_EQ(ExternalDataLoaderRegistry::global().get(Device::Type::kCpu)->name(), "cpu-mmap");
}

// y = (x + base) * adapter: one loaded model, two adapters, no second parse, base shared.
TEST(ExternalData, SessionsFromOneLoadedModelShareItsWeights) {
  ModelBuilder b;
  b.input("x", {2}).output("y", {2});
  b.initializer("base", {2}, {1, 2});
  b.initializer("adapter", {2}, {1, 1});
  b.node("Add", {"x", "base"}, {"s"});
  b.node("Mul", {"s", "adapter"}, {"y"});
  const std::string bytes = b.bytes();
  auto model = onnx_format::load_model_bytes(bytes.data(), bytes.size(), "");
  ASSERT_TRUE(model.ok()) << model.status().to_string();
  std::vector<float> a1 = {10, 10}, a2 = {-1, 3};
  auto with_adapter = [&](std::vector<float>& a) {
    SessionOptions o;
    o.graph_optimization_level = 0;
    auto adapter = Tensor::borrow(DataType::kFloat, {2}, a.data(), 8);
    EXPECT_TRUE(adapter.ok());
    o.add_initializer("adapter", adapter.value());
    return Session::from_loaded_model(*model, o);
  };
  auto s1 = with_adapter(a1), s2 = with_adapter(a2);
  ASSERT_TRUE(s1.ok() && s2.ok());
  Tensor x(DataType::kFloat, {2});
  auto y1 = (*s1)->run({{"x", Value(x)}}), y2 = (*s2)->run({{"x", Value(x)}});
  ASSERT_TRUE(y1.ok() && y2.ok());
  EXPECT_EQ((*y1)[0].tensor().data<float>()[1], 20.f);
  EXPECT_EQ((*y2)[0].tensor().data<float>()[1], 6.f);
  const void* base = model->graph.initializers.at("base").raw_data();
  EXPECT_EQ((*s1)->model().graph.initializers.at("base").raw_data(), base);
  EXPECT_EQ((*s2)->model().graph.initializers.at("base").raw_data(), base);
  EXPECT_EQ(model->graph.initializers.at("adapter").data<float>()[0], 1.f);  // the loaded model is unchanged
}

}  // namespace
}  // namespace onyx
