// ai.onnx.ml SVMRegressor: Y float [N, 1]. With n_supports > 0 the score of a row x is
// sum_j coefficients[j] K(x, support_vector_j) + rho[0] (K by kernel_type / kernel_params);
// with n_supports = 0 it is the linear x . coefficients + rho[0]. one_class = 1 turns the
// score into +1 (> 0) or -1. post_transform LOGISTIC and PROBIT apply to the score; SOFTMAX
// and SOFTMAX_ZERO of one score are refused. Kernel values and sums are float32
// (kernels/ml_products.h), as ONNX Runtime computes them, in blocks of rows.
#include <algorithm>

#include "kernels/kernel.h"
#include "kernels/ml_common.h"
#include "kernels/ml_products.h"
#include "kernels/svm_common.h"

namespace onyx {
namespace {

class SvmRegressorKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    ONYX_ASSIGN_OR_RETURN(transform_, ml::parse_post_transform(info.attr_string("post_transform", "NONE"), "SVMRegressor"));
    if (transform_ == ml::PostTransform::kSoftmax || transform_ == ml::PostTransform::kSoftmaxZero)
      return not_implemented("SVMRegressor: post_transform ", info.attr_string("post_transform", ""), " of a single score");
    ONYX_ASSIGN_OR_RETURN(kernel_, ml::SvmKernel::parse(info.attr_string("kernel_type", "LINEAR"),
                                                        info.attr_floats("kernel_params"), "SVMRegressor"));
    coefficients_ = info.attr_floats("coefficients");
    support_vectors_ = info.attr_floats("support_vectors");
    rho_ = info.attr_floats("rho");
    supports_ = info.attr_int("n_supports", 0);
    one_class_ = info.attr_int("one_class", 0) != 0;
    if (rho_.size() != 1) return invalid_model("SVMRegressor: rho must hold one value, got ", rho_.size());
    if (supports_ < 0) return invalid_model("SVMRegressor: n_supports must be >= 0, got ", supports_);
    if (supports_ > 0) {
      if (int64_t(coefficients_.size()) != supports_)
        return invalid_model("SVMRegressor: ", coefficients_.size(), " coefficients for ", supports_, " support vectors");
      if (support_vectors_.empty() || int64_t(support_vectors_.size()) % supports_ != 0)
        return invalid_model("SVMRegressor: ", support_vectors_.size(), " support_vectors values do not make ", supports_,
                             " vectors");
      features_ = int64_t(support_vectors_.size()) / supports_;
      ONYX_RETURN_IF_ERROR(kernel_matrix_.init(kernel_, support_vectors_, supports_, features_));
      return sums_.init(coefficients_, 1, supports_, rho_);
    }
    if (coefficients_.empty()) return invalid_model("SVMRegressor needs coefficients");
    features_ = int64_t(coefficients_.size());
    return sums_.init(coefficients_, 1, features_, rho_);
  }

  Status compute(KernelContext& ctx) const override {
    ONYX_ASSIGN_OR_RETURN(ml::FloatRows x, ml::read_float_rows(ctx, 0, "SVMRegressor"));
    const int64_t n = x.rows, c = x.cols;
    if (c != features_) return invalid_argument("SVMRegressor: X has ", c, " features, the model ", features_);
    ONYX_ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output_uninitialized(0, DataType::kFloat, {n, 1}));
    float* out = y->data<float>();
    if (supports_ == 0) {
      ONYX_RETURN_IF_ERROR(sums_.run(x.data, n, out));
    } else {
      const int64_t block = std::min(n, ml::rows_per_block(supports_));
      ONYX_ASSIGN_OR_RETURN(Tensor k, ctx.allocate_scratch(DataType::kFloat, {std::max<int64_t>(block, 1), supports_}));
      for (int64_t r0 = 0; r0 < n; r0 += block) {
        const int64_t rows = std::min(block, n - r0);
        ONYX_RETURN_IF_ERROR(kernel_matrix_.run(x.data + r0 * c, rows, k.data<float>()));
        ONYX_RETURN_IF_ERROR(sums_.run(k.data<float>(), rows, out + r0));
      }
    }
    for (int64_t r = 0; r < n; ++r) {
      double s = out[r];
      if (one_class_) s = s > 0 ? 1 : -1;
      ml::post_transform_row(transform_, &s, 1);
      out[r] = float(s);
    }
    return Status::Ok();
  }

 private:
  ml::PostTransform transform_ = ml::PostTransform::kNone;
  ml::SvmKernel kernel_;
  std::vector<float> coefficients_, support_vectors_, rho_;
  int64_t supports_ = 0, features_ = 0;
  bool one_class_ = false;
  ml::SvmKernelMatrix kernel_matrix_;  // K(x, support vector j), when supports_ > 0
  ml::RowProducts sums_;               // rho + coefficients . (K row, or x in the linear form)
};

}  // namespace

ONYX_REGISTER_KERNEL("ai.onnx.ml", "SVMRegressor", 1, kLatestOpset, SvmRegressorKernel);

}  // namespace onyx
