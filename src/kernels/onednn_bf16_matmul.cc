#include "kernels/onednn_bf16_matmul.h"

#include <immintrin.h>

#include <cstring>
#include <unordered_map>

#include "kernels/onednn.h"

namespace onyx::onednn {
namespace {

constexpr size_t kMaxCachedShapes = 32;

uint16_t bf16_of(float x) {
  uint32_t u;
  std::memcpy(&u, &x, 4);
  if ((u & 0x7fffffffu) > 0x7f800000u) return uint16_t((u >> 16) | 0x40);  // NaN: quiet, sign kept
  return uint16_t((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

__attribute__((target("avx512f,avx512bf16"))) int64_t floats_to_bf16_avx512(const float* x, uint16_t* y, int64_t n) {
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    // vcvtne2ps2bf16 rounds to nearest even; its second operand fills the low half.
    const __m512bh both = _mm512_cvtne2ps_pbh(_mm512_loadu_ps(x + i + 16), _mm512_loadu_ps(x + i));
    _mm512_storeu_si512(y + i, (__m512i)both);
  }
  return i;
}

}  // namespace

bool cpu_has_avx512_bf16() {
  static const bool yes = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bf16");
  return yes;
}

void floats_to_bf16(const float* x, uint16_t* y, int64_t n) {
  int64_t i = cpu_has_avx512_bf16() ? floats_to_bf16_avx512(x, y, n) : 0;
  for (; i < n; ++i) y[i] = bf16_of(x[i]);
}

Status Bf16MatMul::run(int64_t m, int64_t n, int64_t k, const uint16_t* a, const uint16_t* b, bool trans_b,
                       float* y) const {
  if (m <= 0 || n <= 0 || k <= 0) return invalid_argument("bf16 matmul needs positive dims, got ", m, "x", n, "x", k);
  std::shared_ptr<const Entry> entry;
  {
    std::lock_guard<std::mutex> lock(mu_);
    const auto key = std::make_tuple(m, n, k, trans_b);
    if (auto it = cache_.find(key); it != cache_.end()) {
      entry = it->second;
    } else {
      auto made = std::make_shared<Entry>();
      using dt = dnnl::memory::data_type;
      ONYX_RETURN_IF_ERROR(guarded("bf16 matmul setup", [&] {
        const dnnl::memory::desc a_md({m, k}, dt::bf16, dnnl::memory::dims{k, 1});
        const dnnl::memory::desc b_md({k, n}, dt::bf16, trans_b ? dnnl::memory::dims{1, k} : dnnl::memory::dims{n, 1});
        const dnnl::memory::desc y_md({m, n}, dt::f32, dnnl::memory::dims{n, 1});
        made->pd = dnnl::matmul::primitive_desc(dnnl::matmul::desc(a_md, b_md, y_md), base_attr(), engine());
        made->prim = dnnl::matmul(made->pd);
      }));
      if (cache_.size() >= kMaxCachedShapes) cache_.clear();
      cache_.emplace(key, made);
      entry = made;
    }
  }
  return guarded("bf16 matmul", [&] {
    std::unordered_map<int, dnnl::memory> args;
    args[DNNL_ARG_SRC] = dnnl::memory(entry->pd.src_desc(), engine(), const_cast<uint16_t*>(a));
    args[DNNL_ARG_WEIGHTS] = dnnl::memory(entry->pd.weights_desc(), engine(), const_cast<uint16_t*>(b));
    args[DNNL_ARG_DST] = dnnl::memory(entry->pd.dst_desc(), engine(), y);
    execute(entry->prim, entry->pd, args);
  });
}

}  // namespace onyx::onednn
