// CudaArena on a device: a request of a cached size takes the cached block; a miss takes a new
// block from the arena's pool; a block pushed out of the cache by the memory cap goes back to
// the pool and the memory handed out after it still holds what is written to it; a recording
// (hold) takes plain cudaMalloc blocks and keeps them; trim() empties the cache. Skipped
// without a device.
#include <gtest/gtest.h>

#ifdef ONYX_WITH_CUDA
#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "cuda_test_support.h"
#include "providers/cuda/cuda_arena.h"

namespace onyx {
namespace {

constexpr size_t kMiB = size_t(1) << 20;

class CudaArenaTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!cuda_test::have_device()) GTEST_SKIP() << "no CUDA device";
    ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
    ASSERT_EQ(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), cudaSuccess);
  }
  void TearDown() override {
    if (stream_) cudaStreamDestroy(stream_);
  }

  // Writes `n` distinct bytes into `device` through the stream and reads them back.
  void expect_round_trip(void* device, size_t n) {
    std::vector<uint8_t> in(n), out(n, 0);
    for (size_t i = 0; i < n; ++i) in[i] = uint8_t(i * 7 + 3);
    ASSERT_EQ(cudaMemcpyAsync(device, in.data(), n, cudaMemcpyHostToDevice, stream_), cudaSuccess);
    ASSERT_EQ(cudaMemcpyAsync(out.data(), device, n, cudaMemcpyDeviceToHost, stream_), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(stream_), cudaSuccess);
    EXPECT_EQ(in, out);
  }

  cudaStream_t stream_ = nullptr;
};

TEST_F(CudaArenaTest, CachedSizesAreReusedAndMissesComeFromTheDevice) {
  CudaArena arena(0, stream_, 0);
  void* first = nullptr;
  {
    auto a = arena.allocate(3 * kMiB, DataType::kUInt8, false);
    ASSERT_TRUE(a);
    first = a->data();
    expect_round_trip(a->data(), 3 * kMiB);
  }
  auto again = arena.allocate(3 * kMiB - 100, DataType::kUInt8, false);  // rounds to the same 3 MiB
  ASSERT_TRUE(again);
  EXPECT_EQ(again->data(), first);
  auto other = arena.allocate(5 * kMiB, DataType::kUInt8, false);
  ASSERT_TRUE(other);
  expect_round_trip(other->data(), 5 * kMiB);
  const CudaArena::Stats s = arena.stats();
  EXPECT_EQ(s.reused_blocks, 1u);
  EXPECT_EQ(s.device_allocations, 2u);
  EXPECT_EQ(s.device_frees, 0u);
}

TEST_F(CudaArenaTest, ABlockPushedOutByTheCapIsFreedAndTheNextOneHoldsItsData) {
  CudaArena arena(0, stream_, 8 * kMiB);
  { auto a = arena.allocate(6 * kMiB, DataType::kUInt8, false); ASSERT_TRUE(a); }
  EXPECT_EQ(arena.stats().bytes_cached, 6 * kMiB);
  auto b = arena.allocate(4 * kMiB, DataType::kUInt8, true);  // 6 + 4 > 8: the cached block goes
  ASSERT_TRUE(b);
  std::vector<uint8_t> zeros(4 * kMiB, 1);
  ASSERT_EQ(cudaMemcpyAsync(zeros.data(), b->data(), zeros.size(), cudaMemcpyDeviceToHost, stream_), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(stream_), cudaSuccess);
  EXPECT_EQ(zeros, std::vector<uint8_t>(4 * kMiB, 0)) << "zero_fill";
  expect_round_trip(b->data(), 4 * kMiB);
  CudaArena::Stats s = arena.stats();
  EXPECT_EQ(s.device_frees, 1u);
  EXPECT_EQ(s.bytes_cached, 0u);
  EXPECT_EQ(s.bytes_in_use, 4 * kMiB);
  EXPECT_FALSE(arena.allocate(5 * kMiB, DataType::kUInt8, false)) << "4 + 5 MiB passes the cap";
  b.reset();
  arena.trim();
  EXPECT_EQ(arena.stats().bytes_cached, 0u);
  EXPECT_EQ(arena.stats().device_frees, 2u);
}

TEST_F(CudaArenaTest, AHoldKeepsItsBlocksUntilItsKeepersGo) {
  CudaArena arena(0, stream_, 0);
  arena.begin_hold();
  void* held_ptr = nullptr;
  {
    auto a = arena.allocate(2 * kMiB, DataType::kUInt8, false);
    ASSERT_TRUE(a);
    held_ptr = a->data();
    expect_round_trip(a->data(), 2 * kMiB);
  }
  std::vector<std::shared_ptr<void>> keepers = arena.end_hold();
  ASSERT_EQ(keepers.size(), 1u);
  auto b = arena.allocate(2 * kMiB, DataType::kUInt8, false);
  ASSERT_TRUE(b);
  EXPECT_NE(b->data(), held_ptr) << "a held block must not be handed out again";
  b.reset();
  keepers.clear();
  auto c = arena.allocate(2 * kMiB, DataType::kUInt8, false);
  ASSERT_TRUE(c);
  expect_round_trip(c->data(), 2 * kMiB);
  EXPECT_EQ(arena.stats().device_allocations, 2u);
}

}  // namespace
}  // namespace onyx

#endif  // ONYX_WITH_CUDA
