// SimplifiedLayerNormalization (ai.onnx domain, since 1: ONNX Runtime registers this RMS
// normalisation there; it is not in the ONNX standard): X is normalised over the dims
// [axis, rank) by its root mean square,
//   Y = X / sqrt(mean(X^2) + epsilon) * Scale
// with no mean subtracted and no bias. Scale holds prod(X.shape[axis:]) elements (normally
// shaped X.shape[axis:]). The optional inv_std_var output is 1 / sqrt(mean(X^2) + epsilon)
// with shape X.shape[:axis] + [1] * (rank - axis) and stash_type's type (1 float32, 11 double).
// Attributes axis (-1), epsilon (1e-5), stash_type (1). X, Scale and Y are one float type;
// float32 / float16 / bfloat16 compute in float, double in double. Rows run in parallel.
#include <cmath>
#include <vector>

#include "core/parallel.h"
#include "kernels/broadcast.h"
#include "kernels/dispatch.h"
#include "kernels/kernel.h"
#include "kernels/rms_norm.h"

namespace onyx {
namespace {

class SimplifiedLayerNormalizationKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    axis_ = info.attr_int("axis", -1);
    epsilon_ = info.attr_float("epsilon", 1e-5f);
    stash_type_ = info.attr_int("stash_type", 1);
    if (stash_type_ != 1 && stash_type_ != 11)
      return invalid_argument("SimplifiedLayerNormalization: stash_type ", stash_type_,
                              " is not float (1) or double (11)");
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const Tensor& scale = ctx.input(1);
    if (!scale.defined() || scale.dtype() != x.dtype())
      return not_implemented("SimplifiedLayerNormalization takes X and Scale of one type, got X ", x.describe(),
                             " and Scale ", scale.describe());
    ONYX_ASSIGN_OR_RETURN(int64_t axis, normalize_axis(axis_, x.rank()));
    const int64_t cols = shape_size(Shape(x.shape().begin() + axis, x.shape().end()));
    if (scale.numel() != cols)
      return invalid_argument("SimplifiedLayerNormalization: Scale ", scale.describe(), " must hold ", cols,
                              " elements (X.shape[", axis, ":] of X ", x.describe(), ")");
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output_uninitialized(0, x.dtype(), x.shape()));
    Shape stat_shape(x.shape().begin(), x.shape().begin() + axis);
    stat_shape.resize(size_t(x.rank()), 1);
    Tensor* inv_out = nullptr;
    if (ctx.output_requested(1)) {
      ONYX_ASSIGN_OR_RETURN(inv_out, ctx.allocate_output(1, stash_type_ == 11 ? DataType::kDouble : DataType::kFloat,
                                                         stat_shape));
    }
    if (x.numel() == 0) return Status::Ok();
    const int64_t rows = x.numel() / cols;
    const double eps = epsilon_;
    auto store_inv = [&](int64_t r, double inv) {
      if (!inv_out) return;
      if (stash_type_ == 11) inv_out->data<double>()[r] = inv;
      else inv_out->data<float>()[r] = float(inv);
    };
    const int64_t grain = std::max<int64_t>(1, 8192 / cols);

    return dispatch<ONYX_FLOAT_TYPES>(x.dtype(), [&]<typename T>() -> Status {
      const T* xp = x.data<T>();
      const T* sp = scale.data<T>();
      T* yp = y->data<T>();
      if constexpr (std::is_same_v<T, double>) {
        parallel_for(rows, grain, [&](int64_t r0, int64_t r1) {
          for (int64_t r = r0; r < r1; ++r) {
            const double* v = xp + r * cols;
            double ss = 0;
            for (int64_t i = 0; i < cols; ++i) ss += v[i] * v[i];
            const double inv = 1.0 / std::sqrt(ss / double(cols) + eps);
            for (int64_t i = 0; i < cols; ++i) yp[r * cols + i] = v[i] * inv * sp[i];
            store_inv(r, inv);
          }
        });
      } else if constexpr (std::is_same_v<T, float>) {
        parallel_for(rows, grain, [&](int64_t r0, int64_t r1) {
          for (int64_t r = r0; r < r1; ++r) {
            const float* v = xp + r * cols;
            const double inv = 1.0 / std::sqrt(double(sum_of_squares(v, cols)) / double(cols) + eps);
            scale_row(v, float(inv), sp, yp + r * cols, cols);
            store_inv(r, inv);
          }
        });
      } else {
        std::vector<float> s(static_cast<size_t>(cols));
        for (int64_t i = 0; i < cols; ++i) s[size_t(i)] = float(sp[i]);
        parallel_for(rows, grain, [&](int64_t r0, int64_t r1) {
          std::vector<float> v(static_cast<size_t>(cols));
          for (int64_t r = r0; r < r1; ++r) {
            for (int64_t i = 0; i < cols; ++i) v[size_t(i)] = float(xp[r * cols + i]);
            const double inv = 1.0 / std::sqrt(double(sum_of_squares(v.data(), cols)) / double(cols) + eps);
            scale_row(v.data(), float(inv), s.data(), v.data(), cols);
            for (int64_t i = 0; i < cols; ++i) yp[r * cols + i] = T(v[size_t(i)]);
            store_inv(r, inv);
          }
        });
      }
      return Status::Ok();
    });
  }

 private:
  int64_t axis_ = -1;
  float epsilon_ = 1e-5f;
  int64_t stash_type_ = 1;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "SimplifiedLayerNormalization", 1, kLatestOpset, SimplifiedLayerNormalizationKernel);

}  // namespace onyx
