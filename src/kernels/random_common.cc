#include "kernels/random_common.h"

#include <atomic>
#include <cmath>
#include <cstring>
#include <numbers>
#include <random>

#include "core/parallel.h"
#include "kernels/dispatch.h"

namespace onyx::random {
namespace {

uint64_t mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

}  // namespace

Seed parse_seed(const KernelInfo& info) {
  Seed s;
  s.fixed = info.has_attr("seed");
  s.value = info.attr_float("seed", 0.f);
  return s;
}

namespace {
std::atomic<uint64_t>& unseeded_counter() {
  static std::atomic<uint64_t> counter{(uint64_t(std::random_device{}()) << 32) ^ std::random_device{}()};
  return counter;
}
}  // namespace

uint64_t run_key(const Seed& seed) {
  if (seed.fixed) {
    uint32_t bits;
    std::memcpy(&bits, &seed.value, sizeof bits);
    return mix(uint64_t(bits) + 0x5EEDull);
  }
  return mix(unseeded_counter().fetch_add(0x9E3779B97F4A7C15ull));
}

void set_default_seed(uint64_t seed) { unseeded_counter().store(mix(seed ^ 0xD1B54A32D192ED03ull)); }

double uniform(uint64_t key, uint64_t i) {
  const uint64_t z = mix(key + (i + 1) * 0x9E3779B97F4A7C15ull);
  return double(z >> 11) * 0x1.0p-53;
}

double normal(uint64_t key, uint64_t i) {
  const double u1 = 1.0 - uniform(key, 2 * i);  // (0, 1]: the log is finite
  const double u2 = uniform(key, 2 * i + 1);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

Status parse_float_dtype(const KernelInfo& info, DataType* out) {
  if (!info.has_attr("dtype")) return Status::Ok();
  const int64_t code = info.attr_int("dtype", 0);
  if (!is_valid_data_type(int(code)) || code > int64_t(DataType::kBFloat16) || !is_float_type(DataType(code)))
    return invalid_model("dtype must be a floating-point type, got ", code);
  *out = DataType(code);
  return Status::Ok();
}

Status fill(Tensor& y, const Seed& seed, Distribution dist, double a, double b) {
  const uint64_t key = run_key(seed);
  return dispatch<ONYX_FLOAT_TYPES>(y.dtype(), [&]<typename T>() -> Status {
    T* out = y.data<T>();
    parallel_for(y.numel(), 4096, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        const double v = dist == Distribution::kUniform ? a + (b - a) * uniform(key, uint64_t(i))
                                                        : a + b * normal(key, uint64_t(i));
        out[i] = static_cast<T>(static_cast<compute_t<T>>(v));
      }
    });
    return Status::Ok();
  });
}

Status RandomKernel::prepare(const KernelInfo& info) {
  seed_ = parse_seed(info);
  a_ = info.attr_float(op_.a_attr, op_.a_default);
  b_ = info.attr_float(op_.b_attr, op_.b_default);
  if (!op_.like) {
    if (!info.has_attr("shape")) return invalid_model(op_.name, " needs a 'shape' attribute");
    shape_ = info.attr_ints("shape");
    for (int64_t d : shape_)
      if (d < 0) return invalid_model("shape has a negative dim ", d);
  }
  return parse_float_dtype(info, &dtype_);
}

Status RandomKernel::compute(KernelContext& ctx) const {
  if (!op_.like) {
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output(0, dtype_, shape_));
    return fill(*y, seed_, op_.dist, a_, b_);
  }
  const Tensor& x = ctx.input(0);
  if (!x.defined()) return invalid_argument(op_.name, " needs a tensor input");
  const DataType dtype = dtype_ == DataType::kUndefined ? x.dtype() : dtype_;
  if (!is_float_type(dtype))
    return invalid_argument(op_.name, " without dtype needs a floating-point input, got ", data_type_name(dtype));
  ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output(0, dtype, x.shape()));
  return fill(*y, seed_, op_.dist, a_, b_);
}

}  // namespace onyx::random
