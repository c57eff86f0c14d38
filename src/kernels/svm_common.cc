#include "kernels/svm_common.h"

#include <cmath>
#include <vector>

namespace onyx::ml {

Result<SvmKernel> SvmKernel::parse(const std::string& type, const std::vector<float>& params, const char* op) {
  SvmKernel k;
  if (type == "LINEAR") k.type = Type::kLinear;
  else if (type == "POLY") k.type = Type::kPoly;
  else if (type == "RBF") k.type = Type::kRbf;
  else if (type == "SIGMOID") k.type = Type::kSigmoid;
  else return invalid_model(op, ": kernel_type must be LINEAR, POLY, RBF or SIGMOID, got '", type, "'");
  if (!params.empty() && params.size() != 3)
    return invalid_model(op, ": kernel_params must be [gamma, coef0, degree], got ", params.size(), " values");
  if (params.size() == 3) {
    k.gamma = params[0];
    k.coef0 = params[1];
    k.degree = int64_t(params[2]);
  }
  return k;
}

double SvmKernel::operator()(const double* a, const float* b, int64_t n) const {
  double s = 0;
  if (type == Type::kRbf) {
    for (int64_t i = 0; i < n; ++i) {
      const double d = a[i] - b[i];
      s += d * d;
    }
    return std::exp(-gamma * s);
  }
  for (int64_t i = 0; i < n; ++i) s += a[i] * b[i];
  switch (type) {
    case Type::kPoly: return std::pow(gamma * s + coef0, double(degree));
    case Type::kSigmoid: return std::tanh(gamma * s + coef0);
    default: return s;
  }
}

}  // namespace onyx::ml
