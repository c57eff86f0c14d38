// ai.onnx.ml TreeEnsembleRegressor (versions 1 and 3, registered for ai.onnx.ml 1..4: version 5
// deprecates it for TreeEnsemble): X [N, F] (or [F]) of float, double, int64 or int32 ->
// Y [N, n_targets] float.
//
// Y[r, t] = aggregate_function (SUM, AVERAGE over the trees, MIN, MAX) of the target_* weights
// for target t of the leaves row r reaches, plus base_values[t], then post_transform over the
// row (SOFTMAX and SOFTMAX_ZERO across the targets, LOGISTIC and PROBIT per value). A target no
// reached leaf has a weight for is 0 before base_values under MIN and MAX (ONNX Runtime's
// choice; the spec does not say).
//
// The trees are compiled at prepare (tree_ensemble_common.h); a malformed ensemble is an
// INVALID_MODEL error at session creation.
#include "kernels/kernel.h"
#include "kernels/tree_ensemble_common.h"
#include "kernels/tree_ensemble_legacy.h"

namespace onyx {
namespace {

class TreeEnsembleRegressorKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    const std::string op = "TreeEnsembleRegressor";
    ONYX_ASSIGN_OR_RETURN(transform_, trees::parse_post_transform(info.attr_string("post_transform", "NONE"), op));
    trees::EnsembleSpec spec;
    ONYX_ASSIGN_OR_RETURN(spec.aggregate, trees::parse_aggregate(info.attr_string("aggregate_function", "SUM"), op));
    ONYX_RETURN_IF_ERROR(trees::read_legacy_ensemble(info, op, "target", &spec));
    spec.n_targets = info.attr_int("n_targets", 1);
    ONYX_ASSIGN_OR_RETURN(spec.base_values, trees::read_doubles(info, "base_values", op));
    targets_ = spec.n_targets;
    ONYX_ASSIGN_OR_RETURN(float_trees_, trees::compile_ensemble<float>(spec, op));
    ONYX_ASSIGN_OR_RETURN(double_trees_, trees::compile_ensemble<double>(spec, op));
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const std::string op = "TreeEnsembleRegressor";
    const Tensor& x = ctx.input(0);
    if (x.dtype() != DataType::kFloat && x.dtype() != DataType::kDouble && x.dtype() != DataType::kInt64 &&
        x.dtype() != DataType::kInt32)
      return not_implemented(op, " takes X of float, double, int64 or int32, not ", data_type_name(x.dtype()));
    int64_t rows = 0, features = 0;
    ONYX_RETURN_IF_ERROR(trees::batch_shape(x, op, &rows, &features));
    ONYX_ASSIGN_OR_RETURN(Tensor scores_t, ctx.allocate_scratch(DataType::kDouble, Shape{rows, targets_}));
    double* scores = scores_t.data<double>();
    auto scratch = [&](DataType t, const Shape& s) { return ctx.allocate_scratch(t, s); };
    if (x.dtype() == DataType::kDouble) {
      ONYX_RETURN_IF_ERROR(trees::evaluate_ensemble(double_trees_, x, rows, features, scores, scratch, op));
    } else {
      ONYX_RETURN_IF_ERROR(trees::evaluate_ensemble(float_trees_, x, rows, features, scores, scratch, op));
    }
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output_uninitialized(0, DataType::kFloat, Shape{rows, targets_}));
    float* yp = y->data<float>();
    for (int64_t r = 0; r < rows; ++r) {
      double* row = scores + r * targets_;
      trees::post_transform_row(transform_, row, targets_);
      for (int64_t t = 0; t < targets_; ++t) yp[r * targets_ + t] = float(row[t]);
    }
    return Status::Ok();
  }

 private:
  int64_t targets_ = 1;
  trees::PostTransform transform_ = trees::PostTransform::kNone;
  trees::CompiledEnsemble<float> float_trees_;
  trees::CompiledEnsemble<double> double_trees_;
};

}  // namespace

ONYX_REGISTER_KERNEL("ai.onnx.ml", "TreeEnsembleRegressor", 1, 4, TreeEnsembleRegressorKernel);

}  // namespace onyx
