// ai.onnx.ml ArrayFeatureExtractor: X's type, X.shape[:-1] + [K] (K = the number of
// indices); a 1-D X gives [1, K].
#include "ops/ml_shape.h"

namespace onyx::ops {
namespace {
Status infer_array_feature_extractor(InferenceContext& ctx) {
  const SymbolicShape x = ctx.input_shape(0);
  const SymbolicShape y = ctx.input_shape(1);
  Dim k;
  if (y.has_rank) {
    int64_t count = 1;
    bool known = true;
    for (const Dim& d : y.dims) {
      if (!d.value || *d.value > (int64_t(1) << 40)) known = false;
      else count *= *d.value;
    }
    if (known) k.value = count;
  }
  SymbolicShape out;
  if (x.has_rank && x.dims.size() == 1) out = SymbolicShape{true, {known_dim(1), k}};
  else if (x.has_rank && !x.dims.empty()) {
    out = x;
    out.dims.back() = k;
  }
  ctx.set_output(0, ctx.input_elem_type(0), std::move(out));
  return Status::Ok();
}
}  // namespace
ONYX_REGISTER_OP_RULE("ai.onnx.ml", "ArrayFeatureExtractor", 1, 1000, infer_array_feature_extractor);
}  // namespace onyx::ops
