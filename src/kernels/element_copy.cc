#include "kernels/element_copy.h"

#include <algorithm>
#include <cstring>
#include <type_traits>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#include "core/narrow_types.h"
#include "core/parallel.h"

namespace onyx {
namespace {

// Drops size-1 dims and merges adjacent dims that are contiguous in src.
void coalesce(Shape& shape, std::vector<int64_t>& strides) {
  Shape s;
  std::vector<int64_t> st;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1) continue;
    if (!s.empty() && st.back() == strides[d] * shape[d]) {
      s.back() *= shape[d];
      st.back() = strides[d];
    } else {
      s.push_back(shape[d]);
      st.push_back(strides[d]);
    }
  }
  if (s.empty()) {
    s.push_back(1);
    st.push_back(0);
  }
  shape = std::move(s);
  strides = std::move(st);
}

// Source offset of outer index o (row-major over all dims but the last two).
int64_t outer_offset(int64_t o, const Shape& shape, const std::vector<int64_t>& strides) {
  int64_t off = 0;
  for (int64_t d = int64_t(shape.size()) - 3; d >= 0; --d) {
    off += (o % shape[size_t(d)]) * strides[size_t(d)];
    o /= shape[size_t(d)];
  }
  return off;
}

// The coalesced copy is a batch of 2-D transposes when the source is contiguous along the
// next-to-last output dim (stride 1) but not along the last: dst [outer..., R, C] from
// src (o, r, c) at offset(o) + r + c * col_stride. Row-by-row copying then reads C scattered
// elements per row and, for a small C (NCHW -> NHWC with 3 channels), spends most of its time
// on index bookkeeping; tiles of kTile x kTile keep both sides in cache and the inner loop tight.
bool is_batched_transpose(const Shape& shape, const std::vector<int64_t>& strides) {
  const size_t rank = shape.size();
  return rank >= 2 && strides[rank - 2] == 1 && strides[rank - 1] != 1;
}

#if defined(__x86_64__) && defined(__GNUC__)
#define ONYX_HAVE_INTERLEAVE3 1
// dst[3r + c] = s_c[r] for r < rows, c < 3: three planes into one interleaved row (a 3-channel
// image from NCHW to NHWC), 16 rows (48 outputs) per step with two lane permutations per
// output vector. AVX-512F; callers check interleave3_available().
__attribute__((target("avx512f"))) void interleave3_avx512(const uint32_t* s0, const uint32_t* s1,
                                                           const uint32_t* s2, uint32_t* dst, int64_t rows) {
  // Output vector k holds interleaved elements e = 16k + j, from plane e % 3, row e / 3 (of
  // the 16-row step). The first permutation picks planes 0 and 1; the second brings in plane 2.
  alignas(64) int32_t from01[3][16], from2[3][16];
  for (int k = 0; k < 3; ++k) {
    for (int j = 0; j < 16; ++j) {
      const int e = 16 * k + j, r = e / 3, c = e % 3;
      from01[k][j] = c == 1 ? 16 + r : r;
      from2[k][j] = c == 2 ? 16 + r : j;
    }
  }
  __m512i p01[3], p2[3];
  for (int k = 0; k < 3; ++k) {
    p01[k] = _mm512_load_si512(from01[k]);
    p2[k] = _mm512_load_si512(from2[k]);
  }
  int64_t r = 0;
  for (; r + 16 <= rows; r += 16) {
    const __m512i a = _mm512_loadu_si512(s0 + r), b = _mm512_loadu_si512(s1 + r), c = _mm512_loadu_si512(s2 + r);
    for (int k = 0; k < 3; ++k)
      _mm512_storeu_si512(dst + 3 * r + 16 * k,
                          _mm512_permutex2var_epi32(_mm512_permutex2var_epi32(a, p01[k], b), p2[k], c));
  }
  for (; r < rows; ++r) {
    dst[3 * r] = s0[r];
    dst[3 * r + 1] = s1[r];
    dst[3 * r + 2] = s2[r];
  }
}

bool interleave3_available() {
  static const bool available = __builtin_cpu_supports("avx512f");
  return available;
}
#endif

// Three planes of 4-byte elements per outer index into interleaved rows, in parallel over row chunks.
// Returns false when the CPU lacks the vector path.
bool interleave3_planes(const uint32_t* src, const Shape& shape, const std::vector<int64_t>& strides, uint32_t* dst) {
#ifdef ONYX_HAVE_INTERLEAVE3
  if (!interleave3_available()) return false;
  constexpr int64_t kChunk = 4096;  // rows per task
  const int rank = int(shape.size());
  const int64_t rows = shape[size_t(rank - 2)], plane_stride = strides[size_t(rank - 1)];
  const int64_t outer = shape_size(shape) / (rows * 3), chunks = (rows + kChunk - 1) / kChunk;
  parallel_for(outer * chunks, 1, [&](int64_t begin, int64_t end) {
    for (int64_t t = begin; t < end; ++t) {
      const int64_t o = t / chunks, r0 = (t % chunks) * kChunk, n = std::min(kChunk, rows - r0);
      const int64_t src_off = outer_offset(o, shape, strides);
      const uint32_t* in = src + src_off + r0;
      interleave3_avx512(in, in + plane_stride, in + 2 * plane_stride, dst + (o * rows + r0) * 3, n);
    }
  });
  return true;
#else
  (void)src, (void)shape, (void)strides, (void)dst;
  return false;
#endif
}

template <typename U>
void batched_transpose_typed(const U* src, const Shape& shape, const std::vector<int64_t>& strides, U* dst) {
  if constexpr (sizeof(U) == 4) {
    if (shape.back() == 3 && interleave3_planes(src, shape, strides, dst)) return;
  }
  constexpr int64_t kTile = 32;
  const int rank = int(shape.size());
  const int64_t rows = shape[size_t(rank - 2)], cols = shape[size_t(rank - 1)];
  const int64_t col_stride = strides[size_t(rank - 1)];
  const int64_t outer = shape_size(shape) / (rows * cols);
  const int64_t row_tiles = (rows + kTile - 1) / kTile;
  const int64_t tile_elements = kTile * std::min(cols, kTile);
  const int64_t grain = std::max<int64_t>(1, 16384 / tile_elements);
  parallel_for(outer * row_tiles, grain, [&](int64_t begin, int64_t end) {
    for (int64_t t = begin; t < end; ++t) {
      const int64_t o = t / row_tiles, r0 = (t % row_tiles) * kTile;
      const int64_t r1 = std::min(rows, r0 + kTile);
      const int64_t src_off = outer_offset(o, shape, strides);
      const U* in = src + src_off;
      U* out = dst + o * rows * cols;
      for (int64_t c0 = 0; c0 < cols; c0 += kTile) {
        const int64_t c1 = std::min(cols, c0 + kTile);
        for (int64_t r = r0; r < r1; ++r) {
          U* out_row = out + r * cols;
          const U* in_row = in + r;
          for (int64_t c = c0; c < c1; ++c) out_row[c] = in_row[c * col_stride];
        }
      }
    }
  });
}

template <typename U>
void strided_copy_typed(const U* src, const Shape& shape, const std::vector<int64_t>& strides, U* dst) {
  const int rank = int(shape.size());
  const int64_t inner = shape[size_t(rank - 1)];
  const int64_t inner_stride = strides[size_t(rank - 1)];
  const int64_t rows = shape_size(shape) / inner;
  const int64_t grain = inner >= 4096 ? 1 : 4096 / inner;
  parallel_for(rows, grain, [&](int64_t begin, int64_t end) {
    // Unravel `begin` into the outer index and its source offset.
    std::vector<int64_t> idx(size_t(rank), 0);
    int64_t off = 0;
    for (int64_t r = begin, d = rank - 2; d >= 0; --d) {
      idx[size_t(d)] = r % shape[size_t(d)];
      r /= shape[size_t(d)];
      off += idx[size_t(d)] * strides[size_t(d)];
    }
    for (int64_t row = begin; row < end; ++row) {
      U* out = dst + row * inner;
      const U* in = src + off;
      if constexpr (std::is_trivially_copyable_v<U>) {
        if (inner_stride == 1) {
          std::memcpy(out, in, size_t(inner) * sizeof(U));
        } else {
          for (int64_t i = 0; i < inner; ++i) out[i] = in[i * inner_stride];
        }
      } else {
        for (int64_t i = 0; i < inner; ++i) out[i] = in[i * inner_stride];
      }
      for (int d = rank - 2; d >= 0; --d) {
        off += strides[size_t(d)];
        if (++idx[size_t(d)] < shape[size_t(d)]) break;
        off -= strides[size_t(d)] * shape[size_t(d)];
        idx[size_t(d)] = 0;
      }
    }
  });
}

}  // namespace

Tensor unpack_codes(const Tensor& packed) {
  Tensor codes(DataType::kUInt8, packed.shape());
  const void* src = packed.raw_data();
  uint8_t* dst = codes.data<uint8_t>();
  for (int64_t i = 0; i < packed.numel(); ++i) dst[i] = narrow_code_at(src, packed.dtype(), i);
  return codes;
}

void pack_codes(const Tensor& codes, Tensor& packed) {
  const uint8_t* src = codes.data<uint8_t>();
  const int64_t n = std::min(codes.numel(), packed.numel());
  void* dst = packed.raw_data();
  if (packed.nbytes() > 0) std::memset(dst, 0, packed.nbytes());  // the unused bits of the last byte stay 0
  for (int64_t i = 0; i < n; ++i) set_narrow_code(dst, packed.dtype(), i, src[i]);
}

Status strided_copy(const Tensor& src, int64_t src_offset, const std::vector<int64_t>& src_strides,
                    const Shape& shape, Tensor& dst) {
  if (src_strides.size() != shape.size() || shape_size(shape) != dst.numel() || src.dtype() != dst.dtype())
    return error(StatusCode::kInternal, "strided_copy: inconsistent shapes or types");
  if (dst.numel() == 0) return Status::Ok();
  if (is_packed_type(src.dtype())) {  // moved as one code a byte, then packed again
    Tensor moved(DataType::kUInt8, dst.shape());
    ONYX_RETURN_IF_ERROR(strided_copy(unpack_codes(src), src_offset, src_strides, shape, moved));
    pack_codes(moved, dst);
    return Status::Ok();
  }
  Shape s = shape;
  std::vector<int64_t> st = src_strides;
  coalesce(s, st);
  return dispatch_by_size(src.dtype(), [&]<typename U>() -> Status {
    if constexpr (std::is_trivially_copyable_v<U>) {
      if (is_batched_transpose(s, st)) {
        batched_transpose_typed<U>(src.data<U>() + src_offset, s, st, dst.data<U>());
        return Status::Ok();
      }
    }
    strided_copy_typed<U>(src.data<U>() + src_offset, s, st, dst.data<U>());
    return Status::Ok();
  });
}

}  // namespace onyx
