// ConcatFromSequence: the sequence's tensors joined along 'axis' (same rank, the axis dim
// unknown), or with new_axis = 1 stacked along a new unknown dim at 'axis' (in [-r-1, r]).
// Element type: the sequence's.
#include "ops/op_rule.h"

namespace onyx::ops {
namespace {
Status infer_concat_from_sequence(InferenceContext& ctx) {
  const ir::TypeInfo* seq = ctx.input_type(0);
  if (!seq || seq->kind != ir::TypeInfo::Kind::kSequence || !seq->inner ||
      seq->inner->kind != ir::TypeInfo::Kind::kTensor)
    return Status::Ok();
  const ir::TypeInfo& elem = *seq->inner;
  SymbolicShape shape = elem.shape;
  if (shape.has_rank) {
    const bool new_axis = ctx.attr_int("new_axis", 0) != 0;
    const int64_t rank = int64_t(shape.dims.size()) + (new_axis ? 1 : 0);
    int64_t axis = ctx.attr_int("axis", 0);
    if (axis < -rank || axis >= rank) {
      ctx.set_output(0, elem.elem_type, {});
      return invalid_model("axis ", axis, " is out of range for rank ", rank);
    }
    if (axis < 0) axis += rank;
    if (new_axis) shape.dims.insert(shape.dims.begin() + axis, Dim{});
    else shape.dims[size_t(axis)] = Dim{};
  }
  ctx.set_output(0, elem.elem_type, std::move(shape));
  return Status::Ok();
}
}  // namespace
ONYX_REGISTER_OP_RULE("", "ConcatFromSequence", 11, 1000, infer_concat_from_sequence);
}  // namespace onyx::ops
