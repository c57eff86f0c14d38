// RandomNormal: a tensor of the 'shape' attribute drawn from the distribution with 'mean' and
// 'scale', of type 'dtype' (default float); reproducible for a given 'seed'.
#include "kernels/random_common.h"

namespace onyx {
namespace {

class RandomNormalKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    seed_ = random::parse_seed(info);
    mean_ = info.attr_float("mean", 0.0f);
    scale_ = info.attr_float("scale", 1.0f);
    if (!info.has_attr("shape")) return invalid_model("RandomNormal needs a 'shape' attribute");
    shape_ = info.attr_ints("shape");
    for (int64_t d : shape_)
      if (d < 0) return invalid_model("shape has a negative dim ", d);
    return random::parse_float_dtype(info, &dtype_);
  }

  Status compute(KernelContext& ctx) const override {
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output(0, dtype_, shape_));
    return random::fill(*y, seed_, random::Distribution::kNormal, mean_, scale_);
  }

 private:
  random::Seed seed_;
  float mean_ = 0.0f, scale_ = 1.0f;
  Shape shape_;
  DataType dtype_ = DataType::kFloat;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "RandomNormal", 1, kLatestOpset, RandomNormalKernel);

}  // namespace onyx
