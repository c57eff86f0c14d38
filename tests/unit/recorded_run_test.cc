// Recorded runs (CUDA graphs) without a GPU: a "QSIM" provider whose device is host memory
// tagged as simulated device 1, with a stream as CUDA has one. Its kernels queue their work as
// closures over buffer addresses; while the provider records, the closures are kept instead
// of run, and a replay runs them again, so a replay computes only what was recorded, from the
// addresses recorded. Every block its allocator hands out during a recording is kept by the
// recording (as the CUDA arena does), and a copy to the host fails while recording (as it
// does on CUDA). So a session that replayed with stale addresses, freed memory a recording
// still uses (ASan), or ran host work in a replay would fail here. Also: feeds given on a
// device that a CPU kernel reads (moved to the host first, counted here).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "model_builder.h"
#include "providers/execution_provider.h"
#include "session/run_capture.h"
#include "session/session.h"

namespace onyx {
namespace {

using testing::ModelBuilder;

constexpr Device kQsimDevice{Device::Type::kSimulated, 1};

class QsimRecording final : public CapturedRun {
 public:
  QsimRecording(std::vector<std::function<void()>> work, std::vector<std::shared_ptr<Buffer>> blocks,
                std::vector<std::shared_ptr<std::vector<char>>> frozen)
      : work_(std::move(work)), blocks_(std::move(blocks)), frozen_(std::move(frozen)) {}
  Status replay() override {
    ++replays;
    for (const auto& w : work_) w();
    return Status::Ok();
  }
  static inline std::atomic<int> replays{0};

 private:
  std::vector<std::function<void()>> work_;
  std::vector<std::shared_ptr<Buffer>> blocks_;
  std::vector<std::shared_ptr<std::vector<char>>> frozen_;
};

class QsimProvider final : public ExecutionProvider {
 public:
  explicit QsimProvider(bool record) : record_(record) {}
  std::string name() const override { return "QSIM"; }
  Device device() const override { return kQsimDevice; }
  Allocator* allocator() override { return &allocator_; }

  // The stream: runs `work` now, or keeps it for the recording.
  void enqueue(std::function<void()> work) const {
    std::lock_guard<std::mutex> lock(mu_);
    if (recording_) {
      recorded_.push_back(std::move(work));
    } else {
      work();
    }
  }
  Status copy(const Tensor& src, Tensor& dst) const override {
    ONYX_RETURN_IF_ERROR(check_copy_pair(src, dst));
    const void* from = src.raw_data();
    void* to = dst.raw_data();
    const size_t n = src.nbytes();
    if (recording_ && dst.device().is_cpu())
      return invalid_argument("QSIM: a copy to the host cannot be recorded");
    if (dst.device().is_cpu()) ++copies_to_host;
    if (recording_ && src.device().is_cpu()) {  // the bytes as they are now, as CUDA's pinned copy
      auto frozen = std::make_shared<std::vector<char>>(static_cast<const char*>(from), static_cast<const char*>(from) + n);
      std::lock_guard<std::mutex> lock(mu_);
      frozen_.push_back(frozen);
      recorded_.push_back([frozen, to] { std::memcpy(to, frozen->data(), frozen->size()); });
      return Status::Ok();
    }
    enqueue([from, to, n] { std::memcpy(to, from, n); });
    return Status::Ok();
  }
  bool captures_runs() const override { return record_; }
  Status shrink_memory() override {
    ++shrinks;
    return Status::Ok();
  }
  int shrinks = 0;
  Status begin_capture() override {
    std::lock_guard<std::mutex> lock(mu_);
    if (recording_) return error(StatusCode::kInternal, "recording twice");
    recording_ = true;
    allocator_.holding = true;
    ++recordings;
    return Status::Ok();
  }
  Result<std::unique_ptr<CapturedRun>> end_capture(bool keep) override {
    std::lock_guard<std::mutex> lock(mu_);
    recording_ = false;
    allocator_.holding = false;
    std::vector<std::function<void()>> work;
    work.swap(recorded_);
    std::vector<std::shared_ptr<Buffer>> blocks;
    blocks.swap(allocator_.held);
    std::vector<std::shared_ptr<std::vector<char>>> frozen;
    frozen.swap(frozen_);
    if (!keep) return std::unique_ptr<CapturedRun>();
    return std::unique_ptr<CapturedRun>(new QsimRecording(std::move(work), std::move(blocks), std::move(frozen)));
  }
  int recordings = 0;
  mutable std::atomic<int> copies_to_host{0};

 private:
  // Host memory tagged as the simulated device; keeps what it hands out while holding.
  struct HoldingAllocator final : public Allocator {
    std::shared_ptr<Buffer> allocate(size_t bytes, DataType dtype, bool zero_fill) override {
      std::shared_ptr<Buffer> host = Buffer::allocate(bytes, dtype, zero_fill);
      if (holding) held.push_back(host);
      return std::make_shared<Buffer>(host->data(), bytes, host, kQsimDevice);
    }
    Device device() const override { return kQsimDevice; }
    bool holding = false;
    std::vector<std::shared_ptr<Buffer>> held;
  };
  bool record_;
  mutable std::mutex mu_;
  std::atomic<bool> recording_{false};
  mutable std::vector<std::function<void()>> recorded_;
  mutable std::vector<std::shared_ptr<std::vector<char>>> frozen_;
  HoldingAllocator allocator_;
};

const ProviderRegistrar kQsimRegistrar("QSIM", "QsimExecutionProvider",
                                       [](const ProviderOptions& o) -> Result<std::shared_ptr<ExecutionProvider>> {
                                         auto it = o.find("enable_cuda_graph");
                                         return std::shared_ptr<ExecutionProvider>(
                                             std::make_shared<QsimProvider>(it != o.end() && it->second == "1"));
                                       });

std::atomic<int> kernel_calls{0};

// y = op(a, b) elementwise on QSIM (same shapes, or b a single value), queued on the stream.
template <typename Op>
class QsimBinary final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    provider_ = dynamic_cast<const QsimProvider*>(info.provider());
    return provider_ ? Status::Ok() : error(StatusCode::kInternal, "QSIM kernel without its provider");
  }
  Status compute(KernelContext& ctx) const override {
    ++kernel_calls;
    const Tensor &a = ctx.input(0), &b = ctx.input(1);
    for (const Tensor* t : {&a, &b})
      if (t->device() != kQsimDevice) return error(StatusCode::kInternal, "a QSIM input is on ", t->device().to_string());
    if (a.shape() != b.shape() && b.numel() != 1) return not_implemented("QSIM broadcasts a single value only");
    ONYX_ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output_uninitialized(0, DataType::kFloat, a.shape()));
    const float* pa = a.data<float>();
    const float* pb = b.data<float>();
    float* py = y->data<float>();
    const int64_t n = a.numel(), step = b.numel() == 1 ? 0 : 1;
    provider_->enqueue([=] {
      for (int64_t i = 0; i < n; ++i) py[i] = Op()(pa[i], pb[i * step]);
    });
    return Status::Ok();
  }

 private:
  const QsimProvider* provider_ = nullptr;
};
struct AddOp { float operator()(float a, float b) const { return a + b; } };
struct MulOp { float operator()(float a, float b) const { return a * b; } };

ONYX_REGISTER_PROVIDER_KERNEL("QSIM", "", "Add", 7, kLatestOpset, QsimBinary<AddOp>, nullptr, {});
ONYX_REGISTER_PROVIDER_KERNEL("QSIM", "", "Mul", 7, kLatestOpset, QsimBinary<MulOp>, nullptr, {});


// y = x * 2 + x (both on QSIM); with `sigmoid`, y = Sigmoid(that), Sigmoid on the CPU only.
std::unique_ptr<Session> make_session(bool record, bool sigmoid = false) {
  ModelBuilder b;
  b.input("x", {2, 3}).output("y", {2, 3});
  b.initializer("two", {1}, {2.f});
  b.node("Mul", {"x", "two"}, {"m"}, "scale");
  b.node("Add", {"m", "x"}, {sigmoid ? "s" : "y"}, "sum");
  if (sigmoid) b.node("Sigmoid", {"s"}, {"y"}, "squash");
  const std::string bytes = b.bytes();
  SessionOptions options;
  options.graph_optimization_level = 0;
  options.append_provider("QSIM", {{"enable_cuda_graph", record ? "1" : "0"}});
  auto s = Session::load_bytes(bytes.data(), bytes.size(), options);
  EXPECT_TRUE(s.ok()) << s.status().to_string();
  return s.ok() ? std::move(s).value() : nullptr;
}

QsimProvider& qsim(const Session& s) { return dynamic_cast<QsimProvider&>(*s.provider_for(kQsimDevice)); }

// Six floats of "device" memory, bound as x.
struct DeviceInput {
  std::vector<float> bytes = std::vector<float>(6, 0.f);
  Tensor tensor() { return Tensor::borrow(DataType::kFloat, {2, 3}, bytes.data(), 24, kQsimDevice).value(); }
  void fill(float start) {
    for (size_t i = 0; i < 6; ++i) bytes[i] = start + float(i);
  }
};

void expect_three_x(const IoBinding& b, const DeviceInput& in) {
  ASSERT_EQ(b.outputs().size(), 1u);
  const Tensor& y = b.outputs()[0].tensor();
  ASSERT_EQ(y.device(), kQsimDevice);
  for (size_t i = 0; i < 6; ++i) EXPECT_FLOAT_EQ(y.data<float>()[i], 3 * in.bytes[i]) << i;
}

RunOptions graph(const std::string& id) {
  RunOptions o;
  o.config[RunCaptures::kGraphIdKey] = id;
  return o;
}

TEST(RecordedRun, RecordedThenReplayedRunsMatchUnrecordedOnesWithNoHostWork) {
  auto s = make_session(true);
  ASSERT_TRUE(s);
  EXPECT_TRUE(s->records_runs());
  DeviceInput x;
  IoBinding b(*s);
  ASSERT_TRUE(b.bind_input("x", Value(x.tensor())).ok());
  ASSERT_TRUE(b.bind_output("y", kQsimDevice).ok());
  const int calls0 = kernel_calls, replays0 = QsimRecording::replays;
  const void* recorded_output = nullptr;
  for (int run = 0; run < 6; ++run) {
    x.fill(float(run) - 2.5f);  // new values written into the bound buffer
    ASSERT_TRUE(s->run(b).ok()) << run;
    expect_three_x(b, x);
    // the first run computes as usual, the second is recorded and replayed, later ones replay
    EXPECT_EQ(kernel_calls - calls0, run == 0 ? 2 : 4) << run;
    EXPECT_EQ(QsimRecording::replays - replays0, std::max(0, run)) << run;
    if (run == 1) recorded_output = b.outputs()[0].tensor().raw_data();
    if (run > 1) {
      EXPECT_EQ(b.outputs()[0].tensor().raw_data(), recorded_output);
    }
  }
  EXPECT_EQ(qsim(*s).recordings, 1);

  // the same values unrecorded (gpu_graph_id -1) give the same outputs, computed anew
  x.fill(7.f);
  ASSERT_TRUE(s->run(b, graph("-1")).ok());
  expect_three_x(b, x);
  EXPECT_EQ(kernel_calls - calls0, 6);
  // plain runs with host feeds are not recorded either
  auto plain = s->run({{"x", Value(Tensor(DataType::kFloat, {2, 3}))}});
  ASSERT_TRUE(plain.ok()) << plain.status().to_string();
}

TEST(RecordedRun, AnotherBindingIsRefusedAndAnotherGraphIdRecordsItsOwn) {
  auto s = make_session(true);
  ASSERT_TRUE(s);
  DeviceInput a, other;
  IoBinding b(*s);
  ASSERT_TRUE(b.bind_input("x", Value(a.tensor())).ok());
  ASSERT_TRUE(b.bind_output("y", kQsimDevice).ok());
  for (int run = 0; run < 2; ++run) ASSERT_TRUE(s->run(b).ok());

  ASSERT_TRUE(b.bind_input("x", Value(other.tensor())).ok());
  const Status refused = s->run(b);
  EXPECT_EQ(refused.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(refused.message().find("recorded with another binding: input 'x'"), std::string::npos) << refused.message();

  // graph 1 records the new binding; graph 0 still replays the old one
  other.fill(10.f);
  for (int run = 0; run < 3; ++run) {
    ASSERT_TRUE(s->run(b, graph("1")).ok()) << run;
    expect_three_x(b, other);
  }
  EXPECT_EQ(qsim(*s).recordings, 2);
  ASSERT_TRUE(b.bind_input("x", Value(a.tensor())).ok());
  a.fill(-4.f);
  ASSERT_TRUE(s->run(b, graph("0")).ok());
  expect_three_x(b, a);

  const Status bad_id = s->run(b, graph("first"));
  EXPECT_EQ(bad_id.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad_id.message().find("gpu_graph_id='first' is not an integer"), std::string::npos) << bad_id.message();
}

TEST(RecordedRun, InputsOnTheHostAreRefused) {
  auto s = make_session(true);
  ASSERT_TRUE(s);
  IoBinding b(*s);
  ASSERT_TRUE(b.bind_input("x", Value(Tensor(DataType::kFloat, {2, 3}))).ok());
  ASSERT_TRUE(b.bind_output("y", kQsimDevice).ok());
  const Status st = s->run(b);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("input 'x' is on cpu"), std::string::npos) << st.message();
  EXPECT_TRUE(s->run(b, graph("-1")).ok());
}

TEST(RecordedRun, ARunThatNeedsTheHostMidRunIsNotRecordedAndSaysWhy) {
  auto s = make_session(true, /*sigmoid=*/true);
  ASSERT_TRUE(s);
  DeviceInput x;
  IoBinding b(*s);
  ASSERT_TRUE(b.bind_input("x", Value(x.tensor())).ok());
  ASSERT_TRUE(b.bind_output("y", kQsimDevice).ok());
  ASSERT_TRUE(s->run(b).ok());  // the first run is not recorded
  for (int run = 0; run < 2; ++run) {  // the failure is kept
    const Status st = s->run(b);
    EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
    EXPECT_NE(st.message().find("a copy to the host cannot be recorded"), std::string::npos) << st.message();
    EXPECT_NE(st.to_string().find("MemcpyToHost"), std::string::npos) << st.to_string();
    EXPECT_NE(st.to_string().find("gpu_graph_id -1"), std::string::npos) << st.to_string();
  }
  EXPECT_EQ(qsim(*s).recordings, 1);
  x.fill(0.5f);
  ASSERT_TRUE(s->run(b, graph("-1")).ok());
  for (size_t i = 0; i < 6; ++i)
    EXPECT_FLOAT_EQ(b.outputs()[0].tensor().data<float>()[i], 1.f / (1.f + std::exp(-3 * x.bytes[i])));
}

TEST(RecordedRun, WithoutTheOptionNothingIsRecorded) {
  auto s = make_session(false);
  ASSERT_TRUE(s);
  EXPECT_FALSE(s->records_runs());
  DeviceInput x;
  IoBinding b(*s);
  ASSERT_TRUE(b.bind_input("x", Value(x.tensor())).ok());
  ASSERT_TRUE(b.bind_output("y", kQsimDevice).ok());
  const int calls0 = kernel_calls;
  for (int run = 0; run < 3; ++run) {
    x.fill(float(run));
    ASSERT_TRUE(s->run(b).ok());
    expect_three_x(b, x);
  }
  EXPECT_EQ(kernel_calls - calls0, 6);
  EXPECT_EQ(qsim(*s).recordings, 0);
}

TEST(RecordedRun, ThreadsReplayingTheirOwnGraphsAndRunningPlainly) {
  auto s = make_session(true);
  ASSERT_TRUE(s);
  constexpr int kThreads = 4, kRuns = 25;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      DeviceInput x;
      IoBinding b(*s);
      if (!b.bind_input("x", Value(x.tensor())).ok() || !b.bind_output("y", kQsimDevice).ok()) ++failures;
      for (int run = 0; run < kRuns; ++run) {
        x.fill(float(t * 100 + run));
        // odd threads alternate their graph with unrecorded runs
        const std::string id = t % 2 && run % 2 ? "-1" : std::to_string(t);
        if (!s->run(b, graph(id)).ok()) ++failures;
        for (size_t i = 0; i < 6; ++i)
          if (b.outputs().empty() || b.outputs()[0].tensor().data<float>()[i] != 3 * x.bytes[i]) ++failures;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures, 0);
  EXPECT_EQ(qsim(*s).recordings, kThreads);
}

// A graph input read by a CPU kernel (Sigmoid: QSIM has none) and by a QSIM one.
std::unique_ptr<Session> sigmoid_of_input(bool with_qsim, bool record = false) {
  ModelBuilder b;
  b.input("x", {2, 3}).output("y", {2, 3}).output("z", {2, 3});
  b.node("Sigmoid", {"x"}, {"y"}, "on_the_cpu");
  b.node("Add", {"x", "x"}, {"z"}, "doubled");
  const std::string bytes = b.bytes();
  SessionOptions options;
  options.graph_optimization_level = 0;
  if (with_qsim) options.append_provider("QSIM", {{"enable_cuda_graph", record ? "1" : "0"}});
  auto s = Session::load_bytes(bytes.data(), bytes.size(), options);
  EXPECT_TRUE(s.ok()) << s.status().to_string();
  return s.ok() ? std::move(s).value() : nullptr;
}

TEST(DeviceFeeds, ACpuKernelReadingAFeedGivenOnTheDeviceGetsItOnTheHost) {
  auto s = sigmoid_of_input(true);
  ASSERT_TRUE(s);
  DeviceInput x;
  x.fill(-2.f);
  const int before = qsim(*s).copies_to_host;
  auto out = s->run({{"x", Value(x.tensor())}});
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  EXPECT_EQ(qsim(*s).copies_to_host - before, 2);  // x for the Sigmoid, z back to the host
  for (size_t i = 0; i < 6; ++i) {
    EXPECT_FLOAT_EQ((*out)[0].tensor().data<float>()[i], 1.f / (1.f + std::exp(-x.bytes[i])));
    EXPECT_FLOAT_EQ((*out)[1].tensor().data<float>()[i], 2 * x.bytes[i]);
  }
  // a recorded run cannot make that move (it waits for the device), and says so
  auto r = sigmoid_of_input(true, /*record=*/true);
  ASSERT_TRUE(r);
  IoBinding b(*r);
  ASSERT_TRUE(b.bind_input("x", Value(x.tensor())).ok());
  ASSERT_TRUE(b.bind_output("y").ok());
  ASSERT_TRUE(r->run(b).ok());
  const Status st = r->run(b);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(st.to_string().find("while moving input 'x' to the host"), std::string::npos) << st.to_string();
}

TEST(DeviceFeeds, AFeedOnADeviceTheSessionDoesNotUseIsRefused) {
  auto s = sigmoid_of_input(false);
  ASSERT_TRUE(s);
  DeviceInput x;
  auto out = s->run({{"x", Value(x.tensor())}});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(out.status().message().find("input 'x' is on simulated:1, which no provider of this session uses"),
            std::string::npos) << out.status().to_string();
}

TEST(DeviceFeeds, ADeviceArenaShrinksAfterARunThatAsksForIt) {
  auto s = sigmoid_of_input(true);
  ASSERT_TRUE(s);
  DeviceInput x;
  RunOptions cpu_only, gpu;
  cpu_only.config["memory.enable_memory_arena_shrinkage"] = "cpu:0";
  gpu.config["memory.enable_memory_arena_shrinkage"] = "cpu:0;gpu:0";
  ASSERT_TRUE(s->run({{"x", Value(x.tensor())}}, {}, cpu_only).ok());
  EXPECT_EQ(qsim(*s).shrinks, 0);
  ASSERT_TRUE(s->run({{"x", Value(x.tensor())}}, {}, gpu).ok());
  EXPECT_EQ(qsim(*s).shrinks, 1);
}

}  // namespace
}  // namespace onyx
