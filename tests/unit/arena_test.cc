// Arena: blocks are reused by size class; the cache of released blocks is capped (by default
// at twice the peak in use), evicts sizes recent releases do not use, and trim() empties it.
#include <gtest/gtest.h>

#include "core/tensor.h"

namespace onyx {
namespace {

TEST(Arena, ReusesReleasedBlocks) {
  Arena arena;
  { auto a = arena.allocate(1000, DataType::kFloat); }
  auto b = arena.allocate(1000, DataType::kFloat);
  EXPECT_EQ(arena.stats().reused_blocks, 1u);
  EXPECT_EQ(arena.stats().bytes_from_system, 1024u);
}

TEST(Arena, CacheStaysWithinTheLimitWhenShapesKeepChanging) {
  Arena arena;
  arena.set_cache_limit(1 << 20);
  // Runs whose tensors have new sizes every time: 100 different size classes up to 256 KB.
  for (int run = 0; run < 100; ++run) {
    std::vector<std::shared_ptr<Buffer>> live;
    for (int k = 1; k <= 4; ++k) live.push_back(arena.allocate(size_t(4096 + run * 2600 * k), DataType::kFloat, false));
  }
  EXPECT_LE(arena.stats().bytes_cached, size_t(1 << 20));
  EXPECT_EQ(arena.stats().bytes_in_use, 0u);
}

TEST(Arena, DefaultLimitIsTwiceThePeak) {
  Arena arena;
  for (int run = 0; run < 50; ++run) {
    std::vector<std::shared_ptr<Buffer>> live;
    live.push_back(arena.allocate(size_t(8192 * (run + 1)), DataType::kFloat, false));
    live.push_back(arena.allocate(size_t(4096 * (run + 3)), DataType::kFloat, false));
  }
  const auto stats = arena.stats();
  EXPECT_LE(stats.bytes_cached, 2 * stats.peak_bytes_in_use);
  EXPECT_GT(stats.bytes_cached, 0u);
}

TEST(Arena, RecentSizesEvictOldOnes) {
  Arena arena;
  arena.set_cache_limit(64 * 1024);
  { auto old_block = arena.allocate(60 * 1024, DataType::kFloat, false); }  // cached: 64 KB class
  { auto recent = arena.allocate(30 * 1024, DataType::kFloat, false); }     // evicts the 64 KB block
  EXPECT_EQ(arena.stats().bytes_cached, 32u * 1024);
  auto again = arena.allocate(30 * 1024, DataType::kFloat, false);
  EXPECT_EQ(arena.stats().reused_blocks, 1u);
}

TEST(Arena, TrimEmptiesTheCacheAndLiveBlocksStayValid) {
  Arena arena;
  auto live = arena.allocate(4096, DataType::kFloat);
  { auto gone = arena.allocate(8192, DataType::kFloat); }
  EXPECT_GT(arena.stats().bytes_cached, 0u);
  arena.trim();
  EXPECT_EQ(arena.stats().bytes_cached, 0u);
  static_cast<float*>(live->data())[1023] = 1.f;  // still ours
  live.reset();
  EXPECT_EQ(arena.stats().bytes_cached, 4096u);  // returns to the cache after the trim
}

TEST(Arena, MaxBytesRefusesWhatCannotFit) {
  Arena arena;
  arena.set_max_bytes(64 * 1024);
  auto a = arena.allocate(40 * 1024, DataType::kFloat, false);  // 64 KB class
  ASSERT_TRUE(a);
  EXPECT_FALSE(arena.allocate(1024, DataType::kFloat, false));  // nothing fits beside it
  EXPECT_EQ(arena.limit(), 64u * 1024);
  a.reset();  // cached now; a request of another size empties the cache to fit
  auto b = arena.allocate(20 * 1024, DataType::kFloat, false);
  EXPECT_TRUE(b);
  EXPECT_EQ(arena.stats().bytes_cached, 0u);
}

}  // namespace
}  // namespace onyx
