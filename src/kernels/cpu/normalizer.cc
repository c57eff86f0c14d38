// ai.onnx.ml Normalizer: each row of X ([C] or [N, C]) divided by its MAX (largest |x|), L1
// (sum of |x|) or L2 (root of the sum of squares) norm; a zero row stays zero. Y is float.
#include <algorithm>
#include <cmath>

#include "kernels/kernel.h"
#include "kernels/ml_common.h"

namespace onyx {
namespace {

class NormalizerKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    norm_ = info.attr_string("norm", "MAX");
    if (norm_ != "MAX" && norm_ != "L1" && norm_ != "L2")
      return invalid_model("Normalizer: norm must be MAX, L1 or L2, got '", norm_, "'");
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    int64_t n = 0, c = 0;
    Tensor x;
    ONYX_RETURN_IF_ERROR(ml::read_feature_rows(ctx, 0, "Normalizer", &n, &c, &x));
    ONYX_ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output_uninitialized(0, DataType::kFloat, ctx.input(0).shape()));
    const double* xd = x.data<double>();
    for (int64_t r = 0; r < n; ++r) {
      const double* row = xd + r * c;
      double norm = 0;
      for (int64_t k = 0; k < c; ++k) {
        const double a = std::fabs(row[k]);
        if (norm_ == "MAX") norm = std::max(norm, a);
        else if (norm_ == "L1") norm += a;
        else norm += a * a;
      }
      if (norm_ == "L2") norm = std::sqrt(norm);
      for (int64_t k = 0; k < c; ++k) y->data<float>()[r * c + k] = float(norm == 0 ? row[k] : row[k] / norm);
    }
    return Status::Ok();
  }

 private:
  std::string norm_;
};

}  // namespace

ONYX_REGISTER_KERNEL("ai.onnx.ml", "Normalizer", 1, kLatestOpset, NormalizerKernel);

}  // namespace onyx
