// GridSample: samples X (N, C, D1..Dr) at the normalized locations in grid (N, O1..Or, r),
// giving (N, C, O1..Or). grid[..., k] is the coordinate along spatial dim r-1-k (x is the
// last dim), in [-1, 1] at the corner pixels' edges (align_corners=0) or centres (=1).
// Modes bilinear/linear, nearest (round half to even) and bicubic/cubic (A = -0.75);
// padding zeros, border or reflection, as torch.nn.functional.grid_sample.
#include <algorithm>
#include <cmath>
#include <vector>

#include "core/parallel.h"
#include "kernels/dispatch.h"
#include "kernels/kernel.h"

namespace onyx {
namespace {

enum class GsMode { kLinear, kNearest, kCubic };
enum class GsPadding { kZeros, kBorder, kReflection };

struct Tap {
  int64_t index;
  double weight;
};

class GridSampleKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    align_corners_ = info.attr_int("align_corners", 0) != 0;
    const std::string mode = info.attr_string("mode", info.opset() >= 20 ? "linear" : "bilinear");
    if (mode == "bilinear" || mode == "linear") mode_ = GsMode::kLinear;
    else if (mode == "nearest") mode_ = GsMode::kNearest;
    else if (mode == "bicubic" || mode == "cubic") mode_ = GsMode::kCubic;
    else return invalid_model("unsupported mode '", mode, "'");
    const std::string pad = info.attr_string("padding_mode", "zeros");
    if (pad == "zeros") padding_ = GsPadding::kZeros;
    else if (pad == "border") padding_ = GsPadding::kBorder;
    else if (pad == "reflection") padding_ = GsPadding::kReflection;
    else return invalid_model("unsupported padding_mode '", pad, "'");
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const Tensor& grid = ctx.input(1);
    if (!x.defined() || !grid.defined()) return invalid_argument("inputs X and grid are required");
    const int64_t r = x.rank() - 2;
    if (r < 1 || grid.rank() != x.rank() || grid.dim(0) != x.dim(0) || grid.dim(grid.rank() - 1) != r)
      return invalid_argument("grid ", grid.describe(), " does not fit X ", x.describe(),
                              ": expected X (N, C, D1..Dr) and grid (N, O1..Or, r)");
    if (!is_float_type(grid.dtype())) return invalid_argument("grid must be a float tensor, got ", grid.describe());
    const int64_t n_batch = x.dim(0), channels = x.dim(1);
    Shape out_shape{n_batch, channels};
    int64_t out_spatial = 1;
    for (int64_t k = 0; k < r; ++k) {
      out_shape.push_back(grid.dim(k + 1));
      out_spatial *= grid.dim(k + 1);
    }
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output(0, x.dtype(), out_shape));
    if (y->numel() == 0) return Status::Ok();
    // An empty X (a spatial dim 0) has nothing to sample: every location is padding, which
    // only "zeros" defines (y is zero-filled already).
    if (x.numel() == 0) {
      if (padding_ == GsPadding::kZeros) return Status::Ok();
      return invalid_argument("X ", x.describe(), " is empty: nothing to sample with border or reflection padding");
    }
    std::vector<double> g(size_t(grid.numel()));
    for (int64_t i = 0; i < grid.numel(); ++i) g[size_t(i)] = grid.get_double(i);
    const std::vector<int64_t> strides = shape_strides(x.shape());
    return dispatch<ONYX_FLOAT_TYPES>(x.dtype(), [&]<typename T>() -> Status {
      const T* in = x.data<T>();
      T* out = y->data<T>();
      const int64_t grain = std::max<int64_t>(1, 1024 / std::max<int64_t>(channels, 1));
      parallel_for(n_batch * out_spatial, grain, [&](int64_t begin, int64_t end) {
        std::vector<std::vector<Tap>> taps(static_cast<size_t>(r));
        std::vector<std::pair<int64_t, double>> combos;  // (offset within one channel, weight)
        for (int64_t t = begin; t < end; ++t) {
          const int64_t n = t / out_spatial, p = t % out_spatial;
          const double* loc = &g[size_t(t * r)];
          for (int64_t k = 0; k < r; ++k) axis_taps(loc[r - 1 - k], x.dim(k + 2), taps[size_t(k)]);
          expand(taps, strides, combos);
          for (int64_t c = 0; c < channels; ++c) {
            const T* src = in + n * strides[0] + c * strides[1];
            double v = 0;
            for (const auto& [off, w] : combos) v += w * double(compute_t<T>(src[off]));
            out[(n * channels + c) * out_spatial + p] = static_cast<T>(static_cast<compute_t<T>>(v));
          }
        }
      });
      return Status::Ok();
    });
  }

 private:
  // Normalized coordinate -> pixel coordinate along a dim of `size`.
  double unnormalize(double v, int64_t size) const {
    return align_corners_ ? (v + 1) / 2 * double(size - 1) : ((v + 1) * double(size) - 1) / 2;
  }

  // Reflects v into the valid span (pixel centres with align_corners, else pixel edges),
  // then clips it into [0, size - 1].
  double reflect(double v, int64_t size) const {
    const double lo = align_corners_ ? 0.0 : -0.5;
    const double span = align_corners_ ? double(size - 1) : double(size);
    if (span <= 0) return 0;
    double d = std::fabs(v - lo);
    if (!std::isfinite(d)) return 0;
    const double extra = std::fmod(d, span);
    const bool even_flips = std::fmod(std::floor(d / span), 2.0) == 0;
    d = even_flips ? lo + extra : lo + span - extra;
    return std::clamp(d, 0.0, double(size - 1));
  }

  // Applies the padding mode to a coordinate; zeros leaves it alone.
  double pad_coord(double v, int64_t size) const {
    if (padding_ == GsPadding::kBorder) return std::isnan(v) ? 0 : std::clamp(v, 0.0, double(size - 1));
    if (padding_ == GsPadding::kReflection) return reflect(v, size);
    return v;
  }

  // Adds tap (i, w) if it lands inside [0, size) (cubic taps are padded one by one).
  void add_tap(double i, double w, int64_t size, bool pad_index, std::vector<Tap>& out) const {
    if (pad_index) i = pad_coord(i, size);
    if (i >= 0 && i <= double(size - 1)) out.push_back({int64_t(i), w});
  }

  void axis_taps(double v, int64_t size, std::vector<Tap>& out) const {
    out.clear();
    if (size <= 0 || std::isnan(v)) return;
    double c = unnormalize(v, size);
    if (mode_ != GsMode::kCubic) c = pad_coord(c, size);
    // Far-out coordinates only ever meet zero padding: every tap is outside.
    if (!(std::fabs(c) < 1e15)) return;
    if (mode_ == GsMode::kNearest) {
      add_tap(std::nearbyint(c), 1.0, size, false, out);
    } else if (mode_ == GsMode::kLinear) {
      const double i0 = std::floor(c), t = c - i0;
      add_tap(i0, 1 - t, size, false, out);
      add_tap(i0 + 1, t, size, false, out);
    } else {
      const double i0 = std::floor(c), t = c - i0, A = -0.75;
      const double w[4] = {((A * (t + 1) - 5 * A) * (t + 1) + 8 * A) * (t + 1) - 4 * A,
                           ((A + 2) * t - (A + 3)) * t * t + 1,
                           ((A + 2) * (1 - t) - (A + 3)) * (1 - t) * (1 - t) + 1,
                           ((A * (2 - t) - 5 * A) * (2 - t) + 8 * A) * (2 - t) - 4 * A};
      for (int j = 0; j < 4; ++j) add_tap(i0 - 1 + j, w[j], size, true, out);
    }
  }

  // The tensor product of the per-dim taps as (offset, weight) pairs.
  static void expand(const std::vector<std::vector<Tap>>& taps, const std::vector<int64_t>& strides,
                     std::vector<std::pair<int64_t, double>>& combos) {
    combos.assign(1, {0, 1.0});
    for (size_t k = 0; k < taps.size(); ++k) {
      std::vector<std::pair<int64_t, double>> next;
      for (const auto& [off, w] : combos)
        for (const Tap& t : taps[k]) next.push_back({off + t.index * strides[k + 2], w * t.weight});
      combos.swap(next);
    }
  }

  bool align_corners_ = false;
  GsMode mode_ = GsMode::kLinear;
  GsPadding padding_ = GsPadding::kZeros;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "GridSample", 16, kLatestOpset, GridSampleKernel);

}  // namespace onyx
