// Shared by the signal generators: output_datatype parsing (windows, MelWeightMatrix) and
// the generalized cosine windows of HannWindow, HammingWindow and BlackmanWindow:
// w[j] = sum_k (-1)^k a_k cos(2 pi k j / N) for j < size, with N = size (periodic) or
// size - 1 (symmetric), computed in double and cast to output_datatype.
#pragma once
#include <cmath>
#include <numbers>
#include <vector>

#include "kernels/dispatch.h"
#include "kernels/kernel.h"

namespace onyx {

// Reads the output_datatype attribute (default float); INVALID_MODEL unless a numeric type.
inline Status parse_output_datatype(const KernelInfo& info, DataType* out) {
  const int64_t code = info.attr_int("output_datatype", int64_t(DataType::kFloat));
  if (!is_valid_data_type(int(code)) || code > int64_t(DataType::kBFloat16))
    return invalid_model("output_datatype ", code, " is not a data type");
  const DataType t = DataType(code);
  if (!is_float_type(t) && !is_integer_type(t))
    return invalid_model("output_datatype must be numeric, got ", data_type_name(t));
  *out = t;
  return Status::Ok();
}

// The kernel of a cosine window with the given coefficients a_k.
class CosineWindowKernel : public Kernel {
 public:
  explicit CosineWindowKernel(std::vector<double> coefficients) : coefficients_(std::move(coefficients)) {}

  Status prepare(const KernelInfo& info) override {
    periodic_ = info.attr_int("periodic", 1) != 0;
    return parse_output_datatype(info, &out_type_);
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& size_in = ctx.input(0);
    if (!size_in.defined() || !is_integer_type(size_in.dtype()) || size_in.numel() != 1)
      return invalid_argument("window size must be an integer scalar, got ", size_in.describe());
    const int64_t size = size_in.get_int64(0);
    if (size < 0) return invalid_argument("window size must be non-negative, got ", size);
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output(0, out_type_, {size}));
    const int64_t period = periodic_ ? size : size - 1;
    return dispatch<ONYX_NUMERIC_TYPES>(out_type_, [&]<typename T>() -> Status {
      T* out = y->data<T>();
      for (int64_t j = 0; j < size; ++j) {
        double w = 0;
        if (period == 0) {
          w = 1.0;  // a one-point symmetric window
        } else {
          for (size_t k = 0; k < coefficients_.size(); ++k) {
            const double sign = k % 2 ? -1.0 : 1.0;
            w += sign * coefficients_[k] * std::cos(2.0 * std::numbers::pi * double(k) * double(j) / double(period));
          }
        }
        out[j] = static_cast<T>(static_cast<compute_t<T>>(w));
      }
      return Status::Ok();
    });
  }

 private:
  std::vector<double> coefficients_;
  bool periodic_ = true;
  DataType out_type_ = DataType::kFloat;
};

}  // namespace onyx
