// InvertedResidual (ai.onyx): MobileNetV2's block in one kernel, float32, channels-last,
// written by the inverted_residual_fusion pass from three NhwcFusedConv nodes:
//
//   M = act_e(conv1x1(X, We) + Be)            (the expansion; absent when We is "": M = X)
//   D = act_d(depthwise(M, Wd) + Bd)          (strides and pads: the node's attributes)
//   Y = act_p(conv1x1(D, Wp) + Bp [+ Z])      (the projection, with the block's residual Z)
//
// Inputs: X (N, H, W, Cin), We (Cmid, Cin, 1, 1), Be [Cmid], Wd (Cmid, 1, kh, kw), Bd [Cmid],
// Wp (Cout, Cmid, 1, 1), Bp [Cout], Z (N, Ho, Wo, Cout); the biases and Z optional, the
// weights constants. Attributes: strides, pads (4), and expand_ / depthwise_ / project_
// activation with their _params (fused_activation.h; the depthwise stage takes none, Relu or
// Clip). Y is (N, Ho, Wo, Cout).
//
// Where M or D would not stay in cache, output rows are computed in bands: a band's expanded
// rows are made by one product into a per-thread buffer that keeps the rows the next band's
// window shares, its depthwise rows go into a second per-thread buffer, and the projection
// writes Y's rows, so M and D never go to memory. Bands are split over the intra-op threads.
// Smaller blocks run as one band over the whole batch, each stage using every thread.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <mutex>
#include <vector>

#include "core/parallel.h"
#include "kernels/depthwise_rows.h"
#include "kernels/fused_activation.h"
#include "kernels/inverted_residual.h"
#include "kernels/kernel.h"
#include "kernels/onednn_matmul.h"
#include "kernels/spatial.h"

namespace onyx {
namespace {

constexpr const char* kOp = "InvertedResidual";

struct Geometry {
  int64_t n = 0, h = 0, w = 0, c_in = 0, c_mid = 0, c_out = 0, out_h = 0, out_w = 0;
  DepthwiseGeometry dw;
};

// A per-thread working buffer, 64-byte aligned (unaligned, every AVX-512 load of the
// depthwise stage would split across two cache lines), grown on demand and kept.
class ThreadBuffer {
 public:
  ~ThreadBuffer() { std::free(data_); }
  float* reserve(int64_t floats) {
    if (floats > capacity_) {
      std::free(data_);
      const size_t bytes = (size_t(floats) * sizeof(float) + 63) / 64 * 64;
      data_ = static_cast<float*>(std::aligned_alloc(64, bytes));
      capacity_ = data_ ? floats : 0;
    }
    return data_;
  }

 private:
  float* data_ = nullptr;
  int64_t capacity_ = 0;
};

// The rows one thread keeps between the bands it computes: expanded rows [lo, hi) of image n.
struct ExpandedRows {
  int64_t n = -1, lo = 0, hi = 0;
  float* rows = nullptr;  // row r at rows + (r - lo) * w * c_mid
};

class InvertedResidualKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    has_expand_ = info.has_input(1);
    ONYX_ASSIGN_OR_RETURN(FusedActivation expand_act, parse_fused_activation(info, "expand_"));
    ONYX_ASSIGN_OR_RETURN(FusedActivation depthwise_act, parse_fused_activation(info, "depthwise_"));
    ONYX_ASSIGN_OR_RETURN(FusedActivation project_act, parse_fused_activation(info, "project_"));
    if (expand_act.needs_apply() || project_act.needs_apply())
      return not_implemented(kOp, ": activation HardSigmoid in the expansion or projection");
    switch (depthwise_act.kind) {
      case FusedActivation::Kind::kNone: break;
      case FusedActivation::Kind::kRelu: lo_ = 0.0f; break;
      case FusedActivation::Kind::kClip: lo_ = depthwise_act.alpha, hi_ = depthwise_act.beta; break;
      default: return not_implemented(kOp, ": depthwise activation other than Relu or Clip");
    }
    // Conv's window attributes and checks (spatial.h); the depthwise stage has no dilation and
    // the pass writes explicit pads.
    ONYX_RETURN_IF_ERROR(parse_window_attrs(info, &window_));
    if (window_.auto_pad != AutoPad::kNotSet) return invalid_model(kOp, ": auto_pad must be NOTSET (explicit pads)");
    for (int64_t d : window_.dilations)
      if (d != 1) return invalid_model(kOp, ": the depthwise stage takes no dilation");

    const Tensor* we = has_expand_ ? info.constant_input(1) : nullptr;
    const Tensor* wd = info.constant_input(3);
    const Tensor* wp = info.constant_input(5);
    if ((has_expand_ && !we) || !wd || !wp) return invalid_model(kOp, ": the weights must be constants");
    for (const Tensor* t : {we, wd, wp})
      if (t && (t->dtype() != DataType::kFloat || t->rank() != 4))
        return invalid_model(kOp, ": weights must be float32 of rank 4, got ", t->describe());
    c_mid_ = wd->dim(0);
    if (wd->dim(1) != 1) return invalid_model(kOp, ": the depthwise weight must be (C, 1, kh, kw), got ", wd->describe());
    kh_ = wd->dim(2), kw_ = wd->dim(3);
    if (has_expand_ && (we->dim(0) != c_mid_ || we->dim(2) != 1 || we->dim(3) != 1))
      return invalid_model(kOp, ": expansion weight ", we->describe(), " does not fit depthwise ", wd->describe());
    if (wp->dim(1) != c_mid_ || wp->dim(2) != 1 || wp->dim(3) != 1)
      return invalid_model(kOp, ": projection weight ", wp->describe(), " does not fit depthwise ", wd->describe());
    c_out_ = wp->dim(0);
    if (c_mid_ <= 0 || kh_ <= 0 || kw_ <= 0 || c_out_ <= 0) return invalid_model(kOp, ": empty weights");
    if (has_expand_) c_in_ = we->dim(1);
    else c_in_ = c_mid_;
    if (c_in_ <= 0) return invalid_model(kOp, ": the expansion weight has no input channels");
    taps_ = depthwise_taps(wd->data<float>(), c_mid_, kh_, kw_);

    if (has_expand_) {
      ONYX_ASSIGN_OR_RETURN(expand_, pointwise_product(*we, info.has_input(2), false, expand_act));
    }
    ONYX_ASSIGN_OR_RETURN(project_, pointwise_product(*wp, info.has_input(6), info.has_input(7), project_act));
    return Status::Ok();
  }

  std::vector<int> released_constant_inputs() const override {
    return has_expand_ ? std::vector<int>{1, 3, 5} : std::vector<int>{3, 5};
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    if (x.dtype() != DataType::kFloat || x.rank() != 4 || x.dim(3) != c_in_)
      return invalid_argument(kOp, ": X must be float32 (N, H, W, ", c_in_, "), got ", x.describe());
    const float* be = nullptr;
    const float* bd = nullptr;
    const float* bp = nullptr;
    ONYX_RETURN_IF_ERROR(bias_input(ctx, 2, c_mid_, &be));
    ONYX_RETURN_IF_ERROR(bias_input(ctx, 4, c_mid_, &bd));
    ONYX_RETURN_IF_ERROR(bias_input(ctx, 6, c_out_, &bp));

    Geometry g;
    g.n = x.dim(0), g.h = x.dim(1), g.w = x.dim(2), g.c_in = c_in_, g.c_mid = c_mid_, g.c_out = c_out_;
    ONYX_ASSIGN_OR_RETURN(const WindowGeometry window, resolve_window(window_, {g.h, g.w}, {kh_, kw_}));
    g.out_h = window.out[0], g.out_w = window.out[1];
    g.dw = DepthwiseGeometry{g.h, g.w, g.out_w, c_mid_, kh_, kw_, window.strides[0], window.strides[1],
                             window.pad_begin[0], window.pad_begin[1]};
    const Shape y_shape{g.n, g.out_h, g.out_w, c_out_};
    const float* z = nullptr;
    if (ctx.has_input(7)) {
      const Tensor& zt = ctx.input(7);
      if (zt.dtype() != DataType::kFloat || zt.shape() != y_shape)
        return invalid_argument(kOp, ": Z ", zt.describe(), " must be float32 of Y's shape ", shape_to_string(y_shape));
      z = zt.data<float>();
    }
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output_uninitialized(0, DataType::kFloat, y_shape));
    if (y->numel() == 0) return Status::Ok();
    if (inverted_residual_in_bands(g.h * g.w, g.out_h * g.out_w, c_mid_))
      return run_in_bands(g, x.data<float>(), be, bd, bp, z, y->data<float>(), inverted_residual_band_bytes() / 2);
    return run_whole(ctx, g, x.data<float>(), be, bd, bp, z, y->data<float>());
  }

 private:
  // A 1x1 convolution's product: rows x Cin by the weight (Cout, Cin, 1, 1), packed once, with
  // the bias, the residual (accumulate) and the activation as oneDNN's epilogue.
  static Result<std::unique_ptr<onednn::MatMul>> pointwise_product(const Tensor& w, bool bias, bool accumulate,
                                                                   const FusedActivation& act) {
    constexpr int64_t kRowsHint = 256;  // about a band's rows
    onednn::MatMulEpilogue e;
    e.bias = bias;
    e.accumulate = accumulate;
    e.activation = act.onednn_algorithm();
    e.activation_alpha = act.onednn_alpha(), e.activation_beta = act.onednn_beta();
    auto product = std::make_unique<onednn::MatMul>(e);
    ONYX_ASSIGN_OR_RETURN(auto packed, onednn::MatMul::pack_b(w.data<float>(), {w.dim(0), w.dim(1)}, true, kRowsHint));
    product->use_packed_b(std::move(packed));
    return product;
  }

  static Status bias_input(const KernelContext& ctx, int i, int64_t size, const float** out) {
    if (!ctx.has_input(i)) return Status::Ok();
    const Tensor& b = ctx.input(i);
    if (b.dtype() != DataType::kFloat || b.rank() != 1 || b.dim(0) != size)
      return invalid_argument(kOp, ": bias input ", i, " must be float32 [", size, "], got ", b.describe());
    *out = b.data<float>();
    return Status::Ok();
  }

  // rows x K by the packed weight into rows x N.
  static Status product(const onednn::MatMul& mm, int64_t rows, int64_t k, int64_t n, const float* a,
                        const float* bias, float* y) {
    onednn::MatMulShape s;
    s.a = {rows, k};
    s.b = {n, k};
    s.trans_b = true;
    return mm.run(s, a, nullptr, bias, y);
  }

  // Output rows [r0, r1) of image `image`: expanded rows into `held` (keeping those it holds
  // already), the depthwise rows into `mid`, the projection into y.
  Status run_band(const Geometry& g, int64_t image, int64_t r0, int64_t r1, const float* x, const float* be,
                  const float* bd, const float* bp, const float* z, float* y, ExpandedRows& held, float* mid) const {
    const float* x_image = x + image * g.h * g.w * g.c_in;
    const float* src = x_image;
    int64_t src_row0 = 0;
    if (has_expand_) {
      const int64_t need_lo = std::max<int64_t>(0, r0 * g.dw.sh - g.dw.pt);
      const int64_t need_hi = std::min<int64_t>(g.h, (r1 - 1) * g.dw.sh - g.dw.pt + kh_);
      const int64_t row_floats = g.w * g.c_mid;
      if (held.n == image && held.lo <= need_lo && need_lo < held.hi) {
        const int64_t keep = held.hi - need_lo;
        std::memmove(held.rows, held.rows + (need_lo - held.lo) * row_floats, size_t(keep * row_floats) * sizeof(float));
        held.lo = need_lo;
      } else {
        held.n = image, held.lo = held.hi = need_lo;
      }
      if (need_hi > held.hi) {
        ONYX_RETURN_IF_ERROR(product(*expand_, (need_hi - held.hi) * g.w, g.c_in, g.c_mid, x_image + held.hi * g.w * g.c_in,
                                     be, held.rows + (held.hi - held.lo) * row_floats));
        held.hi = need_hi;
      }
      src = held.rows, src_row0 = held.lo;
    }
    depthwise_rows(g.dw, src, src_row0, taps_.data(), bd, r0, r1, mid, lo_, hi_);
    const int64_t first = (image * g.out_h + r0) * g.out_w, count = (r1 - r0) * g.out_w;
    if (z) std::memcpy(y + first * g.c_out, z + first * g.c_out, size_t(count * g.c_out) * sizeof(float));
    return product(*project_, count, g.c_mid, g.c_out, mid, bp, y + first * g.c_out);
  }

  Status run_in_bands(const Geometry& g, const float* x, const float* be, const float* bd, const float* bp,
                      const float* z, float* y, int64_t held_budget) const {
    const int64_t row_bytes = g.w * g.c_mid * int64_t(sizeof(float));
    // Rows per band: as many as fit the budget's expanded rows, but at least 2 bands per thread.
    const int64_t fit_rows = std::max<int64_t>(1, held_budget / row_bytes);
    int64_t band = std::max<int64_t>(1, (fit_rows - kh_) / g.dw.sh + 1);
    const int64_t threads = intra_op_threads();
    const int64_t least_bands = (2 * threads + g.n - 1) / g.n;
    band = std::min(band, std::max<int64_t>(1, g.out_h / least_bands));
    const int64_t bands = (g.out_h + band - 1) / band;
    const int64_t held_rows = std::min<int64_t>(g.h, (band - 1) * g.dw.sh + kh_);
    const int64_t held_floats = has_expand_ ? held_rows * g.w * g.c_mid : 0;
    const int64_t mid_floats = band * g.out_w * g.c_mid;

    Status status = Status::Ok();
    std::mutex mu;
    parallel_for(g.n * bands, 1, [&](int64_t begin, int64_t end) {
      thread_local ThreadBuffer held_buffer, mid_buffer;
      ExpandedRows held;
      held.rows = held_buffer.reserve(std::max<int64_t>(1, held_floats));
      float* mid = mid_buffer.reserve(mid_floats);
      if (!held.rows || !mid) {
        std::lock_guard<std::mutex> lock(mu);
        if (status.ok()) status = runtime_error(kOp, ": no memory for a band's rows");
        return;
      }
      for (int64_t t = begin; t < end; ++t) {
        const int64_t image = t / bands, r0 = (t % bands) * band, r1 = std::min(g.out_h, r0 + band);
        Status s = run_band(g, image, r0, r1, x, be, bd, bp, z, y, held, mid);
        if (!s.ok()) {
          std::lock_guard<std::mutex> lock(mu);
          if (status.ok()) status = std::move(s);
          return;
        }
      }
    });
    return status;
  }

  // The whole batch as one band, every stage threaded on its own.
  Status run_whole(KernelContext& ctx, const Geometry& g, const float* x, const float* be, const float* bd,
                   const float* bp, const float* z, float* y) const {
    const float* src = x;
    Tensor expanded;
    if (has_expand_) {
      ONYX_ASSIGN_OR_RETURN(expanded, ctx.allocate_scratch(DataType::kFloat, {g.n * g.h * g.w * g.c_mid}));
      ONYX_RETURN_IF_ERROR(product(*expand_, g.n * g.h * g.w, g.c_in, g.c_mid, x, be, expanded.data<float>()));
      src = expanded.data<float>();
    }
    const int64_t out_rows = g.n * g.out_h * g.out_w;
    ONYX_ASSIGN_OR_RETURN(Tensor mid, ctx.allocate_scratch(DataType::kFloat, {out_rows * g.c_mid}));
    float* mid_data = mid.data<float>();
    parallel_for(g.n * g.out_h, 1, [&](int64_t begin, int64_t end) {
      for (int64_t t = begin; t < end; ++t) {
        const int64_t image = t / g.out_h, r = t % g.out_h;
        depthwise_rows(g.dw, src + image * g.h * g.w * g.c_mid, 0, taps_.data(), bd, r, r + 1,
                       mid_data + t * g.out_w * g.c_mid, lo_, hi_);
      }
    });
    if (z) {
      const int64_t per_row = g.out_w * g.c_out;
      parallel_for(g.n * g.out_h, 16, [&](int64_t begin, int64_t end) {
        std::memcpy(y + begin * per_row, z + begin * per_row, size_t((end - begin) * per_row) * sizeof(float));
      });
    }
    return product(*project_, out_rows, g.c_mid, g.c_out, mid_data, bp, y);
  }

  bool has_expand_ = false;
  int64_t c_in_ = 0, c_mid_ = 0, c_out_ = 0, kh_ = 0, kw_ = 0;
  WindowAttrs window_;  // strides and pads of the depthwise stage
  float lo_ = -std::numeric_limits<float>::infinity(), hi_ = std::numeric_limits<float>::infinity();
  std::vector<float> taps_;
  std::unique_ptr<onednn::MatMul> expand_, project_;
};

}  // namespace

ONYX_REGISTER_KERNEL("ai.onyx", "InvertedResidual", 1, kLatestOpset, InvertedResidualKernel);

}  // namespace onyx
