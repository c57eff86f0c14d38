// ai.onnx.ml LinearRegressor: Y [N, targets] float = X . coefficients^T + intercepts
// (coefficients [targets, C] row-major; intercepts empty or one per target), each row then
// post-transformed.
#include "kernels/kernel.h"
#include "kernels/ml_common.h"

namespace onyx {
namespace {

class LinearRegressorKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    ONYX_ASSIGN_OR_RETURN(transform_, ml::parse_post_transform(info.attr_string("post_transform", "NONE"), "LinearRegressor"));
    coefficients_ = info.attr_floats("coefficients");
    intercepts_ = info.attr_floats("intercepts");
    targets_ = info.attr_int("targets", 1);
    if (targets_ < 1) return invalid_model("LinearRegressor: targets must be positive, got ", targets_);
    if (coefficients_.empty() || int64_t(coefficients_.size()) % targets_ != 0)
      return invalid_model("LinearRegressor: ", coefficients_.size(), " coefficients do not make ", targets_, " rows");
    if (!intercepts_.empty() && int64_t(intercepts_.size()) != targets_)
      return invalid_model("LinearRegressor: ", intercepts_.size(), " intercepts for ", targets_, " targets");
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    int64_t n = 0, c = 0;
    Tensor x;
    ONYX_RETURN_IF_ERROR(ml::read_feature_rows(ctx, 0, "LinearRegressor", &n, &c, &x));
    if (c * targets_ != int64_t(coefficients_.size()))
      return invalid_argument("LinearRegressor: X has ", c, " features, the model ", coefficients_.size() / size_t(targets_));
    ONYX_ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, DataType::kFloat, {n, targets_}));
    std::vector<double> row(static_cast<size_t>(targets_));
    const double* xd = x.data<double>();
    for (int64_t r = 0; r < n; ++r) {
      for (int64_t t = 0; t < targets_; ++t) {
        double s = intercepts_.empty() ? 0.0 : intercepts_[size_t(t)];
        for (int64_t k = 0; k < c; ++k) s += xd[r * c + k] * coefficients_[size_t(t * c + k)];
        row[size_t(t)] = s;
      }
      ml::post_transform_row(transform_, row.data(), targets_);
      for (int64_t t = 0; t < targets_; ++t) y->data<float>()[r * targets_ + t] = float(row[size_t(t)]);
    }
    return Status::Ok();
  }

 private:
  ml::PostTransform transform_ = ml::PostTransform::kNone;
  std::vector<float> coefficients_, intercepts_;
  int64_t targets_ = 1;
};

}  // namespace

ONYX_REGISTER_KERNEL("ai.onnx.ml", "LinearRegressor", 1, kLatestOpset, LinearRegressorKernel);

}  // namespace onyx
