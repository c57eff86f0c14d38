#include "kernels/loss_common.h"

namespace onyx {

Result<LossAttrs> parse_loss_attrs(const KernelInfo& info) {
  LossAttrs a;
  const std::string r = info.attr_string("reduction", "mean");
  if (r == "none") a.reduction = LossReduction::kNone;
  else if (r == "sum") a.reduction = LossReduction::kSum;
  else if (r == "mean") a.reduction = LossReduction::kMean;
  else return invalid_model("reduction must be 'none', 'sum' or 'mean', got '", r, "'");
  if (info.has_attr("ignore_index")) a.ignore_index = info.attr_int("ignore_index", 0);
  return a;
}

Result<LossDims> loss_dims(const Tensor& input, const Tensor& target, const Tensor& weight) {
  if (!input.defined() || !target.defined()) return invalid_argument("the input and target tensors are required");
  if (input.rank() < 2) return invalid_argument("input must have shape (N, C, d1, ..., dk), got ", input.describe());
  if (target.dtype() != DataType::kInt32 && target.dtype() != DataType::kInt64)
    return invalid_argument("target must be int32 or int64, got ", target.describe());
  bool ok = target.rank() == input.rank() - 1 && target.dim(0) == input.dim(0);
  LossDims dims{input.dim(0), input.dim(1), 1};
  for (int64_t k = 2; ok && k < input.rank(); ++k) {
    ok = target.dim(k - 1) == input.dim(k);
    dims.d *= input.dim(k);
  }
  if (!ok) return invalid_argument("target ", target.describe(), " does not match input ", input.describe());
  if (weight.defined() && (weight.dtype() != input.dtype() || weight.rank() != 1 || weight.dim(0) != dims.c))
    return invalid_argument("weight must be a 1-D ", data_type_name(input.dtype()), " tensor of size C = ", dims.c,
                            ", got ", weight.describe());
  return dims;
}

}  // namespace onyx
