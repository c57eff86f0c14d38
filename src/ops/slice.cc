// Slice: input 0's element type and rank. Along each sliced axis the length follows from
// starts/ends/steps (attributes before opset 10; constant inputs 1-4 from 10) and a known
// dim; a whole-axis slice (start 0, end past any real dim, step 1) keeps a symbolic dim.
// Axes not sliced keep their dims; when the axes are not known every dim is unknown.
#include <algorithm>
#include <climits>

#include "ops/op_rule.h"
#include "ops/shape_rule_util.h"

namespace onyx::ops {
namespace {

// Length of dim[start:end:step], as the kernel computes it.
int64_t slice_length(int64_t dim, int64_t start, int64_t end, int64_t step) {
  if (start < 0) start += dim;
  if (end < 0) end += dim;
  const int64_t mag = step > 0 ? std::min(step, dim + 1) : (step < -dim - 1 ? dim + 1 : -step);
  if (step > 0) {
    start = std::clamp<int64_t>(start, 0, dim);
    end = std::clamp<int64_t>(end, 0, dim);
    return end > start ? (end - start - 1) / mag + 1 : 0;
  }
  if (dim <= 0) return 0;
  start = std::clamp<int64_t>(start, 0, dim - 1);
  end = std::clamp<int64_t>(end, -1, dim - 1);
  return start > end ? (start - end - 1) / mag + 1 : 0;
}

Status infer_slice(InferenceContext& ctx) {
  const DataType elem = ctx.input_elem_type(0);
  const SymbolicShape in = ctx.input_shape(0);
  if (!in.has_rank) {
    ctx.set_output(0, elem, {});
    return Status::Ok();
  }
  const int64_t rank = int64_t(in.dims.size());
  std::optional<std::vector<int64_t>> starts, ends, axes, steps;  // steps: nullopt means all 1
  bool steps_known = true;
  if (ctx.opset() < 10) {
    if (ctx.has_attr("starts")) starts = ctx.attr_ints("starts");
    if (ctx.has_attr("ends")) ends = ctx.attr_ints("ends");
    if (ctx.has_attr("axes")) axes = ctx.attr_ints("axes");
  } else {
    starts = constant_ints(ctx, 1);
    ends = constant_ints(ctx, 2);
    if (ctx.has_input(3)) {
      axes = constant_ints(ctx, 3);
      if (!axes) {  // any axis may be sliced
        ctx.set_output(0, elem, unknown_dims(rank));
        return Status::Ok();
      }
    }
    if (ctx.has_input(4)) {
      steps = constant_ints(ctx, 4);
      steps_known = steps.has_value();
    }
  }
  // Without axes they are 0..n-1, n the number of starts (or ends, or steps) when known.
  std::optional<int64_t> count;
  if (starts) count = int64_t(starts->size());
  else if (ends) count = int64_t(ends->size());
  else if (ctx.opset() >= 10) count = known_length(ctx, 1);
  if (!axes) {
    if (!count) {
      ctx.set_output(0, elem, unknown_dims(rank));
      return Status::Ok();
    }
    if (*count > rank) return invalid_model("Slice: ", *count, " starts or ends for rank ", rank);
    axes = std::vector<int64_t>();
    for (int64_t i = 0; i < *count; ++i) axes->push_back(i);
  }
  if (!normalize_axes(*axes, rank)) return invalid_model("Slice: axes out of range or repeated for rank ", rank);
  const size_t n = axes->size();
  const bool values_known = starts && ends && steps_known;
  if (values_known && (starts->size() != n || ends->size() != n || (steps && steps->size() != n)))
    return invalid_model("Slice: starts, ends, axes and steps must have the same length");

  SymbolicShape out = in;
  for (size_t i = 0; i < n; ++i) {
    Dim& d = out.dims[size_t((*axes)[i])];
    if (!values_known) {
      d = Dim{};
      continue;
    }
    const int64_t start = (*starts)[i], end = (*ends)[i], step = steps ? (*steps)[i] : 1;
    if (step == 0) return invalid_model("Slice: step 0");
    if (d.value) d = known_dim(slice_length(*d.value, start, end, step));
    else if (!(start == 0 && end >= INT32_MAX && step == 1)) d = Dim{};
  }
  ctx.set_output(0, elem, std::move(out));
  return Status::Ok();
}

}  // namespace

ONYX_REGISTER_OP_RULE("", "Slice", 1, 1000, infer_slice);

}  // namespace onyx::ops
