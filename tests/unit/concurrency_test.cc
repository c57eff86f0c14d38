// Session::run is const and safe for concurrent callers: many threads running one session
// get the same answers as one thread does.
#include <gtest/gtest.h>

#include <cstring>
#include <thread>

#include "model_builder.h"
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

// y = Softmax(MatMul(x, w) + b) over [rows, 16]: 8 threads x 1,000 runs with shapes that
// change every run give exactly what one thread gives for the same inputs.
std::string dense_softmax_model() {
  testing::ModelBuilder b;
  b.input("x", {-1, 16}).output("y", {-1, 8});
  std::vector<float> w(16 * 8), bias(8);
  for (size_t i = 0; i < w.size(); ++i) w[i] = float(int(i * 5 % 17) - 8) * 0.0625f;
  for (size_t i = 0; i < bias.size(); ++i) bias[i] = float(i) * 0.1f;
  b.initializer("w", {16, 8}, w);
  b.initializer("b", {8}, bias);
  b.node("MatMul", {"x", "w"}, {"m"});
  b.node("Add", {"m", "b"}, {"z"});
  b.node("Softmax", {"z"}, {"y"});
  return b.bytes();
}

Tensor rows_input(int64_t rows, int seed) {
  Tensor x(DataType::kFloat, {rows, 16});
  for (int64_t i = 0; i < x.numel(); ++i) x.data<float>()[i] = float((i * 31 + seed * 7) % 23) * 0.125f - 1.f;
  return x;
}

TEST(Concurrency, EightThreadsThousandRunsMixedShapes) {
  const std::string bytes = dense_softmax_model();
  auto session = Session::load_bytes(bytes.data(), bytes.size());
  ASSERT_TRUE(session.ok()) << session.status().to_string();
  const Session& s = **session;
  constexpr int kShapes = 13, kThreads = 8, kRuns = 1000;
  std::vector<Tensor> inputs, expected;
  for (int k = 0; k < kShapes; ++k) {  // serial references, one per shape
    inputs.push_back(rows_input(1 + k * 5, k));
    auto out = s.run({{"x", Value(inputs.back())}});
    ASSERT_TRUE(out.ok()) << out.status().to_string();
    expected.push_back((*out)[0].tensor());
  }
  std::vector<int> mismatches(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int r = 0; r < kRuns; ++r) {
        const int k = (t * 7 + r) % kShapes;
        auto out = s.run({{"x", Value(inputs[size_t(k)])}});
        const Tensor& want = expected[size_t(k)];
        if (!out.ok() || (*out)[0].tensor().shape() != want.shape() ||
            std::memcmp((*out)[0].tensor().raw_data(), want.raw_data(), want.nbytes()) != 0)
          ++mismatches[size_t(t)];
      }
    });
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(mismatches[size_t(t)], 0) << "thread " << t;
}

TEST(Concurrency, SessionsCreatedAndDestroyedConcurrently) {
  const std::string bytes = dense_softmax_model();
  const Tensor x = rows_input(3, 1);
  auto reference = Session::load_bytes(bytes.data(), bytes.size());
  ASSERT_TRUE(reference.ok());
  auto want = (*reference)->run({{"x", Value(x)}});
  ASSERT_TRUE(want.ok());
  std::vector<int> failures(4, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int r = 0; r < 25; ++r) {
        auto s = Session::load_bytes(bytes.data(), bytes.size());
        auto out = s.ok() ? (*s)->run({{"x", Value(x)}}) : Result<std::vector<Value>>(s.status());
        if (!out.ok() || std::memcmp((*out)[0].tensor().raw_data(), (*want)[0].tensor().raw_data(),
                                     (*want)[0].tensor().nbytes()) != 0)
          ++failures[size_t(t)];
      }  // each session is destroyed here, while the other threads create theirs
    });
  for (auto& th : threads) th.join();
  for (int t = 0; t < 4; ++t) EXPECT_EQ(failures[size_t(t)], 0) << "thread " << t;
}

}  // namespace
}  // namespace onyx
