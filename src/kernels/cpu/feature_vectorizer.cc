// ai.onnx.ml FeatureVectorizer: concatenates its inputs' features into Y float
// [N, sum(inputdimensions)]. Input i ([N] = one feature per row, or [N, C_i]) contributes
// inputdimensions[i] columns: its first ones, zero-padded when it has fewer.
#include <algorithm>

#include "kernels/kernel.h"

namespace onyx {
namespace {

class FeatureVectorizerKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    dims_ = info.attr_ints("inputdimensions");
    if (int64_t(dims_.size()) != info.num_inputs())
      return invalid_model("FeatureVectorizer: ", dims_.size(), " inputdimensions for ", info.num_inputs(), " inputs");
    for (int64_t d : dims_) {
      if (d < 0 || d > (int64_t(1) << 40)) return invalid_model("FeatureVectorizer: bad input dimension ", d);
      total_ += d;
    }
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    int64_t n = -1;
    for (int i = 0; i < ctx.num_inputs(); ++i) {
      const Tensor& x = ctx.input(i);
      const DataType t = x.dtype();
      if (t != DataType::kFloat && t != DataType::kDouble && t != DataType::kInt64 && t != DataType::kInt32)
        return not_implemented("FeatureVectorizer: input ", i, " of type ", data_type_name(t));
      if (x.rank() != 1 && x.rank() != 2)
        return invalid_argument("FeatureVectorizer: input ", i, " must be [N] or [N, C], got ", x.describe());
      if (n >= 0 && x.dim(0) != n)
        return invalid_argument("FeatureVectorizer: inputs differ in rows: ", n, " and ", x.describe());
      n = x.dim(0);
    }
    ONYX_ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, DataType::kFloat, {n < 0 ? 0 : n, total_}));
    int64_t column = 0;
    for (int i = 0; i < ctx.num_inputs(); ++i) {
      const Tensor& x = ctx.input(i);
      const int64_t c = x.rank() == 1 ? 1 : x.dim(1);
      const int64_t take = std::min(c, dims_[size_t(i)]);
      for (int64_t r = 0; r < n; ++r)
        for (int64_t k = 0; k < take; ++k) y->data<float>()[r * total_ + column + k] = float(x.get_double(r * c + k));
      column += dims_[size_t(i)];
    }
    return Status::Ok();
  }

 private:
  std::vector<int64_t> dims_;
  int64_t total_ = 0;
};

}  // namespace

ONYX_REGISTER_KERNEL("ai.onnx.ml", "FeatureVectorizer", 1, kLatestOpset, FeatureVectorizerKernel);

}  // namespace onyx
