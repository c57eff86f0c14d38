// ai.onnx.ml TreeEnsembleClassifier (versions 1 and 3, registered for ai.onnx.ml 1..4: version 5
// deprecates it for TreeEnsemble): X [N, F] (or [F]) of float, double, int64 or int32 ->
// Y [N] class labels (int64 or string) and Z [N, E] float scores.
//
// Scores: for each class, the sum over trees of the weights of the leaves reached (class_*),
// plus base_values, then post_transform (NONE, SOFTMAX, LOGISTIC, SOFTMAX_ZERO, PROBIT) over
// the row; Y is the class of the largest score (the first on ties; taken before the transform,
// which keeps the order, except for SOFTMAX_ZERO, taken after).
//
// Binary classification as converters write it: two class labels, and every weight for one
// class id c. The tree sum plus base_values[c] (or base_values[0] when only one is given) is
// the score s of the second class; the first class gets 1 - s under NONE and PROBIT and -s
// under the other transforms, and the transform then applies to both columns (ONNX's
// reference semantics; e.g. LOGISTIC gives [sigmoid(-s), sigmoid(s)]). A single class label is
// not supported (NOT_IMPLEMENTED): its meaning is not specified.
//
// The trees are compiled at prepare (tree_ensemble_common.h); a malformed ensemble is an
// INVALID_MODEL error at session creation.
#include <algorithm>
#include <set>

#include "kernels/kernel.h"
#include "kernels/tree_ensemble_common.h"
#include "kernels/tree_ensemble_legacy.h"

namespace onyx {
namespace {

class TreeEnsembleClassifierKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    const std::string op = "TreeEnsembleClassifier";
    int_labels_ = info.attr_ints("classlabels_int64s");
    string_labels_ = info.attr_strings("classlabels_strings");
    if (int_labels_.empty() == string_labels_.empty())
      return invalid_model(op, ": exactly one of classlabels_int64s and classlabels_strings must be given");
    use_strings_ = !string_labels_.empty();
    const int64_t classes = int64_t(use_strings_ ? string_labels_.size() : int_labels_.size());
    if (classes == 1) return not_implemented(op, " with a single class label is not supported");
    ONYX_ASSIGN_OR_RETURN(transform_, trees::parse_post_transform(info.attr_string("post_transform", "NONE"), op));
    trees::EnsembleSpec spec;
    ONYX_RETURN_IF_ERROR(trees::read_legacy_ensemble(info, op, "class", &spec));
    ONYX_ASSIGN_OR_RETURN(std::vector<double> base, trees::read_doubles(info, "base_values", op));
    std::set<int64_t> ids;
    for (const auto& c : spec.contributions) {
      if (c.target < 0 || c.target >= classes)
        return invalid_model(op, ": class id ", c.target, " is outside [0, ", classes, ")");
      ids.insert(c.target);
    }
    if (!base.empty() && int64_t(base.size()) != classes && base.size() != 1)
      return invalid_model(op, ": ", base.size(), " base values for ", classes, " classes");
    classes_ = classes;
    binary_ = classes == 2 && ids.size() == 1;
    if (binary_) {
      const int64_t c = *ids.begin();
      for (auto& contribution : spec.contributions) contribution.target = 0;
      spec.n_targets = 1;
      if (!base.empty()) spec.base_values = {base.size() == 1 ? base[0] : base[size_t(c)]};
    } else {
      spec.n_targets = classes;
      if (base.size() == 1) base.assign(size_t(classes), base[0]);
      spec.base_values = base;
    }
    spec.aggregate = trees::Aggregate::kSum;
    ONYX_ASSIGN_OR_RETURN(float_trees_, trees::compile_ensemble<float>(spec, op));
    ONYX_ASSIGN_OR_RETURN(double_trees_, trees::compile_ensemble<double>(spec, op));
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const std::string op = "TreeEnsembleClassifier";
    const Tensor& x = ctx.input(0);
    if (x.dtype() != DataType::kFloat && x.dtype() != DataType::kDouble && x.dtype() != DataType::kInt64 &&
        x.dtype() != DataType::kInt32)
      return not_implemented(op, " takes X of float, double, int64 or int32, not ", data_type_name(x.dtype()));
    int64_t rows = 0, features = 0;
    ONYX_RETURN_IF_ERROR(trees::batch_shape(x, op, &rows, &features));
    const int64_t nt = binary_ ? 1 : classes_;
    ONYX_ASSIGN_OR_RETURN(Tensor scores_t, ctx.allocate_scratch(DataType::kDouble, Shape{rows, nt}));
    double* scores = scores_t.data<double>();
    auto scratch = [&](DataType t, const Shape& s) { return ctx.allocate_scratch(t, s); };
    if (x.dtype() == DataType::kDouble) {
      ONYX_RETURN_IF_ERROR(trees::evaluate_ensemble(double_trees_, x, rows, features, scores, scratch, op));
    } else {
      ONYX_RETURN_IF_ERROR(trees::evaluate_ensemble(float_trees_, x, rows, features, scores, scratch, op));
    }
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output(0, use_strings_ ? DataType::kString : DataType::kInt64, Shape{rows}));
    ONYX_ASSIGN_OR_RETURN(Tensor* z, ctx.allocate_output_uninitialized(1, DataType::kFloat, Shape{rows, classes_}));
    float* zp = z->data<float>();
    std::vector<double> row(static_cast<size_t>(classes_));
    for (int64_t r = 0; r < rows; ++r) {
      if (binary_) {
        const double s = scores[r];
        const bool one_minus = transform_ == trees::PostTransform::kNone || transform_ == trees::PostTransform::kProbit;
        row[0] = one_minus ? 1.0 - s : -s;
        row[1] = s;
      } else {
        std::copy(scores + r * classes_, scores + (r + 1) * classes_, row.begin());
      }
      int64_t best = 0;
      auto argmax = [&] {
        best = 0;
        for (int64_t k = 1; k < classes_; ++k)
          if (row[size_t(k)] > row[size_t(best)]) best = k;
      };
      if (transform_ != trees::PostTransform::kSoftmaxZero) argmax();
      trees::post_transform_row(transform_, row.data(), classes_);
      if (transform_ == trees::PostTransform::kSoftmaxZero) argmax();
      for (int64_t k = 0; k < classes_; ++k) zp[r * classes_ + k] = float(row[size_t(k)]);
      if (use_strings_) y->data<std::string>()[r] = string_labels_[size_t(best)];
      else y->data<int64_t>()[r] = int_labels_[size_t(best)];
    }
    return Status::Ok();
  }

 private:
  std::vector<int64_t> int_labels_;
  std::vector<std::string> string_labels_;
  bool use_strings_ = false;
  bool binary_ = false;
  int64_t classes_ = 0;
  trees::PostTransform transform_ = trees::PostTransform::kNone;
  trees::CompiledEnsemble<float> float_trees_;
  trees::CompiledEnsemble<double> double_trees_;
};

}  // namespace

ONYX_REGISTER_KERNEL("ai.onnx.ml", "TreeEnsembleClassifier", 1, 4, TreeEnsembleClassifierKernel);

}  // namespace onyx
