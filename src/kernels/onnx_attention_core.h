// The heads of ai.onnx Attention (opsets 23-25, kernels/cpu/onnx_attention.cc), once the kernel
// has checked its inputs and staged them in the compute type Acc (float for float32, float16
// and bfloat16; double for double): per batch item b and query head n (reading key/value head
// n / (Hq / Hkv)), per query row s,
//   x_j = scale * q_s . k_j                        (qk_matmul_output mode 0)
//   x_j = softcap * tanh(x_j / softcap)  if softcap > 0                 (mode 1)
//   x_j = x_j + bias_j                                                   (mode 2)
//   p = softmax(x) in softmax_precision, or 0 where every bias_j is -inf (mode 3)
//   y_s = sum_j p_j v_j
// for keys j < T. bias_j is -inf where key j is structurally hidden from row s: causal
// (j > s + offset_b), outside the window [p - left, p + right] (p = s + offset_b, a bound of -1
// is no bound), padding (j >= valid_b), past the mask's last dim; else the mask's value
// (0 without a mask). Threads take (batch, query head) pairs; blocks of kBlockRows query rows
// go through small_matmul against the keys they see (float), single rows through row dots.
#pragma once
#include <cstdint>
#include <vector>

namespace onyx {

struct OnnxAttentionProblem {
  int64_t batch = 0, q_heads = 0, kv_heads = 0;
  int64_t q_len = 0;   // S
  int64_t total = 0;   // T: past plus new keys
  int64_t d = 0, dv = 0;
  // Element (b, n, s, i) of Q is at q[b * q_b + n * q_n + s * q_s + i]; of Y likewise.
  int64_t q_b = 0, q_n = 0, q_s = 0;
  int64_t y_b = 0, y_n = 0, y_s = 0;
  // The mask as an additive bias of shape [.., .., .., mask_len] read through strides (0 on a
  // broadcast dim); keys at or past mask_len are hidden. has_mask false: no mask.
  bool has_mask = false;
  int64_t m_b = 0, m_h = 0, m_s = 0, mask_len = 0;
  std::vector<int64_t> offset;  // per batch item: the causal/window offset
  std::vector<int64_t> valid;   // per batch item: keys [0, valid) are not padding
  bool causal = false;
  int64_t left = -1, right = -1;
  double scale = 1.0;
  double softcap = 0.0;
  int qk_mode = 0;            // what qk (when asked for) holds
  int softmax_precision = 0;  // 0: the compute type's; else an ONNX type code (1, 10, 11, 16)
};

// Pointers in the compute type: Q as described by the strides, K [B, Hkv, T, D] and
// V [B, Hkv, T, Dv] contiguous, the mask (may be null without one), Y (zero-filled by the
// caller), qk [B, Hq, S, T] (null when not asked for).
template <typename Acc>
struct OnnxAttentionOperands {
  const Acc* q = nullptr;
  const Acc* k = nullptr;
  const Acc* v = nullptr;
  const Acc* mask = nullptr;
  Acc* y = nullptr;
  Acc* qk = nullptr;
};

template <typename Acc>
void onnx_attention_heads(const OnnxAttentionProblem& p, const OnnxAttentionOperands<Acc>& ops);

}  // namespace onyx
