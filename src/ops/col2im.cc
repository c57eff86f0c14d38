// Col2Im: input 0's type; [N, C, image_shape...] with C = dim 1 / prod(block_shape) when
// image_shape (and, for C, block_shape) are constant; rank 2 + len(image_shape) when only
// that length is known.
#include "ops/op_rule.h"
#include "ops/shape_rule_util.h"

namespace onyx::ops {
namespace {

Status infer_col2im(InferenceContext& ctx) {
  const DataType elem = ctx.input_elem_type(0);
  const SymbolicShape in = ctx.input_shape(0);
  const std::optional<std::vector<int64_t>> image = constant_ints(ctx, 1), block = constant_ints(ctx, 2);
  const std::optional<int64_t> n = image ? std::optional<int64_t>(int64_t(image->size())) : known_length(ctx, 1);
  if (!n) {
    ctx.set_output(0, elem, {});
    return Status::Ok();
  }
  SymbolicShape out = unknown_dims(2 + *n);
  if (in.has_rank && in.dims.size() == 3) {
    out.dims[0] = in.dims[0];
    if (block) {
      int64_t size = 1;
      for (int64_t b : *block) size = b > 0 && size < (int64_t(1) << 40) ? size * b : 0;
      if (size > 0) out.dims[1] = dim_divided(in.dims[1], size);
    }
  }
  if (image)
    for (size_t d = 0; d < image->size(); ++d)
      if ((*image)[d] >= 0) out.dims[2 + d] = known_dim((*image)[d]);
  ctx.set_output(0, elem, std::move(out));
  return Status::Ok();
}

}  // namespace

ONYX_REGISTER_OP_RULE("", "Col2Im", 18, 1000, infer_col2im);

}  // namespace onyx::ops
