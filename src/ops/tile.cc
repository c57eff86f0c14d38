// Tile: input 0's element type and rank; dim d times repeats[d] (constant input 1, opset >= 6)
// or, at opset 1, dim 'axis' (constant input 2) times 'tiles' (constant input 1).
#include "ops/op_rule.h"
#include "ops/shape_rule_util.h"

namespace onyx::ops {
namespace {

Status infer_tile(InferenceContext& ctx) {
  const DataType elem = ctx.input_elem_type(0);
  const SymbolicShape in = ctx.input_shape(0);
  if (!in.has_rank) {
    ctx.set_output(0, elem, {});
    return Status::Ok();
  }
  const int64_t rank = int64_t(in.dims.size());
  std::vector<int64_t> repeats;
  if (ctx.opset() < 6) {
    std::optional<std::vector<int64_t>> tiles = constant_ints(ctx, 1), axis = constant_ints(ctx, 2);
    if (tiles && axis && tiles->size() == 1 && axis->size() == 1) {
      int64_t a = (*axis)[0];
      if (!normalize_axis(a, rank)) return invalid_model("Tile: axis ", a, " is out of range for rank ", rank);
      repeats.assign(size_t(rank), 1);
      repeats[size_t(a)] = (*tiles)[0];
    }
  } else if (std::optional<std::vector<int64_t>> r = constant_ints(ctx, 1)) {
    if (int64_t(r->size()) != rank) return invalid_model("Tile: ", r->size(), " repeats for rank ", rank);
    repeats = *r;
  }
  if (repeats.empty()) {
    ctx.set_output(0, elem, unknown_dims(rank));
    return Status::Ok();
  }
  SymbolicShape out = in;
  for (size_t d = 0; d < out.dims.size(); ++d) {
    if (repeats[d] < 0) return invalid_model("Tile: negative repeat ", repeats[d]);
    out.dims[d] = dim_times(in.dims[d], repeats[d]);
  }
  ctx.set_output(0, elem, std::move(out));
  return Status::Ok();
}

}  // namespace

ONYX_REGISTER_OP_RULE("", "Tile", 1, 1000, infer_tile);

}  // namespace onyx::ops
