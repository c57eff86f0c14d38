// SplitToSequence: a sequence of pieces of the input along 'axis', of the input's element
// type and rank (less the axis when keepdims = 0 and there is no 'split'). The axis dim of
// the pieces is 1 without 'split', and the piece length when a constant 'split' makes all
// pieces equally long; unknown otherwise.
#include "ops/op_rule.h"
#include "ops/type_merge.h"

namespace onyx::ops {
namespace {

// The common length of all pieces along the axis of size `dim`, when known.
std::optional<int64_t> piece_length(const Tensor& split, std::optional<int64_t> dim) {
  if (split.rank() == 0 || split.numel() == 1) {
    const int64_t s = split.get_int64(0);
    if (split.rank() == 0) return s > 0 && dim && *dim % s == 0 ? std::optional(s) : std::nullopt;
    return s;  // one piece of that length
  }
  const std::vector<int64_t> v = split.to_int64_vector();
  for (int64_t x : v)
    if (x != v[0]) return std::nullopt;
  return v.empty() ? std::nullopt : std::optional(v[0]);
}

Status infer_split_to_sequence(InferenceContext& ctx) {
  const SymbolicShape x = ctx.input_shape(0);
  ir::TypeInfo elem;
  elem.kind = ir::TypeInfo::Kind::kTensor;
  elem.elem_type = ctx.input_elem_type(0);
  if (x.has_rank && !x.dims.empty()) {
    const int64_t rank = int64_t(x.dims.size());
    int64_t axis = ctx.attr_int("axis", 0);
    if (axis < -rank || axis >= rank) {
      ctx.set_output_type(0, sequence_of(elem));
      return invalid_model("axis ", axis, " is out of range for rank ", rank);
    }
    if (axis < 0) axis += rank;
    elem.shape = x;
    Dim& d = elem.shape.dims[size_t(axis)];
    if (!ctx.has_input(1)) {
      if (ctx.attr_int("keepdims", 1) != 0) d = Dim{1, ""};
      else elem.shape.dims.erase(elem.shape.dims.begin() + axis);
    } else if (const Tensor* split = ctx.constant_input(1); split && split->numel() > 0) {
      const auto len = piece_length(*split, d.value);
      d = len ? Dim{*len, ""} : Dim{};
    } else {
      d = Dim{};
    }
  }
  ctx.set_output_type(0, sequence_of(elem));
  return Status::Ok();
}

}  // namespace
ONYX_REGISTER_OP_RULE("", "SplitToSequence", 11, 1000, infer_split_to_sequence);
}  // namespace onyx::ops
