// Cast: y = x converted to the element type 'to' (see kernels/convert.h for the rules).
// Before opset 6 'to' is a type name string ("FLOAT"); from opset 6 a TensorProto.DataType code.
// From opset 19 `saturate` (float8 targets) and from 24 `round_mode` (float8e8m0).
#include "kernels/convert.h"
#include "kernels/unary.h"

namespace onyx {
namespace {

class CastKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    const ir::Attribute* to = info.attr("to");
    if (to == nullptr) return invalid_model("Cast: missing attribute 'to'");
    if (to->type == ir::Attribute::Type::kString) {
      const std::optional<DataType> t = data_type_from_onnx_name(to->s);
      if (!t) return invalid_model("Cast: unknown type name '", to->s, "' in 'to'");
      to_ = *t;
    } else if (to->type == ir::Attribute::Type::kInt) {
      if (to->i <= 0 || to->i > kLastDataTypeCode || !is_valid_data_type(int(to->i)))
        return invalid_model("Cast: 'to' = ", to->i, " is not a tensor element type");
      to_ = DataType(int(to->i));
    } else {
      return invalid_model("Cast: 'to' must be an int (or a type name before opset 6)");
    }
    ONYX_ASSIGN_OR_RETURN(options_, cast_options_from_node(info, "Cast"));
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, unary_input(ctx));
    if (x->dtype() == to_) {
      ctx.set_output(0, Value(*x));
      return Status::Ok();
    }
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output(0, to_, x->shape()));
    return convert_elements(*x, *y, options_);
  }

 private:
  DataType to_ = DataType::kUndefined;
  CastOptions options_;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "Cast", 1, kLatestOpset, CastKernel);

}  // namespace onyx
