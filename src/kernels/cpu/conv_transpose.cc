// ConvTranspose: the gradient of Conv with respect to its input. float32 with 1 to 3 spatial
// dims runs as oneDNN's convolution backward-data where that takes the geometry (pads >= 0,
// output_padding below the stride: onednn_conv_problem.h); the rest as GEMM + col2im.
// X (N, C, D1..Dn), W (C, M / group, k1..kn), optional B (M) -> Y (N, M, O1..On), where
// O = stride * (D - 1) + output_padding + dilated kernel - pads, or output_shape when given
// (pads then derived from it), or D * stride for SAME_UPPER / SAME_LOWER.
#include <algorithm>
#include <type_traits>
#include <vector>

#include <oneapi/dnnl/dnnl.h>

#include "kernels/conv_common.h"
#include "kernels/onednn_conv_backward_data.h"

namespace onyx {
namespace {

class ConvTransposeKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    ONYX_RETURN_IF_ERROR(parse_conv_attrs(info, &attrs_, &group_));
    output_padding_ = info.attr_ints("output_padding");
    output_shape_ = info.attr_ints("output_shape");
    for (int64_t v : output_padding_)
      if (v < 0 || v >= (int64_t(1) << 31)) return invalid_model("output_padding value ", v, " is out of range");
    for (int64_t v : output_shape_)
      if (v < 0 || v >= (int64_t(1) << 40)) return invalid_model("output_shape value ", v, " is out of range");
    return Status::Ok();
  }

  // The geometry of the equivalent forward Conv: `in` is Y's spatial shape, `out` is X's.
  Result<WindowGeometry> resolve(const Shape& x, const Shape& w) const {
    if (x.size() < 3) return invalid_argument("input must have rank 3 or more (N, C, D1...), got ", shape_to_string(x));
    if (w.size() != x.size())
      return invalid_argument("weight shape ", shape_to_string(w), " does not match the input rank of ",
                              shape_to_string(x));
    if (w[0] != x[1]) return invalid_argument("weight dim 0 (", w[0], ") must equal the input channels ", x[1]);
    if (group_ > std::max<int64_t>(x[1], 1))
      return invalid_argument("group ", group_, " exceeds the input channels ", x[1]);
    if (x[1] % group_ != 0) return invalid_argument("input channels ", x[1], " are not divisible by group ", group_);
    const size_t r = x.size() - 2;
    auto bad_len = [&](const std::vector<int64_t>& v, size_t want) { return !v.empty() && v.size() != want; };
    if (bad_len(attrs_.strides, r) || bad_len(attrs_.dilations, r) || bad_len(attrs_.pads, 2 * r) ||
        bad_len(output_padding_, r) || (bad_len(output_shape_, r) && bad_len(output_shape_, r + 2)))
      return invalid_argument("window attributes do not match the ", r, " spatial dims of ", shape_to_string(x));
    WindowGeometry g;
    g.out.assign(x.begin() + 2, x.end());
    g.kernel.assign(w.begin() + 2, w.end());
    if (!attrs_.kernel_shape.empty() && attrs_.kernel_shape != g.kernel)
      return invalid_argument("kernel_shape ", shape_to_string(attrs_.kernel_shape),
                              " does not match the weight shape ", shape_to_string(w));
    g.strides = attrs_.strides.empty() ? std::vector<int64_t>(r, 1) : attrs_.strides;
    g.dilations = attrs_.dilations.empty() ? std::vector<int64_t>(r, 1) : attrs_.dilations;
    g.in.assign(r, 0);
    g.pad_begin.assign(r, 0);
    g.pad_end.assign(r, 0);
    const bool same = attrs_.auto_pad == AutoPad::kSameUpper || attrs_.auto_pad == AutoPad::kSameLower;
    for (size_t d = 0; d < r; ++d) {
      const int64_t in = g.out[d], s = g.strides[d];
      const int64_t op = output_padding_.empty() ? 0 : output_padding_[d];
      if (g.kernel[d] < 1 || g.kernel[d] >= (int64_t(1) << 31))
        return invalid_argument("kernel size ", g.kernel[d], " is out of range");
      int64_t full = 0;  // the output size without padding
      if (__builtin_mul_overflow(s, std::max<int64_t>(in - 1, 0), &full) ||
          __builtin_add_overflow(full, op + (g.kernel[d] - 1) * g.dilations[d] + 1, &full))
        return invalid_argument("output size overflows");
      if (!output_shape_.empty() || same) {
        int64_t target = 0;
        if (!output_shape_.empty()) {
          target = output_shape_[output_shape_.size() - r + d];
        } else if (__builtin_mul_overflow(in, s, &target)) {
          return invalid_argument("output size overflows");
        }
        // A negative total pads the end: extra output positions that only get the bias.
        const int64_t total = full - target;
        if (total < 0) {
          g.pad_end[d] = total;
        } else if (attrs_.auto_pad == AutoPad::kSameUpper) {
          g.pad_begin[d] = total / 2;
          g.pad_end[d] = total - total / 2;
        } else {
          g.pad_begin[d] = total - total / 2;
          g.pad_end[d] = total / 2;
        }
        g.in[d] = target;
      } else {
        if (attrs_.auto_pad == AutoPad::kNotSet && !attrs_.pads.empty()) {
          g.pad_begin[d] = attrs_.pads[d];
          g.pad_end[d] = attrs_.pads[d + r];
        }
        g.in[d] = full - g.pad_begin[d] - g.pad_end[d];
        if (g.in[d] < 0) return invalid_argument("pads are larger than the output along spatial dim ", d);
      }
    }
    return g;
  }

  Status compute(KernelContext& ctx) const override {
    ONYX_RETURN_IF_ERROR(check_conv_types(ctx));
    const Tensor& x = ctx.input(0);
    const Tensor& w = ctx.input(1);
    ONYX_ASSIGN_OR_RETURN(WindowGeometry g, resolve(x.shape(), w.shape()));
    const int64_t batch = x.dim(0), channels = x.dim(1);
    const int64_t cg = channels / group_, mg = w.dim(1), maps = mg * group_;
    // As a forward convolution: Y is its input (N, maps, g.in...), W its weight (channels, mg,
    // k...), X its output.
    std::vector<int64_t> fwd_x_shape{batch, maps};
    fwd_x_shape.insert(fwd_x_shape.end(), g.in.begin(), g.in.end());
    const std::vector<int64_t>& fwd_w_shape = w.shape();
    const bool onednn = x.dtype() == DataType::kFloat &&
                        onednn::ConvBackwardData::supports(fwd_x_shape, fwd_w_shape, group_, g);
    return run_float_conv(ctx, maps, g.in, [&]<typename CT>(const CT* xc, const CT* wc, CT* yc) -> Status {
      if constexpr (std::is_same_v<CT, float>) {
        if (onednn) return backward_data_.run(fwd_x_shape, fwd_w_shape, group_, g, xc, wc, yc);
      }
      // X's positions are the forward geometry's output rows; work on a range of them at a time.
      const int64_t I = g.out_size(), O = g.in_size(), rows = mg * g.kernel_size();
      const int64_t x_rows = g.out_rows(), row_size = g.row_size();
      const int64_t chunk = std::min(x_rows, rows_per_chunk(g, rows));
      std::vector<CT> col(size_t(rows * chunk * row_size));
      for (int64_t n = 0; n < batch; ++n) {
        for (int64_t gi = 0; gi < group_; ++gi) {
          const CT* xg = xc + (n * channels + gi * cg) * I;
          for (int64_t r0 = 0; r0 < x_rows; r0 += chunk) {
            const int64_t r1 = std::min(x_rows, r0 + chunk), cols = (r1 - r0) * row_size;
            // col (mg*K x cols) = W_g^T (mg*K x cg) * X_g[:, cols] (cg x cols); W_g is stored cg x mg*K.
            if constexpr (std::is_same_v<CT, float>) {  // oneDNN's JIT sgemm (row-major, as ours)
              const dnnl_status_t st = dnnl_sgemm('T', 'N', rows, cols, cg, 1.f, wc + gi * cg * rows, rows,
                                                  xg + r0 * row_size, I, 0.f, col.data(), cols);
              if (st != dnnl_success)
                gemm<CT>(true, false, rows, cols, cg, CT(1), wc + gi * cg * rows, rows, xg + r0 * row_size, I, CT(0),
                         col.data(), cols);
            } else {
              gemm<CT>(true, false, rows, cols, cg, CT(1), wc + gi * cg * rows, rows, xg + r0 * row_size, I, CT(0),
                       col.data(), cols);
            }
            col2im(col.data(), mg, g, r0, r1, yc + (n * maps + gi * mg) * O);
          }
        }
      }
      return Status::Ok();
    });
  }

 private:
  WindowAttrs attrs_;
  int64_t group_ = 1;
  std::vector<int64_t> output_padding_, output_shape_;
  onednn::ConvBackwardData backward_data_;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "ConvTranspose", 1, kLatestOpset, ConvTransposeKernel);

}  // namespace onyx
