// ai.onnx.ml Imputer: X ([C] or [N, C]) with every element equal to the replaced value (NaN
// matches NaN) set to the imputed value of its feature (one per feature, or one for all).
// Float and double X use imputed_value_floats / replaced_value_float; int64 and int32 X the
// int64 forms.
#include <algorithm>
#include <cmath>
#include <vector>

#include "core/parallel.h"
#include "kernels/dispatch.h"
#include "kernels/kernel.h"

namespace onyx {
namespace {

class ImputerKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    floats_ = info.attr_floats("imputed_value_floats");
    ints_ = info.attr_ints("imputed_value_int64s");
    replaced_float_ = info.attr_float("replaced_value_float", 0.f);
    replaced_int_ = info.attr_int("replaced_value_int64", 0);
    if (floats_.empty() == ints_.empty())
      return invalid_model("Imputer needs exactly one of imputed_value_floats and imputed_value_int64s");
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const bool float_input = x.dtype() == DataType::kFloat || x.dtype() == DataType::kDouble;
    if (float_input && floats_.empty())
      return invalid_argument("Imputer: ", x.describe(), " input needs imputed_value_floats");
    if (!float_input && ints_.empty())
      return invalid_argument("Imputer: ", x.describe(), " input needs imputed_value_int64s");
    const int64_t c = x.rank() == 0 ? 1 : x.dim(x.rank() - 1);
    const size_t count = float_input ? floats_.size() : ints_.size();
    if (count != 1 && int64_t(count) != c)
      return invalid_argument("Imputer: ", count, " imputed values for ", c, " features (X is ", x.describe(), ")");
    ONYX_ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output_uninitialized(0, x.dtype(), x.shape()));
    return dispatch<float, double, int64_t, int32_t>(x.dtype(), [&]<typename T>() -> Status {
      const T* in = x.data<T>();
      T* out = y->data<T>();
      // the imputed value of each feature, in X's type
      std::vector<T> imputed(size_t(std::max<int64_t>(c, 1)));
      for (size_t k = 0; k < imputed.size(); ++k) {
        const size_t from = count == 1 ? 0 : k;
        if constexpr (std::is_floating_point_v<T>) imputed[k] = T(floats_[from]);
        else imputed[k] = T(ints_[from]);
      }
      const int64_t width = std::max<int64_t>(c, 1), rows = x.numel() / width;
      const bool nan_replaced = std::isnan(replaced_float_);
      parallel_for(rows, std::max<int64_t>(1, 16384 / width), [&](int64_t begin, int64_t end) {
        for (int64_t i = begin * width; i < end * width; ++i) {
          const T v = in[i];
          const T sub = imputed[size_t(i % width)];
          if constexpr (std::is_floating_point_v<T>) {
            const bool hit = nan_replaced ? std::isnan(v) : v == T(replaced_float_);
            out[i] = hit ? sub : v;
          } else {
            out[i] = int64_t(v) == replaced_int_ ? sub : v;
          }
        }
      });
      return Status::Ok();
    });
  }

 private:
  std::vector<float> floats_;
  std::vector<int64_t> ints_;
  float replaced_float_ = 0;
  int64_t replaced_int_ = 0;
};

}  // namespace

ONYX_REGISTER_KERNEL("ai.onnx.ml", "Imputer", 1, kLatestOpset, ImputerKernel);

}  // namespace onyx
