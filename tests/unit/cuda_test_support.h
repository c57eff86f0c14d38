// What the CUDA provider tests share: loading a built model, whether a device is usable, random
// feeds, and the check that a model gives the same outputs on CUDA (every node placed there)
// as on the CPU. Without a device the CPU half of that check still runs, then the test
// reports itself skipped.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "model_builder.h"
#include "session/session.h"
#ifdef ONYX_WITH_CUDA
#include "providers/cuda/cuda_provider.h"
#endif

namespace onyx {
namespace cuda_test {

using testing::ModelBuilder;

inline std::unique_ptr<Session> load(ModelBuilder& b, const SessionOptions& options, Status* failure = nullptr) {
  const std::string bytes = b.bytes();
  auto s = Session::load_bytes(bytes.data(), bytes.size(), options);
  if (failure) *failure = s.ok() ? Status::Ok() : s.status();
  else EXPECT_TRUE(s.ok()) << s.status().to_string();
  return s.ok() ? std::move(s).value() : nullptr;
}

#ifdef ONYX_WITH_CUDA

inline bool have_device() { return CudaProvider::device_count() > 0; }

inline std::vector<float> random_values(size_t n, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-2.f, 2.f);
  std::vector<float> v(n);
  for (float& x : v) x = dist(gen);
  return v;
}

inline Tensor tensor_of(const Shape& shape, const std::vector<float>& values) {
  Tensor t(DataType::kFloat, shape);
  std::copy(values.begin(), values.end(), t.data<float>());
  return t;
}

// Runs `b` on the CPU and on CUDA (strict: every node on the GPU) with the same random feeds
// and compares every output within `rtol` of the largest CPU magnitude. Without a device the
// CPU half still runs (so the model itself is checked), then the test reports itself skipped.
inline void expect_cuda_matches_cpu(ModelBuilder& b, const std::vector<std::pair<std::string, Shape>>& inputs,
                                    double rtol, int optimization_level = 1) {
  SessionOptions cpu_options, cuda_options;
  // Level 1 keeps the ops under test; level 2 runs the fusions a real model gets.
  cpu_options.graph_optimization_level = cuda_options.graph_optimization_level = optimization_level;
  auto cpu = load(b, cpu_options);
  ASSERT_TRUE(cpu);
  std::vector<std::pair<std::string, Value>> feeds;
  uint32_t seed = 1;
  for (const auto& [name, shape] : inputs)
    feeds.emplace_back(name, Value(tensor_of(shape, random_values(size_t(shape_size(shape)), seed++))));
  auto want = cpu->run(feeds);
  ASSERT_TRUE(want.ok()) << want.status().to_string();
  if (!have_device()) GTEST_SKIP() << "no CUDA device (the CPU half ran)";
  cuda_options.append_provider("CUDA");
  cuda_options.disable_cpu_fallback = true;
  auto gpu = load(b, cuda_options);
  ASSERT_TRUE(gpu);
  for (const NodePlacement& p : gpu->placement())
    if (!p.is_copy) EXPECT_EQ(p.provider, "CUDA") << p.node;
  auto got = gpu->run(feeds);
  ASSERT_TRUE(got.ok()) << got.status().to_string();
  for (size_t k = 0; k < want->size(); ++k) {
    const Tensor& w = (*want)[k].tensor();
    const Tensor& g = (*got)[k].tensor();
    ASSERT_EQ(w.shape(), g.shape());
    ASSERT_TRUE(g.device().is_cpu());
    double scale = 0, worst = 0;
    for (int64_t i = 0; i < w.numel(); ++i) scale = std::max(scale, std::abs(double(w.data<float>()[i])));
    for (int64_t i = 0; i < w.numel(); ++i)
      worst = std::max(worst, std::abs(double(w.data<float>()[i]) - double(g.data<float>()[i])));
    EXPECT_LE(worst, rtol * std::max(scale, 1e-6)) << "output " << k;
  }
}

inline onnx::TensorProto* int64_initializer(ModelBuilder& b, const std::string& name, std::vector<int64_t> dims,
                                     std::vector<int64_t> values) {
  auto* t = b.graph->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::INT64);
  for (int64_t d : dims) t->add_dims(d);
  for (int64_t v : values) t->add_int64_data(v);
  return t;
}

inline void int_attribute(onnx::NodeProto* n, const char* name, int64_t v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}

inline void float_attribute(onnx::NodeProto* n, const char* name, float v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::FLOAT);
  a->set_f(v);
}

inline void string_attribute(onnx::NodeProto* n, const char* name, const std::string& v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::STRING);
  a->set_s(v);
}

inline void ints_attribute(onnx::NodeProto* n, const char* name, std::vector<int64_t> v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t x : v) a->add_ints(x);
}

#endif  // ONYX_WITH_CUDA

}  // namespace cuda_test
}  // namespace onyx
