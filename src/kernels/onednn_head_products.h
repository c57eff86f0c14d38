// Attention's two per-head products for all heads of one batch item at once, as oneDNN
// batched matmuls over strided views: the heads of query, key, value and output sit side by
// side in their rows (head n in columns [n*h, (n+1)*h)), so no head is copied out or back.
//
//   scores:  P[n, s, l] = scale * sum_j Q[s, n*h + j] * K[l, n*h + j]      P: [heads, seq, len], dense
//   context: O[s, n*hv + j] = sum_l P[n, s, l] * V[l, n*hv + j]
//   context_transposed: O[l, n*hv + j] = sum_s P[n, s, l] * V[s, n*hv + j]   (P^T V per head:
//            the key and value gradients of training's AttentionCoreGrad)
//
// Q, K, V and O are row-major with leading dims ldq, ldk, ldv, ldo (elements). Primitives are
// cached per shape (bounded); both calls are thread-safe. Errors from oneDNN come back as
// Status.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include <oneapi/dnnl/dnnl.hpp>

#include "core/status.h"

namespace onyx::onednn {

class HeadProducts {
 public:
  Status scores(const float* q, int64_t ldq, const float* k, int64_t ldk, float* p, int64_t heads, int64_t seq,
                int64_t len, int64_t h, float scale) const;
  Status context(const float* p, const float* v, int64_t ldv, float* o, int64_t ldo, int64_t heads, int64_t seq,
                 int64_t len, int64_t hv) const;
  Status context_transposed(const float* p, const float* v, int64_t ldv, float* o, int64_t ldo, int64_t heads,
                            int64_t seq, int64_t len, int64_t hv) const;

 private:
  struct Entry {
    dnnl::matmul::primitive_desc pd;
    dnnl::matmul prim;
  };
  // The primitive for src x weights -> dst over these descriptors, created once per key.
  Result<std::shared_ptr<const Entry>> entry_for(const std::vector<int64_t>& key, const dnnl::memory::desc& src,
                                                 const dnnl::memory::desc& weights, const dnnl::memory::desc& dst,
                                                 float scale) const;
  Status run(const Entry& e, const float* src, const float* weights, float* dst) const;

  mutable std::mutex mu_;
  mutable std::map<std::vector<int64_t>, std::shared_ptr<const Entry>> cache_;
};

}  // namespace onyx::onednn
