// DFT: input [..., 1 or 2] -> output of the same type and rank, last dim 2; the transformed
// axis has dft_length (input 1, when constant; the input's size when omitted) values, or
// length / 2 + 1 when onesided. The axis is an attribute (default 1) before opset 20 and
// input 2 (default -2) from opset 20. With inverse=1 and onesided=1 (irfft) the last dim is
// 1 and the axis has dft_length values (default 2 * (input length - 1)).
#include "ops/signal_shape.h"

namespace onyx::ops {
namespace {
Status infer_dft(InferenceContext& ctx) {
  const DataType elem = ctx.input_elem_type(0);
  const SymbolicShape x = ctx.input_shape(0);
  if (!x.has_rank || x.dims.size() < 2) {
    ctx.set_output(0, elem, {});
    return Status::Ok();
  }
  const int64_t rank = int64_t(x.dims.size());
  const bool irfft = ctx.attr_int("inverse", 0) != 0 && ctx.attr_int("onesided", 0) != 0;
  SymbolicShape out = x;
  out.dims.back() = Dim{irfft ? 1 : 2, "", ""};
  std::optional<int64_t> axis;
  if (ctx.opset() < 20) axis = ctx.attr_int("axis", 1);
  else if (!ctx.has_input(2)) axis = -2;
  else axis = constant_int_scalar(ctx, 2);
  if (axis && *axis < 0) *axis += rank;
  if (!axis || *axis < 0 || *axis > rank - 2) {
    for (int64_t d = 0; d < rank - 1; ++d) out.dims[size_t(d)] = Dim{};  // which one changes is unknown
    ctx.set_output(0, elem, std::move(out));
    return Status::Ok();
  }
  Dim& len = out.dims[size_t(*axis)];
  if (ctx.has_input(1)) {
    const auto n = constant_int_scalar(ctx, 1);
    len = n ? Dim{*n, "", ""} : Dim{};
  } else if (irfft) {
    len = len.value && *len.value >= 1 ? Dim{2 * (*len.value - 1), "", ""} : Dim{};
  }
  if (ctx.attr_int("onesided", 0) != 0 && !irfft) len = len.value ? Dim{*len.value / 2 + 1, "", ""} : Dim{};
  ctx.set_output(0, elem, std::move(out));
  return Status::Ok();
}
}  // namespace
ONYX_REGISTER_OP_RULE("", "DFT", 17, 1000, infer_dft);
}  // namespace onyx::ops
