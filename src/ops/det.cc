// Det: X's element type, shape X.shape[:-2] (X is [*, M, M]).
#include "ops/op_rule.h"

namespace onyx::ops {
namespace {

Status infer_det(InferenceContext& ctx) {
  const DataType elem = ctx.input_elem_type(0);
  SymbolicShape out = ctx.input_shape(0);
  if (out.has_rank) {
    const size_t r = out.dims.size();
    if (r < 2) return invalid_model("Det: the input must have rank >= 2, got ", r);
    const Dim &a = out.dims[r - 2], &b = out.dims[r - 1];
    if (a.value && b.value && *a.value != *b.value) return invalid_model("Det: the matrices are ", *a.value, "x", *b.value);
    out.dims.resize(r - 2);
  }
  ctx.set_output(0, elem, std::move(out));
  return Status::Ok();
}

}  // namespace

ONYX_REGISTER_OP_RULE("", "Det", 1, 1000, infer_det);

}  // namespace onyx::ops
