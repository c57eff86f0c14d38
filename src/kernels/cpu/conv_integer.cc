// ConvInteger: Conv over int8 / uint8 x and w minus their zero points (x_zero_point per
// tensor, w_zero_point per tensor or per output channel), giving int32 (wrapping) sums.
#include "kernels/conv_common.h"
#include "kernels/conv_integer_common.h"
#include "kernels/kernel.h"

namespace onyx {
namespace {

class ConvIntegerKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override { return parse_conv_attrs(info, &attrs_, &group_); }

  Status compute(KernelContext& ctx) const override {
    ONYX_ASSIGN_OR_RETURN(IntegerConvResult r,
                          integer_conv(attrs_, group_, ctx.input(0), ctx.input(2), ctx.input(1), ctx.input(3)));
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output(0, DataType::kInt32, r.y_shape));
    int32_t* out = y->data<int32_t>();
    for (int64_t i = 0; i < y->numel(); ++i) out[i] = static_cast<int32_t>(r.acc[size_t(i)]);
    return Status::Ok();
  }

 private:
  WindowAttrs attrs_;
  int64_t group_ = 1;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "ConvInteger", 10, kLatestOpset, ConvIntegerKernel);

}  // namespace onyx
