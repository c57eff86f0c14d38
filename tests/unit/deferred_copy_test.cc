// Buffer::deferred_copy (an initializer misaligned in the mapped model file): the aligned copy
// is made once, on first data(), from any number of threads; bytes_in_place() hands out the
// bytes without making it; weight packing reads a misaligned weight without copying it
// into the model, and a session over such a file computes what the file says.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>
#include <vector>

#include "kernels/onednn_matmul.h"
#include "model_builder.h"
#include "onnx/loader.h"
#include "onnx/raw_data_lift.h"
#include "session/session.h"

namespace onyx {
namespace {

namespace fs = std::filesystem;
using testing::ModelBuilder;

// Bytes of n floats 0.5 * (i % 7) - 1, kept at offset 1 of `storage` (misaligned for float).
struct MisalignedFloats {
  explicit MisalignedFloats(size_t n) : storage(n * sizeof(float) + 1, '\0') {
    for (size_t i = 0; i < n; ++i) {
      const float v = 0.5f * float(i % 7) - 1.f;
      std::memcpy(&storage[1 + i * sizeof(float)], &v, sizeof(float));
    }
  }
  const char* bytes() const { return storage.data() + 1; }
  std::string storage;
};

std::shared_ptr<Buffer> deferred_over(const MisalignedFloats& src, size_t n, std::atomic<int>& copies) {
  const char* from = src.bytes();
  return Buffer::deferred_copy(from, n * sizeof(float), nullptr, [from, n, &copies](void* to) {
    copies.fetch_add(1);
    std::memcpy(to, from, n * sizeof(float));
  });
}

TEST(DeferredCopy, FirstDataMakesOneAlignedCopy) {
  MisalignedFloats src(100);
  std::atomic<int> copies{0};
  auto buffer = deferred_over(src, 100, copies);
  EXPECT_TRUE(buffer->copy_pending());
  EXPECT_EQ(buffer->bytes_in_place(), static_cast<const void*>(src.bytes()));
  EXPECT_EQ(copies.load(), 0);

  const Tensor t(DataType::kFloat, {100}, buffer);
  const float* data = t.data<float>();
  EXPECT_EQ(copies.load(), 1);
  EXPECT_FALSE(t.copy_pending());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(data) % 64, 0u);
  EXPECT_EQ(std::memcmp(data, src.bytes(), 400), 0);
  EXPECT_EQ(t.bytes_in_place(), static_cast<const void*>(data));  // the copy from now on
  EXPECT_EQ(t.data<float>(), data);
  EXPECT_EQ(copies.load(), 1);
}

TEST(DeferredCopy, ManyThreadsSeeOneCopy) {
  MisalignedFloats src(4096);
  std::atomic<int> copies{0};
  auto buffer = deferred_over(src, 4096, copies);
  std::vector<const void*> seen(8, nullptr);
  std::vector<std::thread> threads;
  for (size_t i = 0; i < seen.size(); ++i) threads.emplace_back([&, i] { seen[i] = buffer->data(); });
  for (auto& th : threads) th.join();
  EXPECT_EQ(copies.load(), 1);
  for (const void* p : seen) EXPECT_EQ(p, seen[0]);
  EXPECT_EQ(std::memcmp(seen[0], src.bytes(), 4096 * sizeof(float)), 0);
}

TEST(DeferredCopy, PackingReadsAPendingWeightWithoutCopyingIt) {
  const int64_t k = 24, n = 40, m = 3;
  MisalignedFloats src(size_t(k * n));
  std::atomic<int> copies{0};
  const Tensor w(DataType::kFloat, {k, n}, deferred_over(src, size_t(k * n), copies));
  auto packed = onednn::MatMul::pack_constant_b(w, /*trans_b=*/false, m);
  ASSERT_TRUE(packed.ok()) << packed.status().to_string();
  EXPECT_TRUE(w.copy_pending());  // packed from the misaligned bytes themselves

  onednn::MatMul product{onednn::MatMulEpilogue{}};
  product.use_packed_b(*packed);
  std::vector<float> a(size_t(m * k)), y(size_t(m * n), 0.f);
  for (size_t i = 0; i < a.size(); ++i) a[i] = float(int(i % 5) - 2);
  ASSERT_TRUE(product.run(onednn::MatMulShape{{m, k}, {k, n}, false, false}, a.data(), nullptr, nullptr, y.data()).ok());
  EXPECT_TRUE(w.copy_pending());
  std::vector<float> wf(size_t(k * n));
  std::memcpy(wf.data(), src.bytes(), wf.size() * sizeof(float));
  for (int64_t r = 0; r < m; ++r)
    for (int64_t c = 0; c < n; ++c) {
      double want = 0;
      for (int64_t t = 0; t < k; ++t) want += double(a[size_t(r * k + t)]) * wf[size_t(t * n + c)];
      ASSERT_NEAR(y[size_t(r * n + c)], want, 1e-4) << r << "," << c;
    }
}

// y = (x @ W) + b from a file where W [32, 48] sits at a misaligned offset: the loaded W is a
// pending copy, and the session's output is the file's product.
TEST(DeferredCopy, SessionOverAMisalignedWeightComputesTheFilesProduct) {
  const fs::path dir = fs::temp_directory_path() / ("onyx_deferred_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const int64_t k = 32, n = 48;
  MisalignedFloats w_values(size_t(k * n));
  std::string file;
  for (size_t pad = 0; pad < 8 && file.empty(); ++pad) {
    ModelBuilder b;
    b.model.set_producer_name(std::string(1 + pad, 'p'));
    b.input("x", {2, k}).output("y", {2, n});
    auto* w = b.graph->add_initializer();
    w->set_name("W");
    w->set_data_type(onnx::TensorProto::FLOAT);
    w->add_dims(k);
    w->add_dims(n);
    w->set_raw_data(std::string(w_values.bytes(), size_t(k * n) * sizeof(float)));
    b.initializer("bias", {n}, std::vector<float>(size_t(n), 0.25f));
    b.node("MatMul", {"x", "W"}, {"xw"});
    b.node("Add", {"xw", "bias"}, {"y"});
    const std::string bytes = b.bytes();
    auto skeleton = onnx_format::lift_raw_data(bytes.data(), bytes.size(), 1024);
    if (skeleton && skeleton->lifted.size() == 1 && skeleton->lifted[0].offset % 4 != 0) file = bytes;
  }
  ASSERT_FALSE(file.empty());
  const fs::path path = dir / "model.onnx";
  std::ofstream(path, std::ios::binary) << file;

  auto model = onnx_format::load_model_file(path.string());
  ASSERT_TRUE(model.ok()) << model.status().to_string();
  EXPECT_TRUE(model->graph.initializers.at("W").copy_pending());

  auto session = Session::load_file(path.string());
  ASSERT_TRUE(session.ok()) << session.status().to_string();
  Tensor x(DataType::kFloat, {2, k});
  for (int64_t i = 0; i < 2 * k; ++i) x.data<float>()[i] = float(i % 3) - 1.f;
  auto out = (*session)->run({{"x", Value(x)}});
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  const Tensor& y = out->at(0).tensor();
  std::vector<float> wf(size_t(k * n));
  std::memcpy(wf.data(), w_values.bytes(), wf.size() * sizeof(float));
  for (int64_t r = 0; r < 2; ++r)
    for (int64_t c = 0; c < n; ++c) {
      double want = 0.25;
      for (int64_t t = 0; t < k; ++t) want += double(x.data<float>()[r * k + t]) * wf[size_t(t * n + c)];
      ASSERT_NEAR(y.data<float>()[r * n + c], want, 1e-4) << r << "," << c;
    }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace onyx
