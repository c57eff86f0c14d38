// GridSample: X (N, C, D1..Dr), grid (N, O1..Or, r) -> Y (N, C, O1..Or) of X's type.
#include "ops/op_rule.h"

namespace onyx::ops {
namespace {
Status infer_grid_sample(InferenceContext& ctx) {
  const DataType elem = ctx.input_elem_type(0);
  const SymbolicShape x = ctx.input_shape(0), grid = ctx.input_shape(1);
  int64_t rank = -1;
  if (grid.has_rank && grid.dims.size() >= 2) rank = int64_t(grid.dims.size());
  else if (x.has_rank && x.dims.size() >= 2) rank = int64_t(x.dims.size());
  if (rank < 0 || rank > kMaxStaticRank) {  // unknown_dims(rank) would have no dims to fill
    ctx.set_output(0, elem, {});
    return Status::Ok();
  }
  SymbolicShape out = unknown_dims(rank);
  if (x.has_rank && x.dims.size() == size_t(rank)) {
    out.dims[0] = x.dims[0];
    out.dims[1] = x.dims[1];
  }
  // The grid is [N, D1.., Dk, k] for an output [N, C, D1.., Dk]: same rank as X.
  if (grid.has_rank && grid.dims.size() == size_t(rank)) {
    if (!(x.has_rank && x.dims.size() == size_t(rank))) out.dims[0] = grid.dims[0];
    for (size_t d = 2; d < size_t(rank); ++d) out.dims[d] = grid.dims[d - 1];
  }
  ctx.set_output(0, elem, std::move(out));
  return Status::Ok();
}
}  // namespace
ONYX_REGISTER_OP_RULE("", "GridSample", 16, 1000, infer_grid_sample);
}  // namespace onyx::ops
