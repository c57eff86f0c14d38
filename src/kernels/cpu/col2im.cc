// Col2Im (opset 18): the inverse of im2col (PyTorch's fold). Input [N, C * prod(block_shape), L]
// holds, for each of the L sliding blocks (enumerated row-major over the block grid), the
// block's C x block elements; 'image_shape' and 'block_shape' (1-D int64, n >= 1 spatial dims)
// give the image and the block; 'dilations', 'strides' (n values, default 1) and 'pads'
// (2n: begins then ends, default 0) place the blocks as a convolution would. The output
// [N, C, image_shape...] sums every block element that lands on each pixel; elements that
// land in the padding are dropped. L must equal the number of block positions. Numeric types.
#include <string>
#include <vector>

#include "kernels/dispatch.h"
#include "kernels/elementwise_binary.h"
#include "kernels/kernel.h"
#include "kernels/shape_util.h"

namespace onyx {
namespace {

class Col2ImKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    dilations_ = info.attr_ints("dilations");
    pads_ = info.attr_ints("pads");
    strides_ = info.attr_ints("strides");
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    for (int i = 0; i < 3; ++i)
      if (!ctx.has_input(i)) return invalid_argument("Col2Im: input ", i, " is missing");
    const Tensor& x = ctx.input(0);
    ONYX_ASSIGN_OR_RETURN(const std::vector<int64_t> image, read_int_list(ctx.input(1), "image_shape"));
    ONYX_ASSIGN_OR_RETURN(const std::vector<int64_t> block, read_int_list(ctx.input(2), "block_shape"));
    const size_t n = image.size();
    if (n == 0 || block.size() != n)
      return invalid_argument("image_shape and block_shape must have the same non-zero length, got ", n, " and ",
                              block.size());
    const std::vector<int64_t> dil = dilations_.empty() ? std::vector<int64_t>(n, 1) : dilations_;
    const std::vector<int64_t> str = strides_.empty() ? std::vector<int64_t>(n, 1) : strides_;
    const std::vector<int64_t> pads = pads_.empty() ? std::vector<int64_t>(2 * n, 0) : pads_;
    if (dil.size() != n || str.size() != n || pads.size() != 2 * n)
      return invalid_argument("dilations and strides need ", n, " values and pads ", 2 * n);
    if (x.rank() != 3) return invalid_argument("input must be [N, C * prod(block_shape), L], got ", x.describe());
    int64_t block_size = 1, blocks = 1;
    std::vector<int64_t> grid(n);
    for (size_t d = 0; d < n; ++d) {
      if (image[d] <= 0 || block[d] <= 0 || dil[d] <= 0 || str[d] <= 0 || pads[d] < 0 || pads[d + n] < 0)
        return invalid_argument("Col2Im: image and block dims, dilations and strides must be positive, pads >= 0");
      block_size *= block[d];
      const int64_t span = dil[d] * (block[d] - 1) + 1;
      const int64_t room = image[d] + pads[d] + pads[d + n] - span;
      if (room < 0) return invalid_argument("the dilated block (", span, ") is larger than the padded image along dim ", d);
      grid[d] = room / str[d] + 1;
      blocks *= grid[d];
    }
    if (x.dim(1) % block_size != 0)
      return invalid_argument("input dim 1 (", x.dim(1), ") is not a multiple of prod(block_shape) = ", block_size);
    if (x.dim(2) != blocks)
      return invalid_argument("input dim 2 (", x.dim(2), ") must be the number of blocks, ", blocks);
    const int64_t batch = x.dim(0), channels = x.dim(1) / block_size;
    Shape out_shape{batch, channels};
    out_shape.insert(out_shape.end(), image.begin(), image.end());
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output(0, x.dtype(), out_shape));
    const int64_t image_size = shape_size(image);
    return dispatch<ONYX_NUMERIC_TYPES>(x.dtype(), [&]<typename T>() -> Status {
      using C = compute_t<T>;
      const T* in = x.data<T>();
      T* out = y->data<T>();
      std::vector<int64_t> k_idx(n), b_idx(n);
      for (int64_t bc = 0; bc < batch * channels; ++bc) {
        T* plane = out + bc * image_size;
        for (int64_t k = 0; k < block_size; ++k) {
          for (int64_t rest = k, d = int64_t(n) - 1; d >= 0; --d) {
            k_idx[size_t(d)] = rest % block[size_t(d)];
            rest /= block[size_t(d)];
          }
          const T* row = in + (bc * block_size + k) * blocks;
          for (int64_t b = 0; b < blocks; ++b) {
            int64_t at = 0;
            bool inside = true;
            for (int64_t rest = b, d = int64_t(n) - 1; d >= 0; --d) {
              const size_t u = size_t(d);
              b_idx[u] = rest % grid[u];
              rest /= grid[u];
            }
            for (size_t d = 0; d < n && inside; ++d) {
              const int64_t pos = b_idx[d] * str[d] - pads[d] + k_idx[d] * dil[d];
              inside = pos >= 0 && pos < image[d];
              at = at * image[d] + pos;
            }
            if (inside) plane[at] = static_cast<T>(wrap_add(C(plane[at]), C(row[b])));
          }
        }
      }
      return Status::Ok();
    });
  }

 private:
  std::vector<int64_t> dilations_, pads_, strides_;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "Col2Im", 18, kLatestOpset, Col2ImKernel);

}  // namespace onyx
