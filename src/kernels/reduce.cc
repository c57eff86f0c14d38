#include "kernels/reduce.h"

namespace onyx {

Result<ReducePlan> make_reduce_plan(const Shape& in, const std::vector<int64_t>& axes, bool keepdims) {
  const int64_t rank = int64_t(in.size());
  std::vector<bool> reduced(in.size(), axes.empty());
  for (int64_t a : axes) {
    if (a < -rank || a >= rank) return invalid_argument("reduction axis ", a, " is out of range for rank ", rank);
    const size_t d = size_t(a < 0 ? a + rank : a);
    if (reduced[d] && !axes.empty()) return invalid_argument("reduction axis ", a, " is repeated");
    reduced[d] = true;
  }
  ReducePlan p;
  p.out_count = 1;
  p.reduce_count = 1;
  const std::vector<int64_t> strides = shape_strides(in);
  bool last_reduced = false;  // kind of the last merged group (meaningless while both lists are empty)
  for (size_t d = 0; d < in.size(); ++d) {
    const int64_t n = in[d];
    if (reduced[d]) {
      p.reduce_count *= n;
      if (keepdims) p.out_shape.push_back(1);
    } else {
      p.out_count *= n;
      p.out_shape.push_back(n);
    }
    if (n == 1) continue;  // contributes nothing to either walk
    std::vector<int64_t>& dims = reduced[d] ? p.red_dims : p.kept_dims;
    std::vector<int64_t>& strs = reduced[d] ? p.red_strides : p.kept_strides;
    if (!dims.empty() && last_reduced == reduced[d]) {
      dims.back() *= n;  // row-major: the merged group keeps the inner stride
      strs.back() = strides[d];
    } else {
      dims.push_back(n);
      strs.push_back(strides[d]);
    }
    last_reduced = reduced[d];
  }
  return p;
}

Status ReduceKernel::prepare(const KernelInfo& info) {
  keepdims_ = info.attr_int("keepdims", 1) != 0;
  noop_with_empty_axes_ = info.attr_int("noop_with_empty_axes", 0) != 0;
  axes_from_input_ = info.opset() >= axes_input_since();
  // Before axes_input_since() the axes are an attribute; later models should not carry it,
  // but it is honoured when the input is absent.
  axes_attr_ = info.attr_ints("axes");
  return Status::Ok();
}

Status ReduceKernel::compute(KernelContext& ctx) const {
  const Tensor& x = ctx.input(0);
  if (!x.defined()) return invalid_argument("input 'data' is missing or not a tensor");
  std::vector<int64_t> axes = axes_attr_;
  if (axes_from_input_ && ctx.has_input(1)) {
    const Tensor& a = ctx.input(1);
    if (!a.defined() || !is_integer_type(a.dtype()) || a.rank() > 1)
      return invalid_argument("input 'axes' must be a 1-D integer tensor, got ", ctx.input_value(1).describe());
    axes = a.to_int64_vector();
  }
  if (axes.empty() && noop_with_empty_axes_) {
    ctx.set_output(0, x);
    return Status::Ok();
  }
  ONYX_ASSIGN_OR_RETURN(const ReducePlan plan, make_reduce_plan(x.shape(), axes, keepdims_));
  ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output(0, x.dtype(), plan.out_shape));
  return reduce(plan, x, *y);
}

}  // namespace onyx
