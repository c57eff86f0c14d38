// MelWeightMatrix: inputs num_mel_bins, dft_length, sample_rate, lower_edge_hertz,
// upper_edge_hertz -> [dft_length / 2 + 1, num_mel_bins] in output_datatype.
#include "ops/signal_shape.h"

namespace onyx::ops {
namespace {
Status infer_mel_weight_matrix(InferenceContext& ctx) {
  SymbolicShape shape = unknown_dims(2);
  if (auto dft_length = constant_int_scalar(ctx, 1); dft_length && *dft_length > 0) shape.dims[0].value = *dft_length / 2 + 1;
  if (auto bins = constant_int_scalar(ctx, 0); bins && *bins > 0) shape.dims[1].value = *bins;
  ctx.set_output(0, output_datatype(ctx), std::move(shape));
  return Status::Ok();
}
}  // namespace
ONYX_REGISTER_OP_RULE("", "MelWeightMatrix", 17, 1000, infer_mel_weight_matrix);
}  // namespace onyx::ops
