// The kernel functions of ai.onnx.ml's SVMClassifier and SVMRegressor: kernel_type LINEAR
// (x.y), POLY ((gamma x.y + coef0)^degree), RBF (exp(-gamma |x - y|^2)) or SIGMOID
// (tanh(gamma x.y + coef0)), with kernel_params = [gamma, coef0, degree] (all 0 when absent).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"

namespace onyx::ml {

struct SvmKernel {
  enum class Type { kLinear, kPoly, kRbf, kSigmoid } type = Type::kLinear;
  double gamma = 0, coef0 = 0;
  int64_t degree = 0;

  // From kernel_type and kernel_params (empty, or exactly three values); INVALID_MODEL else.
  static Result<SvmKernel> parse(const std::string& type, const std::vector<float>& params, const char* op);
  // K(a, b) over n features.
  double operator()(const double* a, const float* b, int64_t n) const;
};

}  // namespace onyx::ml
