// ai.onnx.ml LinearClassifier: scores Z = X . coefficients^T + intercepts for E score rows
// (coefficients is [E, C] row-major), post-transformed per row; label Y = the class of the
// highest score (the first on ties). Binary form (E = 1 with exactly two labels): the score s
// of the second class, written as [1 - s, s] (NONE) or [1 - p, p], p = logistic(s)
// (LOGISTIC), label the second class when s > 0, as ONNX Runtime does; SOFTMAX, SOFTMAX_ZERO
// and PROBIT have no agreed binary form and are refused. multi_class is ignored (the spec's
// reference does too). The scores are float32 products (kernels/ml_products.h), as ONNX
// Runtime computes them; SOFTMAX in float32 too, the other post-transforms in double.
#include <algorithm>

#include "core/parallel.h"
#include "kernels/kernel.h"
#include "kernels/ml_common.h"
#include "kernels/ml_products.h"
#include "kernels/vector_math.h"

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
    return products_.init(coefficients_, rows_, int64_t(coefficients_.size()) / rows_, intercepts_);
  }

  Status compute(KernelContext& ctx) const override {
    ONYX_ASSIGN_OR_RETURN(ml::FloatRows x, ml::read_float_rows(ctx, 0, "LinearClassifier"));
    const int64_t n = x.rows, c = x.cols;
    if (c != products_.features())
      return invalid_argument("LinearClassifier: X has ", c, " features, the model ", products_.features());
    const int64_t width = binary_ ? 2 : rows_;
    ONYX_ASSIGN_OR_RETURN(Tensor * z, ctx.allocate_output_uninitialized(1, DataType::kFloat, {n, width}));
    float* out = z->data<float>();
    Tensor binary_scores;
    if (binary_) {
      ONYX_ASSIGN_OR_RETURN(binary_scores, ctx.allocate_scratch(DataType::kFloat, {n}));
    }
    ONYX_RETURN_IF_ERROR(products_.run(x.data, n, binary_ ? binary_scores.data<float>() : out));
    std::vector<int64_t> chosen(static_cast<size_t>(n));
    const bool softmax = !binary_ && transform_ == ml::PostTransform::kSoftmax;
    if (softmax) softmax_rows(out, n, width);
    parallel_for(n, 256, [&](int64_t begin, int64_t end) {
      std::vector<double> scores(static_cast<size_t>(width));
      for (int64_t r = begin; r < end; ++r) {
        float* row = out + r * width;
        if (binary_) {
          const double s = binary_scores.data<float>()[r];
          const double p = transform_ == ml::PostTransform::kLogistic ? ml::logistic(s) : s;
          row[0] = float(1 - p);
          row[1] = float(p);
          chosen[size_t(r)] = s > 0 ? 1 : 0;
          continue;
        }
        if (!softmax && transform_ != ml::PostTransform::kNone) {
          for (int64_t e = 0; e < width; ++e) scores[size_t(e)] = row[e];
          ml::post_transform_row(transform_, scores.data(), width);
          for (int64_t e = 0; e < width; ++e) row[e] = float(scores[size_t(e)]);
        }
        int64_t best = 0;
        for (int64_t e = 1; e < width; ++e)
          if (row[e] > row[best]) best = e;
        chosen[size_t(r)] = best;
      }
    });
    return labels_.write(ctx, 0, chosen);
  }

 private:
  // Softmax of each of n rows of `width` scores in place, float32: one vectorised exp over
  // the whole block between the max and the sum passes.
  static void softmax_rows(float* z, int64_t n, int64_t width) {
    parallel_for(n, std::max<int64_t>(1, 4096 / width), [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        float* row = z + r * width;
        float top = row[0];
        for (int64_t e = 1; e < width; ++e) top = row[e] > top ? row[e] : top;
        for (int64_t e = 0; e < width; ++e) row[e] -= top;
      }
      vec::exp(z + begin * width, z + begin * width, (end - begin) * width);
      for (int64_t r = begin; r < end; ++r) {
        float* row = z + r * width;
        float sum = 0.0f;
        for (int64_t e = 0; e < width; ++e) sum += row[e];
        for (int64_t e = 0; e < width; ++e) row[e] /= sum;
      }
    });
  }

  ml::ClassLabels labels_;
  ml::PostTransform transform_ = ml::PostTransform::kNone;
  std::vector<float> coefficients_, intercepts_;
  int64_t rows_ = 0;
  bool binary_ = false;
  ml::RowProducts products_;
};

}  // namespace

ONYX_REGISTER_KERNEL("ai.onnx.ml", "LinearClassifier", 1, kLatestOpset, LinearClassifierKernel);

}  // namespace onyx
