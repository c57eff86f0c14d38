// AffineGrid: theta's type; (N, H, W, 2) or (N, D, H, W, 3) from a constant 'size' (N from
// theta when 'size' is unknown but its length 4 or 5 is).
#include "ops/op_rule.h"
#include "ops/shape_rule_util.h"

namespace onyx::ops {
namespace {

Status infer_affine_grid(InferenceContext& ctx) {
  const DataType elem = ctx.input_elem_type(0);
  const std::optional<std::vector<int64_t>> size = constant_ints(ctx, 1);
  const std::optional<int64_t> len = size ? std::optional<int64_t>(int64_t(size->size())) : known_length(ctx, 1);
  if (!len || (*len != 4 && *len != 5)) {
    ctx.set_output(0, elem, {});
    return Status::Ok();
  }
  const int64_t dims = *len - 2;
  SymbolicShape out = unknown_dims(dims + 2);
  const SymbolicShape theta = ctx.input_shape(0);
  if (theta.has_rank && theta.dims.size() == 3) out.dims[0] = theta.dims[0];
  out.dims[size_t(dims + 1)] = known_dim(dims);
  if (size) {
    for (int64_t d = 0; d < dims; ++d)
      if ((*size)[size_t(2 + d)] >= 0) out.dims[size_t(1 + d)] = known_dim((*size)[size_t(2 + d)]);
    if ((*size)[0] >= 0) out.dims[0] = known_dim((*size)[0]);
  }
  ctx.set_output(0, elem, std::move(out));
  return Status::Ok();
}

}  // namespace

ONYX_REGISTER_OP_RULE("", "AffineGrid", 20, 1000, infer_affine_grid);

}  // namespace onyx::ops
