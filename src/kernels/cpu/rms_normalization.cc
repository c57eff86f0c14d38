// RMSNormalization (ai.onnx, since 23): X is normalised over the dims [axis, rank) by its
// root mean square and multiplied by Scale,
//   Y = X / sqrt(mean(X^2 over [axis, rank)) + epsilon) * Scale
// with no mean subtracted and no bias.
//   inputs:  X (float16 / float / double / bfloat16), Scale (any of those, unidirectionally
//            broadcastable to X: normally X.shape[axis:], but any shape numpy broadcasting
//            stretches to X's).
//   output:  Y, X's shape, Scale's type.
//   attributes: axis (-1, in [-rank, rank)), epsilon (1e-5), stash_type (1: the statistics in
//            float32; 11: in double).
// float32 / float16 / bfloat16 compute in float32 (double with stash_type 11), double in
// double. Scale is read as float once per run; a Scale that varies along the dims before axis
// is expanded to X's shape (the rare case), otherwise to one row. Rows run in parallel.
#include <cmath>
#include <vector>

#include "core/parallel.h"
#include "kernels/broadcast.h"
#include "kernels/dispatch.h"
#include "kernels/expand_to.h"
#include "kernels/kernel.h"
#include "kernels/rms_norm.h"

namespace onyx {
namespace {

// Scale as floats: `cols` values shared by every row, or one row of `cols` per row of X.
struct ScaleRows {
  std::vector<float> values;
  bool per_row = false;
  const float* row(int64_t r, int64_t cols) const { return values.data() + (per_row ? r * cols : 0); }
};

Result<ScaleRows> read_scale(const Tensor& scale, const Tensor& x, int64_t axis) {
  const int64_t rank = x.rank();
  if (scale.rank() > rank)
    return invalid_argument("RMSNormalization: Scale ", scale.describe(), " has a higher rank than X ", x.describe());
  bool per_row = false;
  for (int64_t k = 0; k < scale.rank(); ++k) {
    const int64_t xd = rank - scale.rank() + k;
    const int64_t sd = scale.dim(k);
    if (sd != 1 && sd != x.dim(xd))
      return invalid_argument("RMSNormalization: Scale ", scale.describe(), " does not broadcast to X ", x.describe());
    if (xd < axis && sd != 1) per_row = true;
  }
  // The shape Scale is stretched to: all of X, or only X.shape[axis:].
  Shape target = per_row ? x.shape() : Shape(x.shape().begin() + axis, x.shape().end());
  Shape source = scale.shape();
  if (!per_row) {  // drop the leading 1s that fall before axis
    const int64_t keep = std::min<int64_t>(scale.rank(), rank - axis);
    source = Shape(scale.shape().end() - keep, scale.shape().end());
  }
  ONYX_ASSIGN_OR_RETURN(Tensor reshaped, scale.reshaped(source));
  ONYX_ASSIGN_OR_RETURN(Tensor wide, expand_to(reshaped, target));
  ScaleRows out;
  out.per_row = per_row;
  out.values.resize(size_t(wide.numel()));
  ONYX_RETURN_IF_ERROR(dispatch<ONYX_FLOAT_TYPES>(wide.dtype(), [&]<typename V>() -> Status {
    const V* p = wide.data<V>();
    for (int64_t i = 0; i < wide.numel(); ++i) out.values[size_t(i)] = float(p[i]);
    return Status::Ok();
  }));
  return out;
}

class RmsNormalizationKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    axis_ = info.attr_int("axis", -1);
    epsilon_ = info.attr_float("epsilon", 1e-5f);
    stash_type_ = info.attr_int("stash_type", 1);
    if (stash_type_ != 1 && stash_type_ != 11)
      return not_implemented("RMSNormalization: stash_type ", stash_type_, " (only float (1) and double (11))");
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const Tensor& scale = ctx.input(1);
    if (!scale.defined()) return invalid_argument("RMSNormalization needs its Scale input");
    ONYX_ASSIGN_OR_RETURN(int64_t axis, normalize_axis(axis_, x.rank()));
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output_uninitialized(0, scale.dtype(), x.shape()));
    if (x.numel() == 0) return Status::Ok();
    ONYX_ASSIGN_OR_RETURN(ScaleRows s, read_scale(scale, x, axis));
    const int64_t cols = shape_size(Shape(x.shape().begin() + axis, x.shape().end()));
    const int64_t rows = x.numel() / cols;
    const int64_t grain = std::max<int64_t>(1, 8192 / cols);
    const bool in_double = stash_type_ == 11 || x.dtype() == DataType::kDouble;

    return dispatch<ONYX_FLOAT_TYPES>(x.dtype(), [&]<typename T>() -> Status {
      return dispatch<ONYX_FLOAT_TYPES>(scale.dtype(), [&]<typename V>() -> Status {
        const T* xp = x.data<T>();
        V* yp = y->data<V>();
        if (in_double) {
          parallel_for(rows, grain, [&](int64_t r0, int64_t r1) {
            for (int64_t r = r0; r < r1; ++r) {
              const T* v = xp + r * cols;
              double ss = 0;
              for (int64_t i = 0; i < cols; ++i) ss += double(v[i]) * double(v[i]);
              const double inv = 1.0 / std::sqrt(ss / double(cols) + double(epsilon_));
              const float* sp = s.row(r, cols);
              for (int64_t i = 0; i < cols; ++i) yp[r * cols + i] = V(double(v[i]) * inv * double(sp[i]));
            }
          });
        } else {
          parallel_for(rows, grain, [&](int64_t r0, int64_t r1) {
            std::vector<float> buf;
            if constexpr (!std::is_same_v<T, float> || !std::is_same_v<V, float>) buf.resize(size_t(cols));
            for (int64_t r = r0; r < r1; ++r) {
              const float* v;
              if constexpr (std::is_same_v<T, float>) {
                v = xp + r * cols;
              } else {
                for (int64_t i = 0; i < cols; ++i) buf[size_t(i)] = float(xp[r * cols + i]);
                v = buf.data();
              }
              const double inv = 1.0 / std::sqrt(double(sum_of_squares(v, cols)) / double(cols) + double(epsilon_));
              if constexpr (std::is_same_v<V, float>) {
                scale_row(v, float(inv), s.row(r, cols), yp + r * cols, cols);
              } else {
                scale_row(v, float(inv), s.row(r, cols), buf.data(), cols);
                for (int64_t i = 0; i < cols; ++i) yp[r * cols + i] = V(buf[size_t(i)]);
              }
            }
          });
        }
        return Status::Ok();
      });
    });
  }

 private:
  int64_t axis_ = -1;
  float epsilon_ = 1e-5f;
  int64_t stash_type_ = 1;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "RMSNormalization", 23, kLatestOpset, RmsNormalizationKernel);

}  // namespace onyx
