// What AttentionCore and AttentionCoreGrad (ai.onyx.training) share: their attributes and where
// the rows of query [B, S, N*H], key [B, L, N*H] and value [B, L, N*Hv] are. Those come as
// three tensors or, packed, as one [B, S, 3*N*H] tensor holding query | key | value side by
// side in each row (a projection's output before its Split: then L = S and Hv = H). float32.
#pragma once
#include <cstdint>

#include "kernels/kernel.h"

namespace onyx {

struct AttentionCoreDims {
  int64_t batch = 0, seq = 0, len = 0;  // B, S, L
  int64_t d = 0, dv = 0;                // N*H and N*Hv
  int64_t h = 0, hv = 0;                // H and Hv
  bool packed = false;
  // Element offsets within a batch item's block of query, key and value, their row strides
  // (leading dims) and the batch item strides.
  int64_t q_off = 0, k_off = 0, v_off = 0;
  int64_t ldq = 0, ldk = 0, ldv = 0;
  int64_t q_batch = 0, k_batch = 0, v_batch = 0;
};

// num_heads (required, > 0) and scale (required: the fusion that makes the op writes it).
struct AttentionCoreAttributes {
  int64_t heads = 0;
  float scale = 1.f;
  static Result<AttentionCoreAttributes> read(const KernelInfo& info, const char* op);
};

// AttentionCoreGrad's inputs, checked at prepare: (dY, query, key, value, probs) or (dY, packed
// query | key | value, probs).
Status check_attention_core_grad_inputs(const KernelInfo& info);

// AttentionCoreGrad's outputs for dims `d` (inputs as above, `packed` for the second form): dY
// and probs checked against `d`; dQ, dK and dV (or the one packed output) allocated where the
// kernel's outputs live, and pointed at their first head's first element. `whole` is false when
// a dim is degenerate (no batch item, row, key or head width): then the outputs are zero-filled,
// as the empty products would leave them.
struct AttentionCoreGradTargets {
  float* dq = nullptr;
  float* dk = nullptr;
  float* dv = nullptr;
  bool whole = false;
};
Result<AttentionCoreGradTargets> attention_core_grad_targets(KernelContext& ctx, const AttentionCoreDims& d,
                                                             int64_t heads, bool packed);

// The dims of inputs[first, first + count) (count 1: packed, 3: separate), or INVALID_ARGUMENT
// naming `op` and the shapes (NOT_IMPLEMENTED for other types).
Result<AttentionCoreDims> attention_core_dims(const char* op, const KernelContext& ctx, int first, int count,
                                              int64_t heads);

}  // namespace onyx
