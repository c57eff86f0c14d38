// No contraction into FMAs in the AVX2/AVX-512 clones, so that every clone rounds as PyTorch's
// separate operations do. (CMakeLists.txt builds this file without math errno, so that the
// loops' square roots vectorise.)
#pragma GCC optimize("fp-contract=off")
#include "kernels/adam_update.h"

#include <algorithm>
#include <cmath>

#include "core/parallel.h"
#include "kernels/target_clones.h"

namespace onyx {
namespace {

// Outputs alias inputs only element for element (in place): no dependence between elements.
ONYX_TARGET_CLONES void torch_form(const AdamConstants& k, const float* px, const float* pg, const float* pm,
                                   const float* pv, float* ox, float* om, float* ov, int64_t n) {
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC ivdep
#endif
  for (int64_t i = 0; i < n; ++i) {
    const float g = k.l2 != 0.f ? pg[i] + k.l2 * px[i] : pg[i];  // L2 regularisation adds wd X
    const float m = pm[i] + k.one_b1 * (g - pm[i]);    // PyTorch's lerp toward g
    const float v = k.b2 * pv[i] + k.one_b2 * (g * g);
    const float xd = px[i] * k.decay;
    om[i] = m;
    ov[i] = v;
    ox[i] = xd - k.step_size * (m / (std::sqrt(v) / k.bc2_sqrt + k.eps));
  }
}

ONYX_TARGET_CLONES void transformers_form(const AdamConstants& k, const float* px, const float* pg, const float* pm,
                                          const float* pv, float* ox, float* om, float* ov, int64_t n) {
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC ivdep
#endif
  for (int64_t i = 0; i < n; ++i) {
    const float g = pg[i];
    const float m = pm[i] + k.one_b1 * (g - pm[i]);
    const float v = k.b2 * pv[i] + k.one_b2 * (g * g);
    om[i] = m;
    ov[i] = v;
    const float x = px[i] - k.step_size * (m / (std::sqrt(v) + k.eps));
    ox[i] = x - k.post_decay * x;
  }
}

}  // namespace

AdamConstants adam_constants(const AdamHyper& h, int64_t step) {
  AdamConstants k;
  k.mode = h.mode;
  const double bc1 = h.bias_correction ? 1.0 - std::pow(h.beta1, double(step)) : 1.0;
  const double bc2 = h.bias_correction ? 1.0 - std::pow(h.beta2, double(step)) : 1.0;
  k.b2 = float(h.beta2);
  k.eps = float(h.eps);
  k.one_b1 = float(1.0 - h.beta1);
  k.one_b2 = float(1.0 - h.beta2);
  switch (h.mode) {
    case AdamMode::kAdamWTorch:
      k.decay = float(1.0 - h.lr * h.weight_decay);
      k.step_size = float(h.lr / bc1);
      k.bc2_sqrt = float(std::sqrt(bc2));
      break;
    case AdamMode::kL2Regularization:
      k.l2 = float(h.weight_decay);
      k.step_size = float(h.lr / bc1);
      k.bc2_sqrt = float(std::sqrt(bc2));
      break;
    case AdamMode::kAdamWTransformers:
      k.step_size = float(h.lr * std::sqrt(bc2) / bc1);
      k.post_decay = float(h.lr * h.weight_decay);
      break;
  }
  return k;
}

void adam_span(const AdamConstants& k, const float* x, const float* g, const float* m, const float* v, float* x_out,
               float* m_out, float* v_out, int64_t n) {
  if (k.mode == AdamMode::kAdamWTransformers) transformers_form(k, x, g, m, v, x_out, m_out, v_out, n);
  else torch_form(k, x, g, m, v, x_out, m_out, v_out, n);
}

void fused_adam_step(const AdamHyper& h, const std::vector<AdamTensor>& tensors) {
  // Work in pieces of at most kPiece elements of one tensor, the pieces of all tensors shared
  // out to the threads together, so that many small tensors cost one parallel region.
  constexpr int64_t kPiece = 32768;
  struct Piece {
    size_t tensor;
    int64_t begin, end;
  };
  std::vector<Piece> pieces;
  std::vector<AdamConstants> constants;
  constants.reserve(tensors.size());
  for (size_t t = 0; t < tensors.size(); ++t) {
    constants.push_back(adam_constants(h, tensors[t].step));
    for (int64_t b = 0; b < tensors[t].count; b += kPiece) pieces.push_back({t, b, std::min(tensors[t].count, b + kPiece)});
  }
  parallel_for(int64_t(pieces.size()), 1, [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      const Piece& piece = pieces[size_t(p)];
      const AdamTensor& t = tensors[piece.tensor];
      const int64_t b = piece.begin;
      adam_span(constants[piece.tensor], t.param + b, t.grad + b, t.exp_avg + b, t.exp_avg_sq + b, t.param + b,
                t.exp_avg + b, t.exp_avg_sq + b, piece.end - b);
    }
  });
}

}  // namespace onyx
