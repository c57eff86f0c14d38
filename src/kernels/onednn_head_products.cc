#include "kernels/onednn_head_products.h"

#include <cstring>
#include <unordered_map>

#include "kernels/onednn.h"

namespace onyx::onednn {
namespace {

constexpr size_t kMaxCachedShapes = 32;

dnnl::memory::desc strided(int64_t d0, int64_t d1, int64_t d2, int64_t s0, int64_t s1, int64_t s2) {
  return f32_desc({d0, d1, d2}, {s0, s1, s2});
}

int64_t bits_of(float f) {
  int32_t b;
  std::memcpy(&b, &f, sizeof b);
  return b;
}

}  // namespace

Result<std::shared_ptr<const HeadProducts::Entry>> HeadProducts::entry_for(const std::vector<int64_t>& key,
                                                                           const dnnl::memory::desc& src,
                                                                           const dnnl::memory::desc& weights,
                                                                           const dnnl::memory::desc& dst,
                                                                           float scale) const {
  std::lock_guard<std::mutex> lock(mu_);
  if (auto it = cache_.find(key); it != cache_.end()) return std::shared_ptr<const Entry>(it->second);
  auto entry = std::make_shared<Entry>();
  ONYX_RETURN_IF_ERROR(guarded("attention matmul setup", [&] {
    dnnl::primitive_attr attr = base_attr();
    if (scale != 1.0f) attr.set_output_scales(0, {scale});
    entry->pd = dnnl::matmul::primitive_desc(dnnl::matmul::desc(src, weights, dst), attr, engine());
    entry->prim = dnnl::matmul(entry->pd);
  }));
  if (cache_.size() >= kMaxCachedShapes) cache_.clear();  // dynamic shapes: keep the cache bounded
  cache_.emplace(key, entry);
  return std::shared_ptr<const Entry>(entry);
}

Status HeadProducts::run(const Entry& e, const float* src, const float* weights, float* dst) const {
  return guarded("attention matmul", [&] {
    std::unordered_map<int, dnnl::memory> args{
        {DNNL_ARG_SRC, dnnl::memory(e.pd.src_desc(), engine(), const_cast<float*>(src))},
        {DNNL_ARG_WEIGHTS, dnnl::memory(e.pd.weights_desc(), engine(), const_cast<float*>(weights))},
        {DNNL_ARG_DST, dnnl::memory(e.pd.dst_desc(), engine(), dst)}};
    execute(e.prim, e.pd, args);
  });
}

Status HeadProducts::scores(const float* q, int64_t ldq, const float* k, int64_t ldk, float* p, int64_t heads,
                            int64_t seq, int64_t len, int64_t h, float scale) const {
  // Q as [heads, seq, h], K^T as [heads, h, len] (a transposed view of K's rows), P dense.
  const std::vector<int64_t> key{0, heads, seq, len, h, ldq, ldk, bits_of(scale)};
  ONYX_ASSIGN_OR_RETURN(auto entry, entry_for(key, strided(heads, seq, h, h, ldq, 1), strided(heads, h, len, h, 1, ldk),
                                              strided(heads, seq, len, seq * len, len, 1), scale));
  return run(*entry, q, k, p);
}

Status HeadProducts::context(const float* p, const float* v, int64_t ldv, float* o, int64_t ldo, int64_t heads,
                             int64_t seq, int64_t len, int64_t hv) const {
  const std::vector<int64_t> key{1, heads, seq, len, hv, ldv, ldo};
  ONYX_ASSIGN_OR_RETURN(auto entry, entry_for(key, strided(heads, seq, len, seq * len, len, 1),
                                              strided(heads, len, hv, hv, ldv, 1), strided(heads, seq, hv, hv, ldo, 1),
                                              1.0f));
  return run(*entry, p, v, o);
}

Status HeadProducts::context_transposed(const float* p, const float* v, int64_t ldv, float* o, int64_t ldo,
                                        int64_t heads, int64_t seq, int64_t len, int64_t hv) const {
  // P^T as [heads, len, seq] (a transposed view of each head's dense [seq, len] block).
  const std::vector<int64_t> key{2, heads, seq, len, hv, ldv, ldo};
  ONYX_ASSIGN_OR_RETURN(auto entry, entry_for(key, strided(heads, len, seq, seq * len, 1, len),
                                              strided(heads, seq, hv, hv, ldv, 1), strided(heads, len, hv, hv, ldo, 1),
                                              1.0f));
  return run(*entry, p, v, o);
}

}  // namespace onyx::onednn
