// Sliding-window geometry shared by Conv, ConvTranspose, the pools and their integer and
// quantized variants: the kernel_shape / strides / dilations / pads / auto_pad / ceil_mode
// attributes, the output size they give, and im2col / col2im over that geometry.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/shape.h"
#include "core/status.h"
#include "kernels/kernel.h"

namespace onyx {

enum class AutoPad { kNotSet, kSameUpper, kSameLower, kValid };

// The attributes as written on the node; empty vectors mean "not given".
struct WindowAttrs {
  std::vector<int64_t> kernel_shape;
  std::vector<int64_t> strides;
  std::vector<int64_t> dilations;
  std::vector<int64_t> pads;  // begins then ends
  AutoPad auto_pad = AutoPad::kNotSet;
  bool ceil_mode = false;
};

// Reads the window attributes (ceil_mode only when the op has it) and checks each value:
// kernel, strides and dilations >= 1, pads >= 0, all below 2^31, pads of even length.
Status parse_window_attrs(const KernelInfo& info, WindowAttrs* attrs);

// A window geometry resolved for one input: per spatial dim, the input size, kernel size,
// stride, dilation, padding and output size.
struct WindowGeometry {
  std::vector<int64_t> in, kernel, strides, dilations, pad_begin, pad_end, out;
  size_t rank() const { return in.size(); }
  int64_t in_size() const { return shape_size(in); }
  int64_t out_size() const { return shape_size(out); }
  int64_t kernel_size() const { return shape_size(kernel); }
  // The output seen as rows of its last dim: out_rows() rows of row_size() positions.
  int64_t row_size() const { return out.empty() ? 1 : out.back(); }
  int64_t out_rows() const { return out.empty() ? 1 : shape_size(std::vector<int64_t>(out.begin(), out.end() - 1)); }
};

// Resolves `attrs` for input spatial dims `in` and kernel dims `kernel` (the attribute or the
// weight shape) into a forward (Conv / pool) geometry: out = floor or ceil of
// (in + pads - dilated kernel) / stride + 1, or the SAME / VALID sizes. With ceil_mode a last
// window that would start inside the end padding is dropped. INVALID_ARGUMENT when the
// attribute lengths do not match the rank or the padded input is smaller than the kernel.
Result<WindowGeometry> resolve_window(const WindowAttrs& attrs, const Shape& in, const std::vector<int64_t>& kernel);

// Column buffers of im2col / col2im are kept to about this many elements by working on a
// range of output rows at a time.
inline constexpr int64_t kColumnBudget = int64_t(1) << 22;

// How many output rows of g fit a column buffer of kColumnBudget elements with `rows` rows
// (at least one).
inline int64_t rows_per_chunk(const WindowGeometry& g, int64_t rows) {
  const int64_t per_row = std::max<int64_t>(1, rows * g.row_size());
  return std::max<int64_t>(1, kColumnBudget / per_row);
}

// im2col over the output rows [row_begin, row_end) (see row_size()), i.e. the L = (row_end -
// row_begin) * row_size() output positions from o0 = row_begin * row_size():
// col[(c * K + k) * L + j] = x[c, window k of output o0 + j], 0 where the window reads
// padding, for `channels` planes of x; K = kernel_size().
template <typename Src, typename Dst>
void im2col(const Src* x, int64_t channels, const WindowGeometry& g, int64_t row_begin, int64_t row_end, Dst* col);

// The adjoint of im2col over the same rows: y[c, window k of output o0 + j] += col[(c * K + k)
// * L + j], skipping padding. `y` holds `channels` planes of size in_size(); it is accumulated
// into, not cleared.
template <typename T>
void col2im(const T* col, int64_t channels, const WindowGeometry& g, int64_t row_begin, int64_t row_end, T* y);

}  // namespace onyx

// ---- template definitions ----

namespace onyx {
namespace spatial_detail {

inline int64_t ceil_div(int64_t a, int64_t b) { return a >= 0 ? (a + b - 1) / b : -((-a) / b); }

// Calls fn(j, valid, base) for the output rows row_begin + j < row_end (positions of output
// dims [0, rank-1)) and one kernel offset `kidx`: `base` is the flat input offset of dims
// [0, rank-1) scaled by the last input dim, `valid` false when that position reads padding.
template <typename F>
void for_each_row(const WindowGeometry& g, const std::vector<int64_t>& kidx, int64_t row_begin, int64_t row_end,
                  F&& fn) {
  const size_t r = g.rank();
  std::vector<int64_t> oidx(r, 0);
  int64_t rest = row_begin;
  for (size_t d = r - 1; d-- > 0;) {
    oidx[d] = rest % g.out[d];
    rest /= g.out[d];
  }
  for (int64_t row = 0; row < row_end - row_begin; ++row) {
    bool valid = true;
    int64_t off = 0;
    for (size_t d = 0; d + 1 < r; ++d) {
      const int64_t i = oidx[d] * g.strides[d] - g.pad_begin[d] + kidx[d] * g.dilations[d];
      if (i < 0 || i >= g.in[d]) valid = false;
      off = off * g.in[d] + i;
    }
    fn(row, valid, off * g.in[r - 1]);
    for (size_t d = r - 1; d-- > 0;) {
      if (++oidx[d] < g.out[d]) break;
      oidx[d] = 0;
    }
  }
}

// Advances a row-major multi-index over `dims`.
inline void next_index(std::vector<int64_t>& idx, const std::vector<int64_t>& dims) {
  for (size_t d = dims.size(); d-- > 0;) {
    if (++idx[d] < dims[d]) return;
    idx[d] = 0;
  }
}

}  // namespace spatial_detail

template <typename Src, typename Dst>
void im2col(const Src* x, int64_t channels, const WindowGeometry& g, int64_t row_begin, int64_t row_end, Dst* col) {
  using namespace spatial_detail;
  const size_t r = g.rank();
  const int64_t K = g.kernel_size(), O = (row_end - row_begin) * g.row_size(), I = g.in_size();
  if (O <= 0 || K <= 0) return;
  if (r == 0) {
    for (int64_t c = 0; c < channels; ++c) col[c] = static_cast<Dst>(x[c]);
    return;
  }
  const int64_t out_last = g.out[r - 1], in_last = g.in[r - 1], s = g.strides[r - 1];
  std::vector<int64_t> kidx(r, 0);
  for (int64_t c = 0; c < channels; ++c) {
    const Src* xc = x + c * I;
    std::fill(kidx.begin(), kidx.end(), 0);
    for (int64_t k = 0; k < K; ++k, next_index(kidx, g.kernel)) {
      Dst* dst = col + (c * K + k) * O;
      const int64_t shift = kidx[r - 1] * g.dilations[r - 1] - g.pad_begin[r - 1];
      const int64_t lo = std::clamp<int64_t>(ceil_div(-shift, s), 0, out_last);
      const int64_t hi = std::clamp<int64_t>(ceil_div(in_last - shift, s), lo, out_last);
      for_each_row(g, kidx, row_begin, row_end, [&](int64_t row, bool valid, int64_t base) {
        Dst* d = dst + row * out_last;
        if (!valid) {
          std::fill(d, d + out_last, Dst(0));
          return;
        }
        const Src* src = xc + base;
        std::fill(d, d + lo, Dst(0));
        for (int64_t o = lo; o < hi; ++o) d[o] = static_cast<Dst>(src[shift + o * s]);
        std::fill(d + hi, d + out_last, Dst(0));
      });
    }
  }
}

template <typename T>
void col2im(const T* col, int64_t channels, const WindowGeometry& g, int64_t row_begin, int64_t row_end, T* y) {
  using namespace spatial_detail;
  const size_t r = g.rank();
  const int64_t K = g.kernel_size(), O = (row_end - row_begin) * g.row_size(), I = g.in_size();
  if (O <= 0 || K <= 0) return;
  if (r == 0) {
    for (int64_t c = 0; c < channels; ++c) y[c] += col[c];
    return;
  }
  const int64_t out_last = g.out[r - 1], in_last = g.in[r - 1], s = g.strides[r - 1];
  std::vector<int64_t> kidx(r, 0);
  for (int64_t c = 0; c < channels; ++c) {
    T* yc = y + c * I;
    std::fill(kidx.begin(), kidx.end(), 0);
    for (int64_t k = 0; k < K; ++k, next_index(kidx, g.kernel)) {
      const T* src = col + (c * K + k) * O;
      const int64_t shift = kidx[r - 1] * g.dilations[r - 1] - g.pad_begin[r - 1];
      const int64_t lo = std::clamp<int64_t>(ceil_div(-shift, s), 0, out_last);
      const int64_t hi = std::clamp<int64_t>(ceil_div(in_last - shift, s), lo, out_last);
      for_each_row(g, kidx, row_begin, row_end, [&](int64_t row, bool valid, int64_t base) {
        if (!valid) return;
        const T* srow = src + row * out_last;
        T* dst = yc + base;
        for (int64_t o = lo; o < hi; ++o) dst[shift + o * s] += srow[o];
      });
    }
  }
}

}  // namespace onyx
