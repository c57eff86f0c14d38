// RandomNormalLike: a tensor of the input's shape drawn from the distribution with 'mean' and
// 'scale', of type 'dtype' (default: the input's type, which must then be floating-point);
// reproducible for a given 'seed'.
#include "kernels/random_common.h"

namespace onyx {
namespace {

class RandomNormalLikeKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    seed_ = random::parse_seed(info);
    mean_ = info.attr_float("mean", 0.0f);
    scale_ = info.attr_float("scale", 1.0f);
    return random::parse_float_dtype(info, &dtype_);
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    if (!x.defined()) return invalid_argument("RandomNormalLike needs a tensor input");
    const DataType dtype = dtype_ == DataType::kUndefined ? x.dtype() : dtype_;
    if (!is_float_type(dtype))
      return invalid_argument("RandomNormalLike without dtype needs a floating-point input, got ",
                              data_type_name(dtype));
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output(0, dtype, x.shape()));
    return random::fill(*y, seed_, random::Distribution::kNormal, mean_, scale_);
  }

 private:
  random::Seed seed_;
  float mean_ = 0.0f, scale_ = 1.0f;
  DataType dtype_ = DataType::kUndefined;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "RandomNormalLike", 1, kLatestOpset, RandomNormalLikeKernel);

}  // namespace onyx
