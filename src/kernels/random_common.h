// Random numbers for the random-generation kernels (RandomUniform, RandomNormal, their
// *Like forms, Bernoulli). Counter-based: element i of a run is a hash of (run key, i), so a
// given seed gives the same tensor on every run and on any number of threads. Without a
// seed attribute each run draws a fresh key.
#pragma once
#include <cstdint>

#include "kernels/kernel.h"

namespace onyx::random {

// The 'seed' attribute of a node, if any.
struct Seed {
  bool fixed = false;
  float value = 0;
};
Seed parse_seed(const KernelInfo& info);

// The key of one run: derived from the seed when fixed, fresh otherwise (the next of a
// process-wide sequence).
uint64_t run_key(const Seed& seed);
// Restarts the process-wide sequence of unseeded run keys from `seed` (onnxruntime's
// set_seed): the unseeded runs that follow draw the same keys after every call with `seed`.
void set_default_seed(uint64_t seed);

// Uniform in [0, 1) for element i.
double uniform(uint64_t key, uint64_t i);
// Standard normal for element i (Box-Muller).
double normal(uint64_t key, uint64_t i);

// Parses a float 'dtype' attribute (float16, float, double, bfloat16) into *out; keeps *out
// when the attribute is absent.
Status parse_float_dtype(const KernelInfo& info, DataType* out);

enum class Distribution { kUniform, kNormal };
// Fills the floating-point tensor y with low + (high - low) * U (kUniform, a = low, b = high)
// or mean + scale * N (kNormal, a = mean, b = scale).
Status fill(Tensor& y, const Seed& seed, Distribution dist, double a, double b);

// What tells RandomNormal, RandomUniform and their *Like forms apart.
struct RandomOp {
  const char* name;  // the op, for messages
  Distribution dist;
  const char* a_attr;  // 'mean' or 'low'
  float a_default;
  const char* b_attr;  // 'scale' or 'high'
  float b_default;
  // false: the shape is the 'shape' attribute and dtype defaults to float; true: the shape is
  // input 0's and dtype defaults to its type, which must then be floating-point.
  bool like;
};

// The kernel of those four ops; each op file derives from it, passing its RandomOp.
class RandomKernel : public Kernel {
 public:
  explicit RandomKernel(const RandomOp& op)
      : op_(op), a_(op.a_default), b_(op.b_default), dtype_(op.like ? DataType::kUndefined : DataType::kFloat) {}
  Status prepare(const KernelInfo& info) override;
  Status compute(KernelContext& ctx) const override;

 private:
  RandomOp op_;
  Seed seed_;
  float a_, b_;
  Shape shape_;
  DataType dtype_;
};

}  // namespace onyx::random
