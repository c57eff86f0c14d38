// RandomUniform: a tensor of the 'shape' attribute drawn from the distribution with 'low' and
// 'high', of type 'dtype' (default float); reproducible for a given 'seed'.
#include "kernels/random_common.h"

namespace onyx {
namespace {

class RandomUniformKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    seed_ = random::parse_seed(info);
    low_ = info.attr_float("low", 0.0f);
    high_ = info.attr_float("high", 1.0f);
    if (!info.has_attr("shape")) return invalid_model("RandomUniform needs a 'shape' attribute");
    shape_ = info.attr_ints("shape");
    for (int64_t d : shape_)
      if (d < 0) return invalid_model("shape has a negative dim ", d);
    return random::parse_float_dtype(info, &dtype_);
  }

  Status compute(KernelContext& ctx) const override {
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output(0, dtype_, shape_));
    return random::fill(*y, seed_, random::Distribution::kUniform, low_, high_);
  }

 private:
  random::Seed seed_;
  float low_ = 0.0f, high_ = 1.0f;
  Shape shape_;
  DataType dtype_ = DataType::kFloat;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "RandomUniform", 1, kLatestOpset, RandomUniformKernel);

}  // namespace onyx
