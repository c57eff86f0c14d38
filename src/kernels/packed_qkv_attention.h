// The attention shared by com.microsoft Attention and QAttention once their projections have
// made the packed Q | K | V rows: per head, softmax(Q K^T * scale + mask + attention_bias) V.
//
// mask_index (optional, int32 or int64): [B] key lengths (right padding), [2B] end then start
// positions (left padding), [B, T] or [B, S, T] raw masks (a key counts where the value is
// > 0), T the key length (S plus any past). A masked key gets mask_filter_value added, once
// per reason (padding, and with `causal` the keys after the query), as ONNX Runtime's CPU
// kernels do. attention_bias (optional, float32) is [B or 1, N or 1, S, T]. The packed path
// has no past state: T = S.
#pragma once
#include <cstdint>
#include <vector>

#include "core/status.h"
#include "core/tensor.h"
#include "kernels/kernel.h"
#include "kernels/onednn_head_products.h"

namespace onyx {

struct PackedQkvAttention {
  int64_t heads = 0;
  float scale = 1.f;
  float mask_filter_value = -10000.f;
  bool causal = false;
};

// mask_index read as "is key j masked for query i of batch item b".
class AttentionMask {
 public:
  // INVALID_ARGUMENT / NOT_IMPLEMENTED naming `op` for a type or shape it does not take.
  static Result<AttentionMask> read(const Tensor* mask, int64_t batch, int64_t seq, int64_t keys, const char* op);
  bool masked(int64_t b, int64_t i, int64_t j) const;

 private:
  enum class Kind { kNone, kEnd, kEndStart, kRaw2, kRaw3 } kind_ = Kind::kNone;
  std::vector<int64_t> values_;
  int64_t batch_ = 0, seq_ = 0, keys_ = 0;
};

// y [B, S, hv] from qkv [B * S, hq + hq + hv] (rows of Q | K | V); `attn_bias` may be null.
// Checks attention_bias's shape (INVALID_ARGUMENT naming `op`).
Status run_packed_qkv_attention(KernelContext& ctx, const onednn::HeadProducts& products, const PackedQkvAttention& p,
                                const float* qkv, int64_t batch, int64_t seq, int64_t hq, int64_t hv,
                                const AttentionMask& mask, const Tensor* attn_bias, float* y, const char* op);

}  // namespace onyx
