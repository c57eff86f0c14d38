// RandomUniformLike: a tensor of the input's shape drawn from the distribution with 'low' and
// 'high', of type 'dtype' (default: the input's type, which must then be floating-point);
// reproducible for a given 'seed'.
#include "kernels/random_common.h"

namespace onyx {
namespace {

class RandomUniformLikeKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    seed_ = random::parse_seed(info);
    low_ = info.attr_float("low", 0.0f);
    high_ = info.attr_float("high", 1.0f);
    return random::parse_float_dtype(info, &dtype_);
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    if (!x.defined()) return invalid_argument("RandomUniformLike needs a tensor input");
    const DataType dtype = dtype_ == DataType::kUndefined ? x.dtype() : dtype_;
    if (!is_float_type(dtype))
      return invalid_argument("RandomUniformLike without dtype needs a floating-point input, got ",
                              data_type_name(dtype));
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output(0, dtype, x.shape()));
    return random::fill(*y, seed_, random::Distribution::kUniform, low_, high_);
  }

 private:
  random::Seed seed_;
  float low_ = 0.0f, high_ = 1.0f;
  DataType dtype_ = DataType::kUndefined;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "RandomUniformLike", 1, kLatestOpset, RandomUniformLikeKernel);

}  // namespace onyx
