// ConstantOfShape: a tensor of the given shape filled with the one-element 'value'
// attribute (default float32 0); its dtype is value's.
#include <algorithm>

#include "kernels/element_copy.h"
#include "kernels/kernel.h"
#include "kernels/shape_util.h"

namespace onyx {
namespace {

class ConstantOfShapeKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    if (const Tensor* v = info.attr_tensor("value")) {
      if (v->numel() != 1) return invalid_model("ConstantOfShape: 'value' must hold one element, got ", v->describe());
      ONYX_ASSIGN_OR_RETURN(value_, v->reshaped({}));
    } else {
      value_ = Tensor::scalar<float>(0.0f);
    }
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> shape, read_int_list(ctx.input(0), "input"));
    for (int64_t d : shape)
      if (d < 0) return invalid_argument("ConstantOfShape: invalid shape ", shape_to_string(shape));
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output(0, value_.dtype(), shape));
    if (is_packed_type(value_.dtype())) {  // int4, float4e2m1, int2 ...: one code, repeated
      const uint8_t code = unpack_codes(value_).data<uint8_t>()[0];
      Tensor codes(DataType::kUInt8, shape);
      std::fill_n(codes.data<uint8_t>(), codes.numel(), code);
      pack_codes(codes, *y);
      return Status::Ok();
    }
    return dispatch_by_size(value_.dtype(), [&]<typename U>() -> Status {
      const U v = *value_.data<U>();
      U* out = y->data<U>();
      for (int64_t i = 0; i < y->numel(); ++i) out[i] = v;
      return Status::Ok();
    });
  }

 private:
  Tensor value_;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "ConstantOfShape", 1, kLatestOpset, ConstantOfShapeKernel);

}  // namespace onyx
