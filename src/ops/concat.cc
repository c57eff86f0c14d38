// Concat: the inputs' element type; their common dims, with the 'axis' dim summed (known only
// when every input's is). The rank comes from any input that has one.
#include "ops/op_rule.h"
#include "ops/shape_rule_util.h"

namespace onyx::ops {
namespace {

Status infer_concat(InferenceContext& ctx) {
  DataType elem = DataType::kUndefined;
  std::vector<SymbolicShape> shapes;
  int64_t rank = -1;
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    if (!ctx.has_input(i)) continue;
    if (elem == DataType::kUndefined) elem = ctx.input_elem_type(i);
    shapes.push_back(ctx.input_shape(i));
    if (!shapes.back().has_rank) continue;
    const int64_t r = int64_t(shapes.back().dims.size());
    if (rank >= 0 && r != rank) return invalid_model("Concat: inputs of rank ", rank, " and ", r);
    rank = r;
  }
  if (rank < 0 || rank > kMaxStaticRank) {  // unknown_dims(rank) would have no dims to fill
    ctx.set_output(0, elem, {});
    return Status::Ok();
  }
  int64_t axis = ctx.attr_int("axis", 1);
  if (!normalize_axis(axis, rank)) return invalid_model("Concat: axis ", axis, " is out of range for rank ", rank);
  SymbolicShape out = unknown_dims(rank);
  int64_t sum = 0;
  bool sum_known = true;
  for (const SymbolicShape& s : shapes) {
    if (!s.has_rank) {
      sum_known = false;
      continue;
    }
    for (size_t d = 0; d < size_t(rank); ++d) {
      if (int64_t(d) == axis) continue;
      const Dim& a = out.dims[d];
      const Dim& b = s.dims[d];
      if (a.value && b.value && *a.value != *b.value)
        return invalid_model("Concat: dim ", d, " differs between inputs (", *a.value, " and ", *b.value, ")");
      out.dims[d] = dim_merge(a, b);
    }
    const Dim& c = s.dims[size_t(axis)];
    if (!c.value || __builtin_add_overflow(sum, *c.value, &sum)) sum_known = false;  // dims may be up to 2^62 each
  }
  if (sum_known) out.dims[size_t(axis)] = known_dim(sum);
  else if (shapes.size() == 1) out.dims[size_t(axis)] = shapes[0].dims[size_t(axis)];
  ctx.set_output(0, elem, std::move(out));
  return Status::Ok();
}

}  // namespace

ONYX_REGISTER_OP_RULE("", "Concat", 1, 1000, infer_concat);

}  // namespace onyx::ops
