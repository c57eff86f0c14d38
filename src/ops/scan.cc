// Scan: body (st_1..st_N, si_1..si_M) -> (st_1..st_N, so_1..so_K).
// Opset 9+: inputs (init_1..init_N, scan_1..scan_M); outputs the N final states, typed as the
// body declares them (narrowed to what they share with the initial values), then each so_k
// stacked along its scan_output_axes entry, that dim being the scan length L (the first scan
// input's dim along its scan_input_axes entry).
// Opset 8: inputs (sequence_lens?, init..., scan...), all batched on axis 0: states are
// [B, ...body state], scan outputs [B, L, ...body output] (zero-padded past each batch's
// sequence_lens), L being the scan inputs' dim 1.
#include "ops/control_flow_shape.h"
#include "ops/op_rule.h"

namespace onyx::ops {
namespace {

// Prepends `dim` to a tensor type with a rank; unknown otherwise.
ir::TypeInfo with_leading(const ir::TypeInfo& t, Dim dim) { return stacked_type(t, 0, std::move(dim)); }

Status infer_scan(InferenceContext& ctx) {
  const ir::Attribute* body_attr = ctx.node().attribute("body");
  if (!body_attr || !body_attr->g) return Status::Ok();
  const auto& body_out = body_attr->g->outputs;
  const int64_t m = ctx.attr_int("num_scan_inputs", 0);
  const bool legacy = ctx.opset() < 9;
  const int first = legacy ? 1 : 0;  // opset 8's sequence_lens comes first
  if (m < 1) return Status::Ok();  // the kernel rejects it (checked first: INT64_MIN would overflow n)
  const int64_t n = ctx.num_inputs() - first - m;
  if (n < 0) return Status::Ok();  // the kernel rejects it

  Dim batch, len;
  const SymbolicShape scan0 = ctx.input_shape(first + int(n));
  if (legacy) {
    if (scan0.has_rank && scan0.dims.size() >= 2) {
      batch = scan0.dims[0];
      len = scan0.dims[1];
    }
  } else {
    const std::vector<int64_t> in_axes = ctx.attr_ints("scan_input_axes");
    int64_t axis = in_axes.empty() ? 0 : in_axes[0];
    if (scan0.has_rank) {
      const int64_t r = int64_t(scan0.dims.size());
      if (axis < 0) axis += r;
      if (axis >= 0 && axis < r) len = scan0.dims[size_t(axis)];
    }
  }
  const std::vector<int64_t> out_axes = ctx.attr_ints("scan_output_axes");
  for (int i = 0; i < ctx.num_outputs() && size_t(i) < body_out.size(); ++i) {
    const ir::TypeInfo& body = body_out[size_t(i)].type;
    if (i < n) {
      const ir::TypeInfo state = legacy ? with_leading(body, batch) : body;
      ctx.set_output_type(i, carried_type(state, ctx.input_type(first + i)));
      continue;
    }
    if (legacy) {
      ctx.set_output_type(i, with_leading(with_leading(body, len), batch));
      continue;
    }
    const size_t k = size_t(i - n);
    int64_t axis = k < out_axes.size() ? out_axes[k] : 0;
    if (axis < 0 && body.kind == ir::TypeInfo::Kind::kTensor && body.shape.has_rank)
      axis += int64_t(body.shape.dims.size()) + 1;
    ctx.set_output_type(i, stacked_type(body, axis, len));
  }
  return Status::Ok();
}

}  // namespace
ONYX_REGISTER_OP_RULE("", "Scan", 8, 1000, infer_scan);
}  // namespace onyx::ops
