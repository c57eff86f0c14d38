// Session::run is const and safe for concurrent callers: many threads running one session
// get the same answers as one thread does.
#include <gtest/gtest.h>

#include <thread>

#include "onnx/loader.h"
#include "session/session.h"

namespace onyx {
namespace {

constexpr const char* kCase = "/usr/share/libonnx-testdata/data/node/test_loop11";  // Loop with a subgraph
constexpr const char* kConvCase = "/usr/share/libonnx-testdata/data/pytorch-converted/test_Conv2d";

void run_concurrently(const std::string& dir) {
  auto session = Session::load_file(dir + "/model.onnx");
  ASSERT_TRUE(session.ok()) << session.status().to_string();
  const Session& s = **session;
  std::vector<std::pair<std::string, Value>> feeds;
  size_t k = 0;
  for (const auto& vi : s.inputs()) {
    if (s.input_has_default(vi.name)) continue;
    auto v = onnx_format::load_value_file(dir + "/test_data_set_0/input_" + std::to_string(k++) + ".pb", vi.type);
    ASSERT_TRUE(v.ok()) << v.status().to_string();
    feeds.emplace_back(vi.name, *v);
  }
  auto reference = s.run(feeds);
  ASSERT_TRUE(reference.ok()) << reference.status().to_string();
  const Tensor& want = (*reference)[0].tensor();

  constexpr int kThreads = 8, kRuns = 20;
  std::vector<int> mismatches(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int r = 0; r < kRuns; ++r) {
        auto out = s.run(feeds);
        if (!out.ok() || (*out)[0].tensor().nbytes() != want.nbytes() ||
            std::memcmp((*out)[0].tensor().raw_data(), want.raw_data(), want.nbytes()) != 0)
          ++mismatches[size_t(t)];
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(mismatches[size_t(t)], 0) << "thread " << t;
}

TEST(Concurrency, ManyThreadsOneSessionLoop) { run_concurrently(kCase); }
TEST(Concurrency, ManyThreadsOneSessionConv) { run_concurrently(kConvCase); }

}  // namespace
}  // namespace onyx
