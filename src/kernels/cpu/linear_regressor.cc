// ai.onnx.ml LinearRegressor: Y [N, targets] float = X . coefficients^T + intercepts
// (coefficients [targets, C] row-major; intercepts empty or one per target), each row then
// post-transformed. The products are float32 (kernels/ml_products.h), as ONNX Runtime computes
// them; the post-transforms run in double.
#include "core/parallel.h"
#include "kernels/kernel.h"
#include "kernels/ml_common.h"
#include "kernels/ml_products.h"

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
    return products_.init(coefficients_, targets_, int64_t(coefficients_.size()) / targets_, intercepts_);
  }

  Status compute(KernelContext& ctx) const override {
    ONYX_ASSIGN_OR_RETURN(ml::FloatRows x, ml::read_float_rows(ctx, 0, "LinearRegressor"));
    const int64_t n = x.rows;
    if (x.cols != products_.features())
      return invalid_argument("LinearRegressor: X has ", x.cols, " features, the model ", products_.features());
    ONYX_ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output_uninitialized(0, DataType::kFloat, {n, targets_}));
    float* out = y->data<float>();
    ONYX_RETURN_IF_ERROR(products_.run(x.data, n, out));
    if (transform_ == ml::PostTransform::kNone) return Status::Ok();
    parallel_for(n, 256, [&](int64_t begin, int64_t end) {
      std::vector<double> row(static_cast<size_t>(targets_));
      for (int64_t r = begin; r < end; ++r) {
        for (int64_t t = 0; t < targets_; ++t) row[size_t(t)] = out[r * targets_ + t];
        ml::post_transform_row(transform_, row.data(), targets_);
        for (int64_t t = 0; t < targets_; ++t) out[r * targets_ + t] = float(row[size_t(t)]);
      }
    });
    return Status::Ok();
  }

 private:
  ml::PostTransform transform_ = ml::PostTransform::kNone;
  std::vector<float> coefficients_, intercepts_;
  int64_t targets_ = 1;
  ml::RowProducts products_;
};

}  // namespace

ONYX_REGISTER_KERNEL("ai.onnx.ml", "LinearRegressor", 1, kLatestOpset, LinearRegressorKernel);

}  // namespace onyx
