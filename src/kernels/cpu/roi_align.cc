// RoiAlign: pools each region of interest rois[r] = [x1, y1, x2, y2] (scaled by spatial_scale)
// of image X[batch_indices[r]] (N, C, H, W) into (output_height, output_width) bins, giving
// (num_rois, C, output_height, output_width). Each bin averages (mode avg) or takes the max of
// (mode max) a sampling_ratio x sampling_ratio grid of bilinear samples (adaptive
// ceil(roi size / bins) when sampling_ratio is 0). Samples more than one pixel outside the
// image count as 0. half_pixel (opset 16 default) shifts roi coordinates by -0.5;
// output_half_pixel (the only behaviour before opset 16) does not, and makes rois at least 1x1.
// In max mode a sample is the largest of its four weighted corner values, as in the ONNX
// reference.
#include <algorithm>
#include <cmath>
#include <vector>

#include "core/parallel.h"
#include "kernels/dispatch.h"
#include "kernels/kernel.h"

namespace onyx {
namespace {

class RoiAlignKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    const std::string mode = info.attr_string("mode", "avg");
    if (mode != "avg" && mode != "max") return invalid_model("mode must be 'avg' or 'max', got '", mode, "'");
    max_ = mode == "max";
    out_h_ = info.attr_int("output_height", 1);
    out_w_ = info.attr_int("output_width", 1);
    sampling_ratio_ = info.attr_int("sampling_ratio", 0);
    spatial_scale_ = info.attr_float("spatial_scale", 1.0f);
    if (out_h_ <= 0 || out_w_ <= 0) return invalid_model("output_height and output_width must be positive");
    if (sampling_ratio_ < 0) return invalid_model("sampling_ratio must be non-negative");
    const std::string coord =
        info.attr_string("coordinate_transformation_mode", info.opset() >= 16 ? "half_pixel" : "output_half_pixel");
    if (coord != "half_pixel" && coord != "output_half_pixel")
      return invalid_model("coordinate_transformation_mode must be 'half_pixel' or 'output_half_pixel', got '", coord, "'");
    half_pixel_ = coord == "half_pixel";
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const Tensor& rois = ctx.input(1);
    const Tensor& batch = ctx.input(2);
    if (!x.defined() || !rois.defined() || !batch.defined()) return invalid_argument("inputs X, rois and batch_indices are required");
    if (x.rank() != 4) return invalid_argument("X must be (N, C, H, W), got ", x.describe());
    if (rois.rank() != 2 || rois.dim(1) != 4 || rois.dtype() != x.dtype())
      return invalid_argument("rois must be (num_rois, 4) of X's dtype, got ", rois.describe());
    if (batch.rank() != 1 || batch.dim(0) != rois.dim(0) || !is_integer_type(batch.dtype()))
      return invalid_argument("batch_indices must be an integer (num_rois) tensor, got ", batch.describe());
    const int64_t num_rois = rois.dim(0), N = x.dim(0), C = x.dim(1), H = x.dim(2), W = x.dim(3);
    const std::vector<int64_t> bidx = batch.to_int64_vector();
    for (int64_t r = 0; r < num_rois; ++r)
      if (bidx[size_t(r)] < 0 || bidx[size_t(r)] >= N)
        return invalid_argument("batch_indices[", r, "] = ", bidx[size_t(r)], " is outside [0, ", N, ")");
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output(0, x.dtype(), Shape{num_rois, C, out_h_, out_w_}));
    return dispatch<ONYX_FLOAT_TYPES>(x.dtype(), [&]<typename T>() -> Status {
      const T* in = x.data<T>();
      const T* roi = rois.data<T>();
      T* out = y->data<T>();
      std::vector<Geometry> geo;
      for (int64_t r = 0; r < num_rois; ++r) {
        const T* box = roi + r * 4;
        ONYX_ASSIGN_OR_RETURN(Geometry g, geometry(double(compute_t<T>(box[0])), double(compute_t<T>(box[1])),
                                                   double(compute_t<T>(box[2])), double(compute_t<T>(box[3]))));
        geo.push_back(g);
      }
      parallel_for(num_rois * C, 1, [&](int64_t begin, int64_t end) {
        for (int64_t rc = begin; rc < end; ++rc) {
          const int64_t r = rc / C, c = rc % C;
          pool(in + (bidx[size_t(r)] * C + c) * H * W, H, W, geo[size_t(r)], out + rc * out_h_ * out_w_);
        }
      });
      return Status::Ok();
    });
  }

 private:
  // Where one roi lies in the feature map and how densely each bin is sampled.
  struct Geometry {
    double start_h, start_w, bin_h, bin_w;
    int64_t grid_h, grid_w;
  };

  Result<Geometry> geometry(double x1, double y1, double x2, double y2) const {
    const double offset = half_pixel_ ? 0.5 : 0.0;
    Geometry g;
    g.start_w = x1 * spatial_scale_ - offset;
    g.start_h = y1 * spatial_scale_ - offset;
    double roi_w = x2 * spatial_scale_ - offset - g.start_w, roi_h = y2 * spatial_scale_ - offset - g.start_h;
    if (!half_pixel_) {
      roi_w = std::max(roi_w, 1.0);
      roi_h = std::max(roi_h, 1.0);
    }
    g.bin_h = roi_h / double(out_h_);
    g.bin_w = roi_w / double(out_w_);
    // Adaptive sampling: ceil(bin size) points per bin side; none for empty or NaN bins.
    constexpr double kMaxSide = 1 << 12;
    auto side = [&](double bin) -> int64_t {
      if (sampling_ratio_ > 0) return sampling_ratio_;
      return bin > 0 ? int64_t(std::ceil(std::min(bin, kMaxSide + 1))) : 0;
    };
    g.grid_h = side(g.bin_h);
    g.grid_w = side(g.bin_w);
    if (double(g.grid_h) > kMaxSide || double(g.grid_w) > kMaxSide)
      return invalid_argument("roi [", x1, ", ", y1, ", ", x2, ", ", y2, "] needs more than ", kMaxSide,
                              " adaptive samples per bin side");
    return g;
  }

  // Pools one channel plane (H, W) over one roi into out (out_h_, out_w_).
  template <typename T>
  void pool(const T* plane, int64_t H, int64_t W, const Geometry& g, T* out) const {
    const double start_h = g.start_h, start_w = g.start_w, bin_h = g.bin_h, bin_w = g.bin_w;
    const int64_t grid_h = g.grid_h, grid_w = g.grid_w;
    const double count = double(std::max<int64_t>(grid_h * grid_w, 1));
    for (int64_t ph = 0; ph < out_h_; ++ph) {
      for (int64_t pw = 0; pw < out_w_; ++pw) {
        double acc = 0;
        bool first = true;
        for (int64_t iy = 0; iy < grid_h; ++iy) {
          const double yy = start_h + double(ph) * bin_h + (double(iy) + 0.5) * bin_h / double(grid_h);
          for (int64_t ix = 0; ix < grid_w; ++ix) {
            const double xx = start_w + double(pw) * bin_w + (double(ix) + 0.5) * bin_w / double(grid_w);
            const double v = sample(plane, H, W, yy, xx);
            if (!max_) acc += v;
            else if (first || v > acc) acc = v;
            first = false;
          }
        }
        out[ph * out_w_ + pw] = static_cast<T>(static_cast<compute_t<T>>(max_ ? acc : acc / count));
      }
    }
  }

  // Bilinear sample at (y, x), clamped into the image; 0 beyond one pixel outside it. In max
  // mode, the largest weighted corner value instead of their sum.
  template <typename T>
  double sample(const T* plane, int64_t H, int64_t W, double y, double x) const {
    if (!(y >= -1.0 && y <= double(H) && x >= -1.0 && x <= double(W)) || H == 0 || W == 0) return 0;
    y = std::max(y, 0.0);
    x = std::max(x, 0.0);
    int64_t y0 = int64_t(y), x0 = int64_t(x), y1, x1;
    if (y0 >= H - 1) y0 = y1 = H - 1, y = double(y0);
    else y1 = y0 + 1;
    if (x0 >= W - 1) x0 = x1 = W - 1, x = double(x0);
    else x1 = x0 + 1;
    const double ly = y - double(y0), lx = x - double(x0), hy = 1 - ly, hx = 1 - lx;
    auto at = [&](int64_t yi, int64_t xi) { return double(compute_t<T>(plane[yi * W + xi])); };
    const double v1 = hy * hx * at(y0, x0), v2 = hy * lx * at(y0, x1), v3 = ly * hx * at(y1, x0), v4 = ly * lx * at(y1, x1);
    return max_ ? std::max(std::max(v1, v2), std::max(v3, v4)) : v1 + v2 + v3 + v4;
  }

  bool max_ = false;
  bool half_pixel_ = true;
  int64_t out_h_ = 1, out_w_ = 1, sampling_ratio_ = 0;
  double spatial_scale_ = 1.0;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "RoiAlign", 10, kLatestOpset, RoiAlignKernel);

}  // namespace onyx
