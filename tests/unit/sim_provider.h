// The simulated device of the placement tests (placement_test.cc registers it and its
// kernels as provider "SIM"; placement_host_test.cc uses it too): host memory tagged as
// Device::Type::kSimulated, whose kernels refuse to read anything that is not on it, so a
// missing or misplaced copy fails a run. One provider instance serves every session.
#pragma once
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <memory>
#include <string>

#include "model_builder.h"
#include "providers/execution_provider.h"
#include "session/session.h"

namespace onyx::sim_test {

using testing::ModelBuilder;

inline constexpr Device kSimDevice{Device::Type::kSimulated, 0};

// Host memory tagged as the simulated device; counts what it hands out.
class SimAllocator final : public Allocator {
 public:
  std::shared_ptr<Buffer> allocate(size_t bytes, DataType dtype, bool zero_fill) override {
    std::shared_ptr<Buffer> host = Buffer::allocate(bytes, dtype, zero_fill);
    ++allocations;
    return std::make_shared<Buffer>(host->data(), bytes, host, kSimDevice);
  }
  Device device() const override { return kSimDevice; }
  std::atomic<int> allocations{0};
};

class SimProvider final : public ExecutionProvider {
 public:
  std::string name() const override { return "SIM"; }
  Device device() const override { return kSimDevice; }
  Allocator* allocator() override { return &allocator_; }
  Status copy(const Tensor& src, Tensor& dst) const override {
    ONYX_RETURN_IF_ERROR(check_copy_pair(src, dst));
    if (src.device() == dst.device()) return error(StatusCode::kInternal, "a copy within one device");
    for (const Device& d : {src.device(), dst.device()})
      if (!d.is_cpu() && d != kSimDevice) return error(StatusCode::kInternal, "SIM cannot reach ", d.to_string());
    std::memcpy(dst.raw_data(), src.raw_data(), src.nbytes());
    ++copies;
    return Status::Ok();
  }
  Status synchronize() const override {
    ++syncs;
    return Status::Ok();
  }
  static std::shared_ptr<SimProvider> instance() {
    static auto p = std::make_shared<SimProvider>();
    return p;
  }
  mutable std::atomic<int> copies{0};
  mutable std::atomic<int> syncs{0};

 private:
  SimAllocator allocator_;
};

// Level 0 unless `level` says otherwise.
inline std::unique_ptr<Session> make(ModelBuilder& b, SessionOptions options, Status* failure = nullptr, int level = 0) {
  const std::string bytes = b.bytes();
  options.graph_optimization_level = level;
  auto s = Session::load_bytes(bytes.data(), bytes.size(), options);
  if (failure) *failure = s.ok() ? Status::Ok() : s.status();
  if (!failure) EXPECT_TRUE(s.ok()) << s.status().to_string();
  return s.ok() ? std::move(s).value() : nullptr;
}

inline SessionOptions on_sim() {
  SessionOptions o;
  o.append_provider("SIM");
  return o;
}

inline Tensor ramp(Shape shape, float start, float step) {
  Tensor t(DataType::kFloat, std::move(shape));
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = start + step * float(i);
  return t;
}

inline const NodePlacement* find(const Session& s, const std::string& op, bool copy = false) {
  for (const NodePlacement& p : s.placement())
    if (p.op == op && p.is_copy == copy) return &p;
  return nullptr;
}

inline size_t count_copies(const Session& s) {
  size_t n = 0;
  for (const NodePlacement& p : s.placement()) n += p.is_copy;
  return n;
}

}  // namespace onyx::sim_test
