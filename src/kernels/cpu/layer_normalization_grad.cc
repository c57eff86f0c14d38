// LayerNormalizationGrad (ai.onyx.training): the gradients of LayerNormalization (opset 17)
// in two passes over the rows, from dY, X and Scale (attributes axis, epsilon as the forward
// node's). Rows are X's dims before `axis`, columns the normalised dims from it on; Scale has
// the columns' shape. With xhat = (X - mean) * inv_std (population variance) and
// G = dY * Scale, per row:
//   dX = inv_std * (G - mean(G) - xhat * mean(G * xhat))
// and over the rows: dScale = sum(dY * xhat), dBias = sum(dY) (outputs 1 and 2, optional).
// Row sums in 16 float lanes, added in double. float32 only (the gradient rule falls back to
// plain ops otherwise). On AVX-512, one sweep (layer_norm::gradient_rows_avx512). Elsewhere,
// pass one: rows in parallel (dX, and each row's mean and inv_std kept); pass two: columns in
// parallel for dScale and dBias. Either way every sum has one fixed order.
#include <cmath>
#include <vector>

#include "core/parallel.h"
#include "kernels/kernel.h"
#include "kernels/layer_norm_rows.h"
#include "kernels/target_clones.h"

namespace onyx {
namespace {

// One of the row sums pass one needs, in 16 float lanes (vectorised without reassociation),
// the lanes added in double at the end:
//   sum (a - shift) * (b ? b - shift : 1) * (w ? w : 1) * (d ? d : 1)   over j < n.
ONYX_TARGET_CLONES double lane_sum(const float* a, const float* b, float shift, const float* w, int64_t n,
                                   const float* d = nullptr) {
  constexpr int kLanes = 16;
  float acc[kLanes] = {};
  int64_t j = 0;
  for (; j + kLanes <= n; j += kLanes)
    for (int k = 0; k < kLanes; ++k) {
      float v = a[j + k] - shift;
      if (b) v *= b[j + k] - shift;
      if (w) v *= w[j + k];
      if (d) v *= d[j + k];
      acc[k] += v;
    }
  double total = 0;
  for (int k = 0; k < kLanes; ++k) total += acc[k];
  for (; j < n; ++j) {
    double v = double(a[j]) - shift;
    if (b) v *= double(b[j]) - shift;
    if (w) v *= w[j];
    if (d) v *= d[j];
    total += v;
  }
  return total;
}

class LayerNormalizationGradKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    axis_ = info.attr_int("axis", -1);
    epsilon_ = info.attr_float("epsilon", 1e-5f);
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& dy = ctx.input(0);
    const Tensor& x = ctx.input(1);
    const Tensor& scale = ctx.input(2);
    if (x.dtype() != DataType::kFloat || dy.dtype() != DataType::kFloat || scale.dtype() != DataType::kFloat)
      return not_implemented("LayerNormalizationGrad (ai.onyx.training) for ", x.describe(), " (float32 only)");
    if (dy.shape() != x.shape()) return invalid_argument("LayerNormalizationGrad: dY ", dy.describe(), " and X ", x.describe(), " differ");
    int64_t axis = axis_ < 0 ? axis_ + x.rank() : axis_;
    if (axis < 0 || axis >= x.rank()) return invalid_argument("LayerNormalizationGrad: axis ", axis_, " is out of range for ", x.describe());
    const Shape cols_shape(x.shape().begin() + axis, x.shape().end());
    if (scale.shape() != cols_shape)
      return invalid_argument("LayerNormalizationGrad: Scale ", scale.describe(), " must have the shape ", shape_to_string(cols_shape));
    const int64_t cols = scale.numel(), rows = cols ? x.numel() / cols : 0;
    ONYX_ASSIGN_OR_RETURN(Tensor * dx, ctx.allocate_output_uninitialized(0, DataType::kFloat, x.shape()));
    Tensor* dscale = nullptr;
    Tensor* dbias = nullptr;
    if (ctx.output_requested(1)) {
      ONYX_ASSIGN_OR_RETURN(dscale, ctx.allocate_output_uninitialized(1, DataType::kFloat, cols_shape));
    }
    if (ctx.output_requested(2)) {
      ONYX_ASSIGN_OR_RETURN(dbias, ctx.allocate_output_uninitialized(2, DataType::kFloat, cols_shape));
    }
    const float* pdy = dy.data<float>();
    const float* px = x.data<float>();
    const float* ps = scale.data<float>();
    float* pdx = dx->data<float>();
    float* pds = dscale ? dscale->data<float>() : nullptr;
    float* pdb = dbias ? dbias->data<float>() : nullptr;
    if (layer_norm::gradient_rows_avx512(px, pdy, ps, rows, cols, epsilon_, pdx, pds, pdb)) return Status::Ok();
    std::vector<float> mean(static_cast<size_t>(rows)), inv_std(static_cast<size_t>(rows));
    const double eps = epsilon_;
    parallel_for(rows, std::max<int64_t>(1, 16384 / std::max<int64_t>(cols, 1)), [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        const float* xr = px + r * cols;
        const float* dyr = pdy + r * cols;
        const float mu = float(lane_sum(xr, nullptr, 0.f, nullptr, cols) / double(cols));
        const double var = lane_sum(xr, xr, mu, nullptr, cols) / double(cols);  // sum (x - mu)^2
        const float is = float(1.0 / std::sqrt(var + eps));
        // sum(dY * scale) and sum(dY * scale * (x - mu)), then times inv_std
        const double sum_g = lane_sum(dyr, nullptr, 0.f, ps, cols);
        const double sum_gx = lane_sum(xr, nullptr, mu, ps, cols, dyr) * is;
        const float m = mu, s = is, mg = float(sum_g / double(cols)), mgx = float(sum_gx / double(cols));
        layer_norm::input_gradient(xr, dyr, ps, m, s, mg, mgx, pdx + r * cols, cols);
        mean[size_t(r)] = m;
        inv_std[size_t(r)] = s;
      }
    });
    if (!dscale && !dbias) return Status::Ok();
    parallel_for(cols, 64, [&](int64_t c0, int64_t c1) {
      std::vector<double> acc_s(size_t(c1 - c0), 0.0), acc_b(size_t(c1 - c0), 0.0);
      layer_norm::parameter_gradients(px, pdy, mean.data(), inv_std.data(), rows, cols, c0, c1,
                                      pds ? acc_s.data() : nullptr, pdb ? acc_b.data() : nullptr);
      for (int64_t j = c0; j < c1; ++j) {
        if (pds) pds[j] = float(acc_s[size_t(j - c0)]);
        if (pdb) pdb[j] = float(acc_b[size_t(j - c0)]);
      }
    });
    return Status::Ok();
  }

 private:
  int64_t axis_ = -1;
  float epsilon_ = 1e-5f;
};

}  // namespace

ONYX_REGISTER_KERNEL("ai.onyx.training", "LayerNormalizationGrad", 1, kLatestOpset, LayerNormalizationGradKernel);

}  // namespace onyx
