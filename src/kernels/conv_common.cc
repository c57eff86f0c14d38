#include "kernels/conv_common.h"

#include <algorithm>
#include <vector>

#include "kernels/gemm.h"

namespace onyx {

Result<WindowGeometry> resolve_conv(const WindowAttrs& attrs, int64_t group, const Shape& x, const Shape& w) {
  if (x.size() < 3) return invalid_argument("input must have rank 3 or more (N, C, D1...), got ", shape_to_string(x));
  if (w.size() != x.size())
    return invalid_argument("weight shape ", shape_to_string(w), " does not match the input rank of ",
                            shape_to_string(x));
  if (group < 1) return invalid_argument("group must be positive, got ", group);
  if (group > std::max<int64_t>(x[1], 1))
    return invalid_argument("group ", group, " exceeds the input channels ", x[1]);
  if (x[1] % group != 0 || x[1] / group != w[1])
    return invalid_argument("input channels ", x[1], " != weight channels ", w[1], " * group ", group);
  if (w[0] % group != 0) return invalid_argument("output channels ", w[0], " are not divisible by group ", group);
  std::vector<int64_t> kernel(w.begin() + 2, w.end());
  if (!attrs.kernel_shape.empty() && attrs.kernel_shape != kernel)
    return invalid_argument("kernel_shape ", shape_to_string(attrs.kernel_shape), " does not match the weight shape ",
                            shape_to_string(w));
  return resolve_window(attrs, Shape(x.begin() + 2, x.end()), kernel);
}

template <typename T>
void conv_gemm(const T* x, const T* w, T* y, int64_t batch, int64_t channels, int64_t maps, int64_t group,
               const WindowGeometry& g) {
  const int64_t cg = channels / group, mg = maps / group;
  const int64_t K = g.kernel_size(), I = g.in_size(), O = g.out_size();
  const int64_t rows = cg * K;
  // A 1x1 window with unit stride and no padding reads the input as its own im2col matrix.
  bool direct = K == 1;
  for (size_t d = 0; d < g.rank(); ++d)
    direct = direct && g.strides[d] == 1 && g.pad_begin[d] == 0 && g.pad_end[d] == 0;
  const int64_t out_rows = g.out_rows(), row_size = g.row_size();
  const int64_t chunk = direct ? out_rows : std::min(out_rows, rows_per_chunk(g, rows));
  std::vector<T> col(direct ? 0 : size_t(rows * chunk * row_size));
  for (int64_t n = 0; n < batch; ++n) {
    for (int64_t gi = 0; gi < group; ++gi) {
      const T* xg = x + (n * channels + gi * cg) * I;
      const T* wg = w + gi * mg * rows;
      T* yg = y + (n * maps + gi * mg) * O;
      if (direct) {
        gemm<T>(false, false, mg, O, rows, T(1), wg, rows, xg, O, T(0), yg, O);
        continue;
      }
      for (int64_t r0 = 0; r0 < out_rows; r0 += chunk) {
        const int64_t r1 = std::min(out_rows, r0 + chunk), cols = (r1 - r0) * row_size;
        im2col(xg, cg, g, r0, r1, col.data());
        gemm<T>(false, false, mg, cols, rows, T(1), wg, rows, col.data(), cols, T(0), yg + r0 * row_size, O);
      }
    }
  }
}

template void conv_gemm<float>(const float*, const float*, float*, int64_t, int64_t, int64_t, int64_t,
                               const WindowGeometry&);
template void conv_gemm<double>(const double*, const double*, double*, int64_t, int64_t, int64_t, int64_t,
                                const WindowGeometry&);
template void conv_gemm<uint64_t>(const uint64_t*, const uint64_t*, uint64_t*, int64_t, int64_t, int64_t,
                                  int64_t, const WindowGeometry&);

}  // namespace onyx
