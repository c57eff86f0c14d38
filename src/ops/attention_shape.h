// The shape rule shared by com.microsoft Attention and QAttention: output [B, S, hv] (B and S
// from input 0) of type `elem`; the present output (when named) of that type, shape unknown.
#pragma once
#include <cstdint>
#include <optional>

#include "ops/op_rule.h"
#include "ops/shape_rule_util.h"

namespace onyx::ops {

inline Status set_attention_outputs(InferenceContext& ctx, std::optional<int64_t> hv, DataType elem) {
  const SymbolicShape x = ctx.input_shape(0);
  SymbolicShape out = unknown_dims(3);
  if (x.has_rank && x.dims.size() == 3) {
    out.dims[0] = x.dims[0];
    out.dims[1] = x.dims[1];
  }
  if (hv) out.dims[2] = known_dim(*hv);
  ctx.set_output(0, elem, std::move(out));
  for (int k = 1; k < ctx.num_outputs(); ++k) ctx.set_output(k, elem, {});
  return Status::Ok();
}

// A third of input `w_index`'s second dim (the packed Q|K|V width), when known.
inline std::optional<int64_t> third_of_width(const InferenceContext& ctx, int w_index) {
  const SymbolicShape w = ctx.input_shape(w_index);
  if (w.has_rank && w.dims.size() == 2 && w.dims[1].value && *w.dims[1].value % 3 == 0) return *w.dims[1].value / 3;
  return std::nullopt;
}

}  // namespace onyx::ops
