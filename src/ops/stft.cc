// STFT: signal [batch, length, 1 or 2], frame_step (input 1), window (input 2), frame_length
// (input 3) -> [batch, frames, bins, 2] of the signal's type, with n the frame length
// (frame_length, else the window's length), frames = (length - n) / frame_step + 1 and
// bins = n / 2 + 1 when onesided (default), n otherwise.
#include "ops/signal_shape.h"

namespace onyx::ops {
namespace {
Status infer_stft(InferenceContext& ctx) {
  const SymbolicShape signal = ctx.input_shape(0);
  SymbolicShape out = unknown_dims(4);
  out.dims[3].value = 2;
  std::optional<int64_t> n = constant_int_scalar(ctx, 3);
  if (!n && !ctx.has_input(3) && ctx.has_input(2)) {
    const SymbolicShape w = ctx.input_shape(2);
    if (w.has_rank && w.dims.size() == 1) n = w.dims[0].value;
  }
  if (signal.has_rank && signal.dims.size() == 3) {
    out.dims[0] = signal.dims[0];
    const auto step = constant_int_scalar(ctx, 1);
    const auto length = signal.dims[1].value;
    if (n && step && length && *step > 0 && *n > 0 && *n <= *length) out.dims[1].value = (*length - *n) / *step + 1;
  }
  if (n && *n > 0) out.dims[2].value = ctx.attr_int("onesided", 1) != 0 ? *n / 2 + 1 : *n;
  ctx.set_output(0, ctx.input_elem_type(0), std::move(out));
  return Status::Ok();
}
}  // namespace
ONYX_REGISTER_OP_RULE("", "STFT", 17, 1000, infer_stft);
}  // namespace onyx::ops
