// AffineGrid (opset 20): a sampling grid for GridSample from a batch of affine matrices.
//   2-D: theta (N, 2, 3), size = (N, C, H, W)    -> grid (N, H, W, 2), grid[n,h,w] = theta[n] . (x_w, y_h, 1)
//   3-D: theta (N, 3, 4), size = (N, C, D, H, W) -> grid (N, D, H, W, 3), theta[n] . (x_w, y_h, z_d, 1)
// The base coordinates span [-1, 1] along each dim of length L: with align_corners=1 the pixel
// centres, -1 + 2i / (L - 1) (just -1 when L = 1); with align_corners=0 (default) the pixel
// edges, -1 + (2i + 1) / L. Computed in double, stored as theta's type.
#include <vector>

#include "kernels/dispatch.h"
#include "kernels/kernel.h"
#include "kernels/shape_util.h"

namespace onyx {
namespace {

class AffineGridKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    align_corners_ = info.attr_int("align_corners", 0) != 0;
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    if (!ctx.has_input(0) || !ctx.has_input(1)) return invalid_argument("AffineGrid needs inputs 'theta' and 'size'");
    const Tensor& theta = ctx.input(0);
    ONYX_ASSIGN_OR_RETURN(const std::vector<int64_t> size, read_int_list(ctx.input(1), "size"));
    if (size.size() != 4 && size.size() != 5)
      return invalid_argument("'size' must be (N, C, H, W) or (N, C, D, H, W), got ", size.size(), " values");
    const int64_t dims = int64_t(size.size()) - 2;  // spatial dims: 2 or 3
    const int64_t batch = size[0];
    if (theta.rank() != 3 || theta.dim(0) != batch || theta.dim(1) != dims || theta.dim(2) != dims + 1)
      return invalid_argument("theta must have shape [", batch, ", ", dims, ", ", dims + 1, "] for this size, got ",
                              theta.describe());
    Shape out_shape{batch};
    for (int64_t d = 0; d < dims; ++d) {
      if (size[size_t(2 + d)] < 0) return invalid_argument("'size' holds a negative dim ", size[size_t(2 + d)]);
      out_shape.push_back(size[size_t(2 + d)]);
    }
    out_shape.push_back(dims);
    ONYX_ASSIGN_OR_RETURN(Tensor* grid, ctx.allocate_output_uninitialized(0, theta.dtype(), out_shape));
    // base[d][i]: the coordinate of index i along spatial dim d (0 = D or H, last = W).
    std::vector<std::vector<double>> base(static_cast<size_t>(dims));
    for (int64_t d = 0; d < dims; ++d) {
      const int64_t len = size[size_t(2 + d)];
      for (int64_t i = 0; i < len; ++i)
        base[size_t(d)].push_back(align_corners_ ? (len > 1 ? -1.0 + 2.0 * double(i) / double(len - 1) : -1.0)
                                                 : -1.0 + (2.0 * double(i) + 1.0) / double(len));
    }
    const int64_t points = shape_size(Shape(out_shape.begin() + 1, out_shape.end() - 1));
    return dispatch<ONYX_FLOAT_TYPES>(theta.dtype(), [&]<typename T>() -> Status {
      using C = compute_t<T>;
      const T* th = theta.data<T>();
      T* out = grid->data<T>();
      std::vector<double> coord(size_t(dims) + 1, 1.0);  // (x, y[, z], 1)
      for (int64_t b = 0; b < batch; ++b) {
        const T* m = th + b * dims * (dims + 1);
        for (int64_t p = 0; p < points; ++p) {
          // Coordinates run x (along W, the last dim) first: coord[k] reads spatial dim dims-1-k.
          for (int64_t rest = p, d = dims - 1; d >= 0; --d) {
            const int64_t len = size[size_t(2 + d)];
            coord[size_t(dims - 1 - d)] = base[size_t(d)][size_t(rest % len)];
            rest /= len;
          }
          T* o = out + (b * points + p) * dims;
          for (int64_t r = 0; r < dims; ++r) {
            double acc = 0;
            for (int64_t c = 0; c <= dims; ++c) acc += double(C(m[r * (dims + 1) + c])) * coord[size_t(c)];
            o[r] = static_cast<T>(C(acc));
          }
        }
      }
      return Status::Ok();
    });
  }

 private:
  bool align_corners_ = false;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "AffineGrid", 20, kLatestOpset, AffineGridKernel);

}  // namespace onyx
