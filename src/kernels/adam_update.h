// The Adam update in place over float32 memory, shared by the AdamW kernel (one tensor per
// call, PyTorch's AdamW) and onyx.training.optim.FusedAdam (every parameter of a model in one
// call, threads spread over all their elements), in onnxruntime FusedAdam's three modes:
//
//   kAdamWTorch (torch.optim.AdamW):    X' = X (1 - lr wd); M' = M + (1 - b1)(G - M);
//        V' = b2 V + (1 - b2) G^2;      X'' = X' - lr / bc1 * M' / (sqrt(V') / sqrt(bc2) + eps)
//   kAdamWTransformers (transformers' AdamW): M', V' as above;
//        X' = X - lr sqrt(bc2) / bc1 * M' / (sqrt(V') + eps);  X'' = X' - lr wd X'
//   kL2Regularization (Adam with L2): G' = G + wd X, then M', V' and X'' as kAdamWTorch with wd 0
//
// bc1 = 1 - b1^t and bc2 = 1 - b2^t at step t (1 for both without bias correction). The scalars
// are computed in float64 once per tensor, the elements in float32 without contraction into
// FMAs (each operation rounds as PyTorch's separate tensor operations do).
#pragma once
#include <cstdint>
#include <vector>

namespace onyx {

enum class AdamMode { kL2Regularization = 0, kAdamWTransformers = 1, kAdamWTorch = 2 };

struct AdamHyper {
  double lr = 1e-3, beta1 = 0.9, beta2 = 0.999, eps = 1e-6, weight_decay = 0;
  bool bias_correction = true;
  AdamMode mode = AdamMode::kAdamWTorch;
};

// One tensor's memory and the step it is taking (1 for its first). grad is read only; param,
// exp_avg and exp_avg_sq are updated in place.
struct AdamTensor {
  float* param = nullptr;
  const float* grad = nullptr;
  float* exp_avg = nullptr;
  float* exp_avg_sq = nullptr;
  int64_t count = 0;
  int64_t step = 1;
};

// The per-tensor scalars of a step.
struct AdamConstants {
  float decay = 1, step_size = 0, bc2_sqrt = 1, b2 = 0, eps = 0, one_b1 = 0, one_b2 = 0, l2 = 0, post_decay = 0;
  AdamMode mode = AdamMode::kAdamWTorch;
};
AdamConstants adam_constants(const AdamHyper& h, int64_t step);

// Elements [0, n) of one tensor: outputs may be the inputs (each element is read before it is
// written).
void adam_span(const AdamConstants& k, const float* x, const float* g, const float* m, const float* v, float* x_out,
               float* m_out, float* v_out, int64_t n);

// One step of every tensor, in place, their elements spread over the intra-op threads.
void fused_adam_step(const AdamHyper& h, const std::vector<AdamTensor>& tensors);

}  // namespace onyx
