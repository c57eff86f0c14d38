// Split: every output has input 0's element type and dims, except along 'axis' (default 0),
// whose piece sizes come from 'split' (attribute before opset 13; constant input 1 at opset 1
// and from 13), else an even split of a known dim (from opset 18 with 'num_outputs', pieces
// of ceil(dim / n) and a smaller last one).
#include "ops/op_rule.h"
#include "ops/shape_rule_util.h"

namespace onyx::ops {
namespace {

Status infer_split(InferenceContext& ctx) {
  const DataType elem = ctx.input_elem_type(0);
  const SymbolicShape in = ctx.input_shape(0);
  const int64_t n = ctx.num_outputs();
  if (!in.has_rank || n < 1) {
    for (int i = 0; i < n; ++i) ctx.set_output(i, elem, {});
    return Status::Ok();
  }
  const int64_t rank = int64_t(in.dims.size());
  int64_t axis = ctx.attr_int("axis", 0);
  if (!normalize_axis(axis, rank)) return invalid_model("Split: axis ", axis, " is out of range for rank ", rank);
  const Dim& dim = in.dims[size_t(axis)];

  // Piece sizes; an entry stays unknown when it cannot be told.
  std::vector<Dim> pieces(static_cast<size_t>(n));
  const bool from_input = ctx.opset() >= 13 || ctx.opset() == 1;
  if (from_input && ctx.has_input(1)) {
    if (std::optional<std::vector<int64_t>> split = constant_ints(ctx, 1)) {
      if (int64_t(split->size()) != n) return invalid_model("Split: 'split' has ", split->size(), " entries for ", n, " outputs");
      for (size_t i = 0; i < split->size(); ++i) pieces[i] = known_dim((*split)[i]);
    }
  } else if (ctx.opset() < 13 && ctx.has_attr("split")) {
    const std::vector<int64_t> split = ctx.attr_ints("split");
    if (int64_t(split.size()) != n) return invalid_model("Split: 'split' has ", split.size(), " entries for ", n, " outputs");
    for (size_t i = 0; i < split.size(); ++i) pieces[i] = known_dim(split[i]);
  } else if (ctx.opset() >= 18 && ctx.has_attr("num_outputs")) {
    if (dim.value) {
      const int64_t chunk = (*dim.value + n - 1) / n;
      for (int64_t i = 0, left = *dim.value; i < n; ++i, left -= std::min(left, chunk))
        pieces[size_t(i)] = known_dim(std::min(left, chunk));
    } else if (n == 1) {
      pieces[0] = dim;
    }
  } else {
    if (dim.value && *dim.value % n != 0) return invalid_model("Split: dim ", *dim.value, " does not split evenly into ", n);
    for (Dim& p : pieces) p = dim_divided(dim, n);
  }
  for (int64_t i = 0; i < n; ++i) {
    SymbolicShape out = in;
    out.dims[size_t(axis)] = pieces[size_t(i)];
    ctx.set_output(int(i), elem, std::move(out));
  }
  return Status::Ok();
}

}  // namespace

ONYX_REGISTER_OP_RULE("", "Split", 1, 1000, infer_split);

}  // namespace onyx::ops
