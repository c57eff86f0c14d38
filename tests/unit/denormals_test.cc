// DenormalsAsZero (core/parallel.h) and SessionOptions::denormal_as_zero: denormal results
// become zero on the calling thread and in parallel_for's threads while the scope lives, and
// the calling thread's mode comes back after it; a session flushes only when asked.
#include <gtest/gtest.h>

#include <atomic>
#include <cfloat>

#include "core/parallel.h"
#include "model_builder.h"
#include "session/session.h"

namespace onyx {
namespace {

// FLT_MIN / 4 is a denormal; `volatile` keeps the compiler from folding the division.
float quarter_of_smallest_normal() {
  volatile float x = FLT_MIN;
  volatile float four = 4.f;
  return x / four;
}

TEST(DenormalsAsZero, FlushesOnTheCallerAndThePoolThenRestores) {
#if defined(__x86_64__) || defined(__i386__)
  EXPECT_GT(quarter_of_smallest_normal(), 0.f);
  {
    const DenormalsAsZero flush(true);
    EXPECT_EQ(quarter_of_smallest_normal(), 0.f);
    std::atomic<int> nonzero{0};
    set_intra_op_threads(2);
    parallel_for(64, 1, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i)
        if (quarter_of_smallest_normal() != 0.f) ++nonzero;
    });
    EXPECT_EQ(nonzero.load(), 0);
  }
  EXPECT_GT(quarter_of_smallest_normal(), 0.f);
  std::atomic<int> zero{0};
  parallel_for(64, 1, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i)
      if (quarter_of_smallest_normal() == 0.f) ++zero;
  });
  EXPECT_EQ(zero.load(), 0) << "the pool's threads are back to the default mode";
  { const DenormalsAsZero off(false); EXPECT_GT(quarter_of_smallest_normal(), 0.f); }
#else
  GTEST_SKIP() << "denormal flushing is x86-only";
#endif
}

TEST(DenormalsAsZero, ASessionFlushesOnlyWhenAsked) {
#if defined(__x86_64__) || defined(__i386__)
  testing::ModelBuilder b;
  b.input("x", {2}).input("y", {2}).output("z", {2});
  b.node("Mul", {"x", "y"}, {"z"});
  const std::string bytes = b.bytes();
  Tensor x(DataType::kFloat, {2}), y(DataType::kFloat, {2});
  x.data<float>()[0] = x.data<float>()[1] = FLT_MIN;
  y.data<float>()[0] = y.data<float>()[1] = 0.25f;
  for (bool flush : {false, true}) {
    SessionOptions options;
    options.denormal_as_zero = flush;
    auto s = Session::load_bytes(bytes.data(), bytes.size(), options);
    ASSERT_TRUE(s.ok()) << s.status().to_string();
    auto out = (*s)->run({{"x", Value(x)}, {"y", Value(y)}});
    ASSERT_TRUE(out.ok()) << out.status().to_string();
    EXPECT_EQ((*out)[0].tensor().data<float>()[0] == 0.f, flush);
  }
  EXPECT_GT(quarter_of_smallest_normal(), 0.f);
#else
  GTEST_SKIP() << "denormal flushing is x86-only";
#endif
}

}  // namespace
}  // namespace onyx
