// LayerNormalizationGrad (ai.onyx.training): the gradients of LayerNormalization (opset 17)
// in two passes over the rows, from dY, X and Scale (attributes axis, epsilon as the forward
// node's). Rows are X's dims before `axis`, columns the normalised dims from it on; Scale has
// the columns' shape. With xhat = (X - mean) * inv_std (population variance) and
// G = dY * Scale, per row:
//   dX = inv_std * (G - mean(G) - xhat * mean(G * xhat))
// and over the rows: dScale = sum(dY * xhat), dBias = sum(dY) (outputs 1 and 2, optional).
// Row statistics in double. float32 only (the gradient rule falls back to plain ops
// otherwise). Pass one: rows in parallel (dX, and each row's mean and inv_std kept); pass
// two: columns in parallel for dScale and dBias, so every sum has one fixed order.
#include <cmath>
#include <vector>

#include "core/parallel.h"
#include "kernels/kernel.h"

namespace onyx {
namespace {

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
    const float* pdy = dy.data<float>();
    const float* px = x.data<float>();
    const float* ps = scale.data<float>();
    float* pdx = dx->data<float>();
    std::vector<float> mean(static_cast<size_t>(rows)), inv_std(static_cast<size_t>(rows));
    const double eps = epsilon_;
    parallel_for(rows, std::max<int64_t>(1, 16384 / std::max<int64_t>(cols, 1)), [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        const float* xr = px + r * cols;
        const float* dyr = pdy + r * cols;
        double sum = 0, sq = 0;
        for (int64_t j = 0; j < cols; ++j) sum += xr[j];
        const double mu = sum / double(cols);
        for (int64_t j = 0; j < cols; ++j) sq += (xr[j] - mu) * (xr[j] - mu);
        const double is = 1.0 / std::sqrt(sq / double(cols) + eps);
        double sum_g = 0, sum_gx = 0;
        for (int64_t j = 0; j < cols; ++j) {
          const double g = double(dyr[j]) * ps[j];
          sum_g += g;
          sum_gx += g * (xr[j] - mu) * is;
        }
        const float m = float(mu), s = float(is), mg = float(sum_g / double(cols)), mgx = float(sum_gx / double(cols));
        float* dxr = pdx + r * cols;
        for (int64_t j = 0; j < cols; ++j) {
          const float xhat = (xr[j] - m) * s;
          dxr[j] = s * (dyr[j] * ps[j] - mg - xhat * mgx);
        }
        mean[size_t(r)] = m;
        inv_std[size_t(r)] = s;
      }
    });
    Tensor* dscale = nullptr;
    Tensor* dbias = nullptr;
    if (ctx.output_requested(1)) {
      ONYX_ASSIGN_OR_RETURN(dscale, ctx.allocate_output_uninitialized(1, DataType::kFloat, cols_shape));
    }
    if (ctx.output_requested(2)) {
      ONYX_ASSIGN_OR_RETURN(dbias, ctx.allocate_output_uninitialized(2, DataType::kFloat, cols_shape));
    }
    if (!dscale && !dbias) return Status::Ok();
    float* pds = dscale ? dscale->data<float>() : nullptr;
    float* pdb = dbias ? dbias->data<float>() : nullptr;
    parallel_for(cols, 64, [&](int64_t c0, int64_t c1) {
      std::vector<double> acc_s(size_t(c1 - c0), 0.0), acc_b(size_t(c1 - c0), 0.0);
      for (int64_t r = 0; r < rows; ++r) {
        const float* xr = px + r * cols;
        const float* dyr = pdy + r * cols;
        const float m = mean[size_t(r)], s = inv_std[size_t(r)];
        for (int64_t j = c0; j < c1; ++j) {
          acc_s[size_t(j - c0)] += double(dyr[j]) * ((xr[j] - m) * s);
          acc_b[size_t(j - c0)] += dyr[j];
        }
      }
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
