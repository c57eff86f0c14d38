// com.microsoft EmbedLayerNormalization: output and embedding_sum (outputs 0 and 2) are
// (B, S, hidden) of word_embedding's type, with B, S from input_ids and hidden from
// word_embedding's second dim; mask_index (output 1) is int32 (B).
#include "ops/op_rule.h"

namespace onyx::ops {
namespace {
Status infer_embed_layer_normalization(InferenceContext& ctx) {
  const SymbolicShape ids = ctx.input_shape(0);
  const SymbolicShape words = ctx.input_shape(2);
  const DataType t = ctx.input_elem_type(2);
  SymbolicShape out, mask;
  if (ids.has_rank && ids.dims.size() == 2) {
    out.has_rank = mask.has_rank = true;
    out.dims = {ids.dims[0], ids.dims[1], Dim{}};
    mask.dims = {ids.dims[0]};
    if (words.has_rank && words.dims.size() == 2) out.dims[2] = words.dims[1];
  }
  ctx.set_output(0, t, out);
  if (ctx.num_outputs() > 1) ctx.set_output(1, DataType::kInt32, mask);
  if (ctx.num_outputs() > 2) ctx.set_output(2, t, out);
  return Status::Ok();
}
}  // namespace

ONYX_REGISTER_OP_RULE("com.microsoft", "EmbedLayerNormalization", 1, 1000, infer_embed_layer_normalization);
}  // namespace onyx::ops
