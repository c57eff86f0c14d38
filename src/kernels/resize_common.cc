#include "kernels/resize_common.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <type_traits>

#include "core/parallel.h"
#include "kernels/dispatch.h"

namespace onyx {
namespace {

// Maps output coordinate x to the input coordinate; sets *outside for tf_crop_and_resize
// points beyond [0, in_len - 1].
double source_coord(const ResizeAttrs& a, const ResizeAxis& ax, int64_t xi, bool* outside) {
  const double x = double(xi), in = double(ax.in_len), len = ax.length_resized;
  *outside = false;
  switch (a.coord) {
    case ResizeCoordMode::kHalfPixel: return (x + 0.5) / ax.scale - 0.5;
    case ResizeCoordMode::kHalfPixelSymmetric: {
      const double adjustment = double(ax.out_len) / len;
      const double offset = in / 2 * (1 - adjustment);
      return offset + (x + 0.5) / ax.scale - 0.5;
    }
    case ResizeCoordMode::kPytorchHalfPixel: return ax.out_len > 1 ? (x + 0.5) / ax.scale - 0.5 : 0.0;
    case ResizeCoordMode::kAlignCorners: return len == 1 ? 0.0 : x * (in - 1) / (len - 1);
    case ResizeCoordMode::kAsymmetric: return x / ax.scale;
    case ResizeCoordMode::kTfHalfPixelForNn: return (x + 0.5) / ax.scale;
    case ResizeCoordMode::kTfCropAndResize: {
      const double s = ax.roi_start, e = ax.roi_end;
      const double v = len == 1 ? 0.5 * (s + e) * (in - 1) : s * (in - 1) + x * (e - s) * (in - 1) / (len - 1);
      *outside = v < 0 || v > in - 1;
      return v;
    }
  }
  return 0;
}

// Keys cubic convolution kernel with parameter A, at distance d.
double cubic_kernel(double d, double A) {
  d = std::fabs(d);
  if (d <= 1) return ((A + 2) * d - (A + 3)) * d * d + 1;
  if (d < 2) return ((A * d - 5 * A) * d + 8 * A) * d - 4 * A;
  return 0;
}

}  // namespace

ResizeFilter make_resize_filter(const ResizeAttrs& a, const ResizeAxis& ax) {
  ResizeFilter f;
  const int64_t n = ax.out_len, in = ax.in_len;
  f.outside.assign(size_t(n), 0);
  // Antialiasing stretches the linear / cubic kernel by 1/scale when downsampling.
  const double s = a.antialias && a.mode != ResizeMode::kNearest ? std::min(ax.scale, 1.0) : 1.0;
  int64_t first = 0;  // offset of the first tap from the base index
  if (a.mode == ResizeMode::kNearest) {
    f.k = 1;
  } else {
    const double support = a.mode == ResizeMode::kLinear ? 1.0 : 2.0;
    first = int64_t(std::floor(-support / s)) + 1;
    f.k = 2 - 2 * first;
  }
  f.index.resize(size_t(n * f.k));
  f.weight.resize(size_t(n * f.k));
  bool identity = n == in;
  for (int64_t o = 0; o < n; ++o) {
    bool outside = false;
    double x = source_coord(a, ax, o, &outside);
    if (std::isnan(x)) {  // a NaN roi (tf_crop_and_resize): no source, the extrapolation value
      x = 0;
      outside = true;
    }
    f.outside[size_t(o)] = outside;
    identity = identity && !outside;
    // x = base + r with r in (0, 1]: an integral x is taken as the right end of its cell.
    double base_f = std::floor(x);
    double r = x - base_f;
    if (r == 0) {
      base_f -= 1;
      r = 1;
    }
    // Clamp far-out coordinates so that the index arithmetic below cannot overflow.
    const int64_t base = int64_t(std::clamp(base_f, -double(f.k) - 1, double(in) + double(f.k)));
    int64_t* idx = &f.index[size_t(o * f.k)];
    double* w = &f.weight[size_t(o * f.k)];
    if (a.mode == ResizeMode::kNearest) {
      bool up = true;  // pick base + 1 (the rounded-up neighbour) or base
      switch (a.nearest) {
        case ResizeNearestMode::kRoundPreferFloor: up = r == 1 || r > 0.5; break;
        case ResizeNearestMode::kRoundPreferCeil: up = r == 1 || r >= 0.5; break;
        case ResizeNearestMode::kFloor: up = r == 1; break;
        case ResizeNearestMode::kCeil: up = true; break;
      }
      idx[0] = up ? base + 1 : base;
      w[0] = 1;
    } else {
      double sum = 0;
      for (int64_t j = 0; j < f.k; ++j) {
        const double d = s * (double(first + j) - r);
        idx[j] = base + first + j;
        w[j] = a.mode == ResizeMode::kLinear ? std::max(0.0, 1 - std::fabs(d)) : cubic_kernel(d, a.cubic_a);
        if (a.exclude_outside && (idx[j] < 0 || idx[j] >= in)) w[j] = 0;
        sum += w[j];
      }
      if ((a.antialias || a.exclude_outside) && sum != 0)
        for (int64_t j = 0; j < f.k; ++j) w[j] /= sum;
    }
    for (int64_t j = 0; j < f.k; ++j) {
      idx[j] = std::clamp<int64_t>(idx[j], 0, std::max<int64_t>(in - 1, 0));
      if (w[j] != 0 && (idx[j] != o || w[j] != 1)) identity = false;
    }
  }
  f.identity = identity;
  return f;
}

namespace {

// Converts an interpolated value to T: integers round to nearest and saturate.
template <typename T>
T to_output(double v) {
  if constexpr (std::is_integral_v<T>) {
    if (std::isnan(v)) return T(0);
    v = std::round(v);
    if (v <= double(std::numeric_limits<T>::lowest())) return std::numeric_limits<T>::lowest();
    if (v >= double(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
    return static_cast<T>(v);
  } else {
    return static_cast<T>(static_cast<compute_t<T>>(v));
  }
}

template <typename T>
T extrapolation(double v) {
  if constexpr (std::is_same_v<T, std::string>) return std::string();
  else if constexpr (std::is_same_v<T, bool>) return v != 0;
  else return to_output<T>(v);
}

// Nearest: a gather through one index per output coordinate and axis.
template <typename T>
void resize_nearest(const std::vector<ResizeFilter>& filters, double extrapolation_value, const Tensor& x, Tensor& y) {
  const Shape& out = y.shape();
  const size_t rank = out.size();
  const std::vector<int64_t> strides = shape_strides(x.shape());
  const T* in = x.data<T>();
  T* dst = y.data<T>();
  const T fill = extrapolation<T>(extrapolation_value);
  const int64_t last = rank == 0 ? 1 : out[rank - 1];
  const int64_t rows = last == 0 ? 0 : y.numel() / last;
  parallel_for(rows, std::max<int64_t>(1, 4096 / std::max<int64_t>(last, 1)), [&](int64_t begin, int64_t end) {
    for (int64_t row = begin; row < end; ++row) {
      int64_t off = 0, rem = row;
      bool outside = false;
      for (size_t d = rank > 0 ? rank - 1 : 0; d-- > 0;) {  // all dims but the last
        const int64_t o = rem % out[d];
        rem /= out[d];
        off += filters[d].index[size_t(o)] * strides[d];
        outside = outside || filters[d].outside[size_t(o)];
      }
      T* row_out = dst + row * last;
      if (rank == 0) {
        row_out[0] = in[0];
        continue;
      }
      const ResizeFilter& f = filters[rank - 1];
      const int64_t s = strides[rank - 1];
      for (int64_t i = 0; i < last; ++i)
        row_out[i] = outside || f.outside[size_t(i)] ? fill : in[off + f.index[size_t(i)] * s];
    }
  });
}

// Linear / cubic: one separable pass per non-identity axis over a double buffer.
template <typename T>
Status resize_filtered(const KernelContext& ctx, const std::vector<ResizeFilter>& filters,
                       const std::vector<ResizeAxis>& axes, double extrapolation_value, const Tensor& x, Tensor& y) {
  Shape cur = x.shape();
  // Working copies in double come from the run's arena: for 1-byte types they are 8 times the
  // size of the tensors, and the session's memory limit must see them.
  ONYX_ASSIGN_OR_RETURN(Tensor buf_tensor, ctx.allocate_scratch(DataType::kDouble, {x.numel()}));
  double* buf = buf_tensor.data<double>();
  const T* in = x.data<T>();
  for (int64_t i = 0; i < x.numel(); ++i) buf[i] = double(compute_t<T>(in[i]));
  // Shrinking axes first keeps the intermediate buffers small.
  std::vector<size_t> order(cur.size());
  std::iota(order.begin(), order.end(), size_t(0));
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return double(axes[a].out_len) * double(axes[b].in_len) < double(axes[b].out_len) * double(axes[a].in_len);
  });
  for (size_t d : order) {
    const ResizeFilter& f = filters[d];
    if (f.identity) continue;
    const int64_t n_in = cur[d], n_out = axes[d].out_len;
    int64_t outer = 1, inner = 1;
    for (size_t e = 0; e < cur.size(); ++e) {
      if (e < d) outer *= cur[e];
      if (e > d) inner *= cur[e];
    }
    ONYX_ASSIGN_OR_RETURN(Tensor next_tensor, ctx.allocate_scratch(DataType::kDouble, {outer * n_out * inner}, true));
    double* next = next_tensor.data<double>();
    parallel_for(outer * n_out, std::max<int64_t>(1, 4096 / std::max<int64_t>(inner * f.k, 1)),
                 [&](int64_t begin, int64_t end) {
      for (int64_t t = begin; t < end; ++t) {
        const int64_t ob = t / n_out, o = t % n_out;
        double* dst = &next[size_t(t * inner)];
        if (f.outside[size_t(o)]) {
          std::fill(dst, dst + inner, extrapolation_value);
          continue;
        }
        for (int64_t j = 0; j < f.k; ++j) {
          const double w = f.weight[size_t(o * f.k + j)];
          if (w == 0) continue;
          const double* src = &buf[size_t((ob * n_in + f.index[size_t(o * f.k + j)]) * inner)];
          for (int64_t i = 0; i < inner; ++i) dst[i] += w * src[i];
        }
      }
    });
    buf_tensor = std::move(next_tensor);  // the previous buffer goes back to the arena
    buf = next;
    cur[d] = n_out;
  }
  T* out = y.data<T>();
  for (int64_t i = 0; i < y.numel(); ++i) out[i] = to_output<T>(buf[i]);
  return Status::Ok();
}

// Sets out_len and scale of the resized axes from `sizes`, honouring keep_aspect_ratio_policy.
Status apply_sizes(const ResizeAttrs& attrs, const Tensor& sizes, const std::vector<int64_t>& axes,
                 std::vector<ResizeAxis>& ax) {
  const size_t k = axes.size();
  for (size_t i = 0; i < k; ++i) {
    const int64_t s = sizes.get_int64(int64_t(i));
    const ResizeAxis& a = ax[size_t(axes[i])];
    if (s < 0) return invalid_argument("sizes must be non-negative, got ", s);
    if (a.in_len == 0 && s > 0) return invalid_argument("cannot resize an empty dim to ", s);
  }
  if (attrs.keep_aspect == KeepAspectRatioPolicy::kStretch) {
    for (size_t i = 0; i < k; ++i) {
      ResizeAxis& a = ax[size_t(axes[i])];
      a.out_len = sizes.get_int64(int64_t(i));
      a.scale = a.in_len == 0 ? 1.0 : double(a.out_len) / double(a.in_len);
      a.length_resized = double(a.out_len);
    }
    return Status::Ok();
  }
  // One scale for all resized axes: the largest (not_larger) / smallest (not_smaller) fit.
  const bool not_larger = attrs.keep_aspect == KeepAspectRatioPolicy::kNotLarger;
  double scale = not_larger ? INFINITY : 0;
  for (size_t i = 0; i < k; ++i) {
    const ResizeAxis& a = ax[size_t(axes[i])];
    if (a.in_len == 0) continue;
    const double r = double(sizes.get_int64(int64_t(i))) / double(a.in_len);
    scale = not_larger ? std::min(scale, r) : std::max(scale, r);
  }
  if (!(scale > 0) || !std::isfinite(scale)) return invalid_argument("sizes give no usable common scale");
  for (size_t i = 0; i < k; ++i) {
    ResizeAxis& a = ax[size_t(axes[i])];
    a.scale = scale;
    a.length_resized = scale * double(a.in_len);
    if (a.length_resized > double(int64_t(1) << 40)) return invalid_argument("sizes give an output that is too large");
    a.out_len = int64_t(std::floor(a.length_resized + 0.5));  // round half up
  }
  return Status::Ok();
}

}  // namespace

Result<ResizeAttrs> parse_resize_attrs(const KernelInfo& info, bool legacy) {
  return parse_resize_attrs(info, legacy, info.opset());
}

Result<ResizeAttrs> parse_resize_attrs(const KernelInfo& info, bool legacy, int64_t opset) {
  ResizeAttrs a;
  const std::string mode = info.attr_string("mode", "nearest");
  if (mode == "nearest") a.mode = ResizeMode::kNearest;
  else if (mode == "linear" || (legacy && mode == "bilinear")) a.mode = ResizeMode::kLinear;
  else if (mode == "cubic" && !legacy) a.mode = ResizeMode::kCubic;
  else return invalid_model("unsupported mode '", mode, "'");
  if (legacy) {
    a.coord = ResizeCoordMode::kAsymmetric;
    a.nearest = ResizeNearestMode::kFloor;
    return a;
  }
  const std::string coord = info.attr_string("coordinate_transformation_mode", "half_pixel");
  if (coord == "half_pixel") a.coord = ResizeCoordMode::kHalfPixel;
  else if (coord == "half_pixel_symmetric" && opset >= 19) a.coord = ResizeCoordMode::kHalfPixelSymmetric;
  else if (coord == "pytorch_half_pixel") a.coord = ResizeCoordMode::kPytorchHalfPixel;
  else if (coord == "align_corners") a.coord = ResizeCoordMode::kAlignCorners;
  else if (coord == "asymmetric") a.coord = ResizeCoordMode::kAsymmetric;
  else if (coord == "tf_half_pixel_for_nn" && opset < 13) a.coord = ResizeCoordMode::kTfHalfPixelForNn;
  else if (coord == "tf_crop_and_resize") a.coord = ResizeCoordMode::kTfCropAndResize;
  else return invalid_model("unsupported coordinate_transformation_mode '", coord, "' at opset ", opset);
  const std::string nearest = info.attr_string("nearest_mode", "round_prefer_floor");
  if (nearest == "round_prefer_floor") a.nearest = ResizeNearestMode::kRoundPreferFloor;
  else if (nearest == "round_prefer_ceil") a.nearest = ResizeNearestMode::kRoundPreferCeil;
  else if (nearest == "floor") a.nearest = ResizeNearestMode::kFloor;
  else if (nearest == "ceil") a.nearest = ResizeNearestMode::kCeil;
  else return invalid_model("unsupported nearest_mode '", nearest, "'");
  a.cubic_a = info.attr_float("cubic_coeff_a", -0.75f);
  a.exclude_outside = info.attr_int("exclude_outside", 0) != 0;
  a.extrapolation_value = info.attr_float("extrapolation_value", 0.0f);
  if (opset >= 18) {
    a.antialias = info.attr_int("antialias", 0) != 0;
    a.axes = info.attr_ints("axes");
    const std::string keep = info.attr_string("keep_aspect_ratio_policy", "stretch");
    if (keep == "stretch") a.keep_aspect = KeepAspectRatioPolicy::kStretch;
    else if (keep == "not_larger") a.keep_aspect = KeepAspectRatioPolicy::kNotLarger;
    else if (keep == "not_smaller") a.keep_aspect = KeepAspectRatioPolicy::kNotSmaller;
    else return invalid_model("unsupported keep_aspect_ratio_policy '", keep, "'");
  }
  return a;
}

Result<std::vector<ResizeAxis>> resolve_resize_axes(const KernelContext& ctx, const ResizeAttrs& attrs, bool legacy,
                                                    const Shape& x) {
  const int64_t rank = int64_t(x.size());
  // The dims that roi / scales / sizes refer to.
  std::vector<int64_t> axes;
  if (attrs.axes.empty()) {
    for (int64_t d = 0; d < rank; ++d) axes.push_back(d);
  } else {
    std::vector<bool> seen(size_t(rank), false);
    for (int64_t a : attrs.axes) {
      if (a < -rank || a >= rank) return invalid_argument("axis ", a, " is out of range for rank ", rank);
      const int64_t d = a < 0 ? a + rank : a;
      if (seen[size_t(d)]) return invalid_argument("axis ", a, " is repeated");
      seen[size_t(d)] = true;
      axes.push_back(d);
    }
  }
  const size_t k = axes.size();
  const Tensor* roi = nullptr;
  const Tensor* scales = nullptr;
  const Tensor* sizes = nullptr;
  auto given = [&](int i) { return ctx.has_input(i) && ctx.input(i).defined() && ctx.input(i).numel() > 0; };
  if (legacy) {
    if (given(1)) scales = &ctx.input(1);
  } else {
    if (given(1)) roi = &ctx.input(1);
    if (given(2)) scales = &ctx.input(2);
    if (given(3)) sizes = &ctx.input(3);
  }
  if ((scales != nullptr) == (sizes != nullptr))
    return invalid_argument("exactly one of 'scales' and 'sizes' must be given (and non-empty)");
  const Tensor* given_t = scales ? scales : sizes;
  if (given_t->rank() != 1 || size_t(given_t->numel()) != k)
    return invalid_argument(scales ? "scales" : "sizes", " must have one entry per resized axis (", k, "), got ",
                            given_t->describe());

  std::vector<ResizeAxis> ax(static_cast<size_t>(rank));
  for (int64_t d = 0; d < rank; ++d) {
    ax[size_t(d)].in_len = ax[size_t(d)].out_len = x[size_t(d)];
    ax[size_t(d)].length_resized = double(x[size_t(d)]);
  }
  if (roi) {
    if (size_t(roi->numel()) != 2 * k) return invalid_argument("roi must have ", 2 * k, " entries, got ", roi->describe());
    for (size_t i = 0; i < k; ++i) {
      ax[size_t(axes[i])].roi_start = roi->get_double(int64_t(i));
      ax[size_t(axes[i])].roi_end = roi->get_double(int64_t(k + i));
    }
  }
  if (scales) {
    for (size_t i = 0; i < k; ++i) {
      ResizeAxis& a = ax[size_t(axes[i])];
      a.scale = scales->get_double(int64_t(i));
      ONYX_ASSIGN_OR_RETURN(a.out_len, resized_length(a.in_len, a.scale));
      a.length_resized = double(a.in_len) * a.scale;
    }
  } else {
    ONYX_RETURN_IF_ERROR(apply_sizes(attrs, *sizes, axes, ax));
  }
  return ax;
}

Result<int64_t> resized_length(int64_t in_len, double scale) {
  if (!(scale > 0) || !std::isfinite(scale)) return invalid_argument("resize scale ", scale, " must be positive and finite");
  const double len = std::floor(double(in_len) * scale);
  if (len > double(int64_t(1) << 40)) return invalid_argument("resize scale ", scale, " gives an output that is too large");
  return int64_t(len);
}

Status resize_tensor(const KernelContext& ctx, const ResizeAttrs& attrs, const std::vector<ResizeAxis>& axes,
                     const Tensor& x, Tensor& y) {
  if (axes.size() != size_t(x.rank())) return invalid_argument("resize needs one entry per input dim");
  for (const ResizeAxis& ax : axes)
    if (ax.in_len == 0 && ax.out_len > 0) return invalid_argument("cannot resize an empty dim to ", ax.out_len);
  if (y.numel() == 0) return Status::Ok();
  std::vector<ResizeFilter> filters;
  for (const ResizeAxis& ax : axes) filters.push_back(make_resize_filter(attrs, ax));
  if (attrs.mode == ResizeMode::kNearest) {
    return dispatch<ONYX_ALL_TYPES>(x.dtype(), [&]<typename T>() -> Status {
      resize_nearest<T>(filters, attrs.extrapolation_value, x, y);
      return Status::Ok();
    });
  }
  return dispatch<ONYX_NUMERIC_TYPES>(x.dtype(), [&]<typename T>() -> Status {
    return resize_filtered<T>(ctx, filters, axes, attrs.extrapolation_value, x, y);
  });
}

}  // namespace onyx
