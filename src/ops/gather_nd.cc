// GatherND: data's element type, shape indices.shape[:-1] + data.shape[batch_dims + k:] where
// k = indices.shape[-1] (batch_dims from opset 12, default 0). Without a known k only the
// leading dims would be known, so the shape is then unknown.
#include "ops/op_rule.h"
#include "ops/shape_rule_util.h"

namespace onyx::ops {
namespace {

Status infer_gather_nd(InferenceContext& ctx) {
  const DataType elem = ctx.input_elem_type(0);
  const SymbolicShape data = ctx.input_shape(0);
  const SymbolicShape indices = ctx.input_shape(1);
  if (!data.has_rank || !indices.has_rank || indices.dims.empty() || !indices.dims.back().value) {
    ctx.set_output(0, elem, {});
    return Status::Ok();
  }
  const int64_t r = int64_t(data.dims.size());
  const int64_t b = ctx.attr_int("batch_dims", 0);
  const int64_t k = *indices.dims.back().value;
  if (b < 0 || k < 0 || b > r - k || b >= int64_t(indices.dims.size()))  // b + k > r, without overflow
    return invalid_model("GatherND: indices of last dim ", k, " and batch_dims ", b, " do not fit data of rank ", r);
  SymbolicShape out = unknown_dims(0);
  out.dims.assign(indices.dims.begin(), indices.dims.end() - 1);
  for (int64_t d = 0; d < b; ++d) out.dims[size_t(d)] = dim_merge(out.dims[size_t(d)], data.dims[size_t(d)]);
  out.dims.insert(out.dims.end(), data.dims.begin() + b + k, data.dims.end());
  ctx.set_output(0, elem, std::move(out));
  return Status::Ok();
}

}  // namespace

ONYX_REGISTER_OP_RULE("", "GatherND", 1, 1000, infer_gather_nd);

}  // namespace onyx::ops
