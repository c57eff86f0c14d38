// Recorded runs on CUDA (enable_cuda_graph=1, session/run_capture.h): a run bound through
// IoBinding is recorded as a CUDA graph and replayed; replays with new values written into the
// bound input buffers (ids included: Gather reads them on the device) agree with the CPU and with
// unrecorded runs. A run that needs a device value on the host mid-run is refused with the
// node named. Without a device the option checks
// and the CPU half run, then the tests report themselves skipped.
#include <gtest/gtest.h>

#include "cuda_test_support.h"
#include "providers/execution_provider.h"
#include "session/run_capture.h"

namespace onyx {
namespace {

#ifdef ONYX_WITH_CUDA

using testing::ModelBuilder;
using namespace cuda_test;

constexpr Device kGpu{Device::Type::kCuda, 0};

TEST(CudaGraph, TheOptionIsCheckedBeforeTheDevice) {
  auto bad = ProviderRegistry::global().create("CUDA", {{"enable_cuda_graph", "yes"}});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("enable_cuda_graph='yes' is not 0 or 1 (or true/false)"), std::string::npos)
      << bad.status().to_string();
}

// x [4, 16] -> MatMul W [16, 32] -> Add b -> Relu -> Gather rows of a constant table added in
// -> Softmax -> LayerNormalization: cuBLAS, elementwise kernels, a Gather (its indices a
// constant, or an input bound on the GPU) and block reductions. With `sin`, a Sin (no CUDA
// kernel) after the Relu runs on the CPU.
ModelBuilder recorded_model(bool rows_input, bool sin = false) {
  ModelBuilder b;
  b.input("x", {4, 16}).output("y", {4, 32});
  if (rows_input) b.input("rows", {4}, onnx::TensorProto::INT64);
  std::vector<float> w(16 * 32), bias(32), table(5 * 32), scale(32, 1.5f), shift(32, -0.25f);
  for (size_t i = 0; i < w.size(); ++i) w[i] = 0.05f * float(int(i % 13) - 6);
  for (size_t i = 0; i < bias.size(); ++i) bias[i] = 0.1f * float(int(i % 5) - 2);
  for (size_t i = 0; i < table.size(); ++i) table[i] = 0.02f * float(int(i % 17) - 8);
  b.initializer("W", {16, 32}, w);
  b.initializer("B", {32}, bias);
  b.initializer("T", {5, 32}, table);
  b.initializer("S", {32}, scale);
  b.initializer("Z", {32}, shift);
  if (!rows_input) int64_initializer(b, "rows", {4}, {3, 0, 2, 4});
  b.node("MatMul", {"x", "W"}, {"p"});
  b.node("Add", {"p", "B"}, {"q"});
  b.node("Relu", {"q"}, {sin ? "r0" : "r"});
  if (sin) b.node("Sin", {"r0"}, {"r"}, "on_the_cpu");
  b.node("Gather", {"T", "rows"}, {"g"}, "pick_rows");
  b.node("Add", {"r", "g"}, {"s"});
  b.node("Softmax", {"s"}, {"m"});
  b.node("LayerNormalization", {"m", "S", "Z"}, {"y"});
  return b;
}

std::unique_ptr<Session> gpu_session(ModelBuilder& b, bool strict = true) {
  SessionOptions o;
  o.graph_optimization_level = 1;
  o.append_provider("CUDA", {{"enable_cuda_graph", "1"}});
  o.disable_cpu_fallback = strict;
  return load(b, o);
}

Tensor ids_of(std::vector<int64_t> v) {
  Tensor t(DataType::kInt64, {int64_t(v.size())});
  std::copy(v.begin(), v.end(), t.data<int64_t>());
  return t;
}

Tensor to_host(const Session& s, const Tensor& t) {
  Tensor host(t.dtype(), t.shape());
  EXPECT_TRUE(s.provider_for(t.device())->copy(t, host).ok());
  return host;
}

double max_difference(const Tensor& a, const Tensor& b) {
  double worst = 0;
  for (int64_t i = 0; i < a.numel(); ++i)
    worst = std::max(worst, std::abs(double(a.data<float>()[i]) - double(b.data<float>()[i])));
  return worst;
}

RunOptions graph(const std::string& id) {
  RunOptions o;
  o.config[RunCaptures::kGraphIdKey] = id;
  return o;
}

TEST(CudaGraph, ReplaysWithNewValuesAgreeWithTheCpuAndWithUnrecordedRuns) {
  ModelBuilder b = recorded_model(false);
  SessionOptions cpu_options;
  cpu_options.graph_optimization_level = 1;
  auto cpu = load(b, cpu_options);
  ASSERT_TRUE(cpu);
  std::vector<Tensor> feeds, want;
  for (uint32_t run = 0; run < 5; ++run) {
    feeds.push_back(tensor_of({4, 16}, random_values(64, 100 + run)));
    auto out = cpu->run({{"x", Value(feeds.back())}});
    ASSERT_TRUE(out.ok()) << out.status().to_string();
    want.push_back((*out)[0].tensor());
  }
  if (!have_device()) GTEST_SKIP() << "no CUDA device (the CPU half ran)";

  auto gpu = gpu_session(b);
  ASSERT_TRUE(gpu);
  ASSERT_TRUE(gpu->records_runs());
  ExecutionProvider* cuda = gpu->provider_for(kGpu);
  ASSERT_TRUE(cuda);
  auto x = Tensor::create(DataType::kFloat, {4, 16}, cuda->allocator(), false);
  ASSERT_TRUE(x.ok());
  IoBinding binding(*gpu);
  ASSERT_TRUE(binding.bind_input("x", Value(*x)).ok());
  ASSERT_TRUE(binding.bind_output("y", kGpu).ok());
  const void* recorded_output = nullptr;
  for (size_t run = 0; run < feeds.size(); ++run) {
    ASSERT_TRUE(cuda->copy(feeds[run], *x).ok());  // new values into the bound buffer
    Status st = gpu->run(binding);
    ASSERT_TRUE(st.ok()) << "run " << run << ": " << st.to_string();
    const Tensor& y = binding.outputs()[0].tensor();
    ASSERT_EQ(y.device(), kGpu);
    if (run == 1) recorded_output = y.raw_data();
    if (run > 1) {
      EXPECT_EQ(y.raw_data(), recorded_output) << "a replay writes the recorded buffers";
    }
    const Tensor replayed = to_host(*gpu, y);
    EXPECT_LE(max_difference(replayed, want[run]), 1e-4) << "run " << run;

    // the same values unrecorded
    st = gpu->run(binding, graph("-1"));
    ASSERT_TRUE(st.ok()) << st.to_string();
    EXPECT_LE(max_difference(to_host(*gpu, binding.outputs()[0].tensor()), replayed), 1e-6) << "run " << run;
  }

  // another buffer is refused under the recorded graph id
  auto other = Tensor::create(DataType::kFloat, {4, 16}, cuda->allocator(), false);
  ASSERT_TRUE(other.ok());
  ASSERT_TRUE(binding.bind_input("x", Value(*other)).ok());
  const Status refused = gpu->run(binding);
  EXPECT_EQ(refused.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(refused.message().find("recorded with another binding"), std::string::npos) << refused.to_string();
}

TEST(CudaGraph, IdsBoundOnTheGpuAreReadThereAndReplaysFollowThem) {
  ModelBuilder b = recorded_model(true);
  auto cpu = load(b, SessionOptions());
  ASSERT_TRUE(cpu);
  const std::vector<std::vector<int64_t>> rows = {{0, 1, 2, 3}, {4, 4, -1, 0}, {2, 3, 1, -5}, {1, 1, 1, 1}};
  std::vector<Tensor> xs, want;
  for (size_t run = 0; run < rows.size(); ++run) {
    xs.push_back(tensor_of({4, 16}, random_values(64, 200 + uint32_t(run))));
    auto out = cpu->run({{"x", Value(xs.back())}, {"rows", Value(ids_of(rows[run]))}});
    ASSERT_TRUE(out.ok()) << out.status().to_string();
    want.push_back((*out)[0].tensor());
  }
  if (!have_device()) GTEST_SKIP() << "no CUDA device (the CPU half ran)";
  auto gpu = gpu_session(b);
  ASSERT_TRUE(gpu);
  ExecutionProvider* cuda = gpu->provider_for(kGpu);
  auto x = Tensor::create(DataType::kFloat, {4, 16}, cuda->allocator());
  auto ids = Tensor::create(DataType::kInt64, {4}, cuda->allocator());
  ASSERT_TRUE(x.ok() && ids.ok());
  IoBinding binding(*gpu);
  ASSERT_TRUE(binding.bind_input("x", Value(*x)).ok());
  ASSERT_TRUE(binding.bind_input("rows", Value(*ids)).ok());
  ASSERT_TRUE(binding.bind_output("y", kGpu).ok());
  for (size_t run = 0; run < rows.size(); ++run) {
    ASSERT_TRUE(cuda->copy(xs[run], *x).ok());
    const Tensor host_ids = ids_of(rows[run]);
    ASSERT_TRUE(cuda->copy(host_ids, *ids).ok());
    const Status st = gpu->run(binding);
    ASSERT_TRUE(st.ok()) << "run " << run << ": " << st.to_string();
    EXPECT_LE(max_difference(to_host(*gpu, binding.outputs()[0].tensor()), want[run]), 1e-4) << "run " << run;
  }
  // an id out of range in a replay fails it, naming the node, and the next good replay works
  const Tensor bad = ids_of({0, 5, 0, 0});
  ASSERT_TRUE(cuda->copy(bad, *ids).ok());
  const Status refused = gpu->run(binding);
  EXPECT_EQ(refused.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(refused.to_string().find("'pick_rows' (Gather)"), std::string::npos) << refused.to_string();
  const Tensor good = ids_of(rows[0]);
  ASSERT_TRUE(cuda->copy(xs[0], *x).ok());
  ASSERT_TRUE(cuda->copy(good, *ids).ok());
  ASSERT_TRUE(gpu->run(binding).ok());
  EXPECT_LE(max_difference(to_host(*gpu, binding.outputs()[0].tensor()), want[0]), 1e-4);
}

TEST(CudaGraph, ANodeLeftOnTheCpuMidRunIsRefusedWithTheNodeNamed) {
  ModelBuilder b = recorded_model(false, /*sin=*/true);
  auto cpu = load(b, SessionOptions());
  ASSERT_TRUE(cpu);
  if (!have_device()) GTEST_SKIP() << "no CUDA device (the model loaded on the CPU)";
  auto gpu = gpu_session(b, /*strict=*/false);
  ASSERT_TRUE(gpu);
  ExecutionProvider* cuda = gpu->provider_for(kGpu);
  auto x = Tensor::create(DataType::kFloat, {4, 16}, cuda->allocator());
  ASSERT_TRUE(x.ok());
  IoBinding binding(*gpu);
  ASSERT_TRUE(binding.bind_input("x", Value(*x)).ok());
  ASSERT_TRUE(binding.bind_output("y", kGpu).ok());
  ASSERT_TRUE(gpu->run(binding).ok());  // not recorded
  const Status st = gpu->run(binding);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("cannot be part of a CUDA graph"), std::string::npos) << st.to_string();
  EXPECT_NE(st.to_string().find("MemcpyToHost"), std::string::npos) << st.to_string();
  EXPECT_TRUE(gpu->run(binding, graph("-1")).ok());
}

#endif  // ONYX_WITH_CUDA

}  // namespace
}  // namespace onyx
