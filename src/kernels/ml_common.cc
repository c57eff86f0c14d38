#include "kernels/ml_common.h"

#include <algorithm>
#include <cmath>

namespace onyx::ml {

Result<PostTransform> parse_post_transform(const std::string& text, const char* op) {
  if (text == "NONE") return PostTransform::kNone;
  if (text == "SOFTMAX") return PostTransform::kSoftmax;
  if (text == "LOGISTIC") return PostTransform::kLogistic;
  if (text == "SOFTMAX_ZERO") return PostTransform::kSoftmaxZero;
  if (text == "PROBIT") return PostTransform::kProbit;
  return invalid_model(op, ": post_transform must be NONE, SOFTMAX, LOGISTIC, SOFTMAX_ZERO or PROBIT, got '", text, "'");
}

double logistic(double v) {
  const double e = 1.0 / (1.0 + std::exp(-std::fabs(v)));  // never overflows
  return v < 0 ? 1.0 - e : e;
}

double probit(double v) {
  const double x = 2 * v - 1;
  const double sign = x < 0 ? -1.0 : 1.0;
  const double one_minus_sq = (1.0 - x) * (1.0 + x);
  if (one_minus_sq == 0) return sign * INFINITY;
  const double ln = std::log(one_minus_sq);
  const double a = 0.147;
  const double t = 2.0 / (M_PI * a) + 0.5 * ln;
  const double erfinv = sign * std::sqrt(std::sqrt(t * t - ln / a) - t);
  return M_SQRT2 * erfinv;
}

void softmax(double* v, int64_t n) {
  if (n <= 0) return;
  const double top = *std::max_element(v, v + n);
  double sum = 0;
  for (int64_t i = 0; i < n; ++i) sum += (v[i] = std::exp(v[i] - top));
  for (int64_t i = 0; i < n; ++i) v[i] /= sum;
}

void softmax_zero(double* v, int64_t n) {
  if (n <= 0) return;
  const double top = *std::max_element(v, v + n);
  const double scale = std::exp(-top);
  double sum = 0;
  for (int64_t i = 0; i < n; ++i) {
    v[i] = std::fabs(v[i]) > 1e-7 ? std::exp(v[i] - top) : v[i] * scale;
    sum += v[i];
  }
  for (int64_t i = 0; i < n; ++i) v[i] = sum == 0 ? 0.5 : v[i] / sum;
}

void post_transform_row(PostTransform t, double* v, int64_t n) {
  switch (t) {
    case PostTransform::kNone: return;
    case PostTransform::kSoftmax: softmax(v, n); return;
    case PostTransform::kSoftmaxZero: softmax_zero(v, n); return;
    case PostTransform::kLogistic:
      for (int64_t i = 0; i < n; ++i) v[i] = logistic(v[i]);
      return;
    case PostTransform::kProbit:
      for (int64_t i = 0; i < n; ++i) v[i] = probit(v[i]);
      return;
  }
}

Status check_feature_input(const KernelContext& ctx, int input, const char* op) {
  const Tensor& x = ctx.input(input);
  if (!x.defined()) return invalid_argument(op, ": input ", input, " must be a tensor");
  if (x.rank() != 1 && x.rank() != 2) return invalid_argument(op, ": X must be [C] or [N, C], got ", x.describe());
  const DataType t = x.dtype();
  if (t != DataType::kFloat && t != DataType::kDouble && t != DataType::kInt64 && t != DataType::kInt32)
    return not_implemented(op, ": X of type ", data_type_name(t), " (float, double, int64 or int32 only)");
  return Status::Ok();
}

Status read_feature_rows(KernelContext& ctx, int input, const char* op, int64_t* rows, int64_t* cols, Tensor* out) {
  ONYX_RETURN_IF_ERROR(check_feature_input(ctx, input, op));
  const Tensor& x = ctx.input(input);
  *rows = x.rank() == 1 ? 1 : x.dim(0);
  *cols = x.rank() == 1 ? x.dim(0) : x.dim(1);
  ONYX_ASSIGN_OR_RETURN(*out, ctx.allocate_scratch(DataType::kDouble, {x.numel()}));
  double* d = out->data<double>();
  for (int64_t i = 0; i < x.numel(); ++i) d[i] = x.get_double(i);
  return Status::Ok();
}

Result<ClassLabels> ClassLabels::parse(const KernelInfo& info, const char* ints_attr, const char* strings_attr,
                                       const char* op, bool optional) {
  ClassLabels labels;
  labels.ints = info.attr_ints(ints_attr);
  labels.names = info.attr_strings(strings_attr);
  if (!labels.ints.empty() && !labels.names.empty())
    return invalid_model(op, ": only one of ", ints_attr, " and ", strings_attr, " may be set");
  if (labels.ints.empty() && labels.names.empty() && !optional)
    return invalid_model(op, ": one of ", ints_attr, " and ", strings_attr, " must be set");
  labels.strings = !labels.names.empty();
  return labels;
}

Status ClassLabels::write(KernelContext& ctx, int i, const std::vector<int64_t>& chosen) const {
  const int64_t n = int64_t(chosen.size());
  ONYX_ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(i, strings ? DataType::kString : DataType::kInt64, {n}));
  for (int64_t r = 0; r < n; ++r) {
    const int64_t c = chosen[size_t(r)];
    if (strings) y->data<std::string>()[r] = names[size_t(c)];
    else y->data<int64_t>()[r] = ints[size_t(c)];
  }
  return Status::Ok();
}

}  // namespace onyx::ml
