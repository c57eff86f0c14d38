// ai.onnx.ml LinearClassifier: scores Z = X . coefficients^T + intercepts for E score rows
// (coefficients is [E, C] row-major), post-transformed per row; label Y = the class of the
// highest score (the first on ties). Binary form (E = 1 with exactly two labels): the score s
// of the second class, written as [1 - s, s] (NONE) or [1 - p, p], p = logistic(s)
// (LOGISTIC), label the second class when s > 0, as ONNX Runtime does; SOFTMAX, SOFTMAX_ZERO
// and PROBIT have no agreed binary form and are refused. multi_class is ignored (the spec's
// reference does too).
#include "kernels/kernel.h"
#include "kernels/ml_common.h"

namespace onyx {
namespace {

class LinearClassifierKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    ONYX_ASSIGN_OR_RETURN(labels_, ml::ClassLabels::parse(info, "classlabels_ints", "classlabels_strings", "LinearClassifier"));
    ONYX_ASSIGN_OR_RETURN(transform_, ml::parse_post_transform(info.attr_string("post_transform", "NONE"), "LinearClassifier"));
    coefficients_ = info.attr_floats("coefficients");
    intercepts_ = info.attr_floats("intercepts");
    if (coefficients_.empty()) return invalid_model("LinearClassifier needs coefficients");
    rows_ = intercepts_.empty() ? labels_.size() : int64_t(intercepts_.size());
    if (rows_ == 0 || int64_t(coefficients_.size()) % rows_ != 0)
      return invalid_model("LinearClassifier: ", coefficients_.size(), " coefficients do not make ", rows_,
                           " rows (one per intercept)");
    binary_ = rows_ == 1;
    if (binary_ && labels_.size() != 2)
      return invalid_model("LinearClassifier: one row of coefficients needs exactly 2 class labels, got ", labels_.size());
    if (!binary_ && rows_ != labels_.size())
      return invalid_model("LinearClassifier: ", rows_, " rows of coefficients for ", labels_.size(), " class labels");
    if (binary_ && transform_ != ml::PostTransform::kNone && transform_ != ml::PostTransform::kLogistic)
      return not_implemented("LinearClassifier: binary form (one coefficient row) with post_transform ",
                             info.attr_string("post_transform", ""), " (only NONE and LOGISTIC)");
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    int64_t n = 0, c = 0;
    Tensor x;
    ONYX_RETURN_IF_ERROR(ml::read_feature_rows(ctx, 0, "LinearClassifier", &n, &c, &x));
    if (c * rows_ != int64_t(coefficients_.size()))
      return invalid_argument("LinearClassifier: X has ", c, " features, the model ", coefficients_.size() / size_t(rows_));
    const int64_t width = binary_ ? 2 : rows_;
    ONYX_ASSIGN_OR_RETURN(Tensor * z, ctx.allocate_output(1, DataType::kFloat, {n, width}));
    std::vector<double> scores(static_cast<size_t>(width));
    std::vector<int64_t> chosen(static_cast<size_t>(n));
    const double* xd = x.data<double>();
    for (int64_t r = 0; r < n; ++r) {
      for (int64_t e = 0; e < rows_; ++e) {
        double s = intercepts_.empty() ? 0.0 : intercepts_[size_t(e)];
        for (int64_t k = 0; k < c; ++k) s += xd[r * c + k] * coefficients_[size_t(e * c + k)];
        scores[size_t(e)] = s;
      }
      if (binary_) {
        const double s = scores[0];
        const double p = transform_ == ml::PostTransform::kLogistic ? ml::logistic(s) : s;
        scores[0] = 1 - p;
        scores[1] = p;
        chosen[size_t(r)] = s > 0 ? 1 : 0;
      } else {
        ml::post_transform_row(transform_, scores.data(), width);
        int64_t best = 0;
        for (int64_t e = 1; e < width; ++e)
          if (scores[size_t(e)] > scores[size_t(best)]) best = e;
        chosen[size_t(r)] = best;
      }
      for (int64_t e = 0; e < width; ++e) z->data<float>()[r * width + e] = float(scores[size_t(e)]);
    }
    return labels_.write(ctx, 0, chosen);
  }

 private:
  ml::ClassLabels labels_;
  ml::PostTransform transform_ = ml::PostTransform::kNone;
  std::vector<float> coefficients_, intercepts_;
  int64_t rows_ = 0;
  bool binary_ = false;
};

}  // namespace

ONYX_REGISTER_KERNEL("ai.onnx.ml", "LinearClassifier", 1, kLatestOpset, LinearClassifierKernel);

}  // namespace onyx
