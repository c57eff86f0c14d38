// ai.onnx.ml Normalizer: each row of X ([C] or [N, C]) divided by its MAX (largest |x|), L1
// (sum of |x|) or L2 (root of the sum of squares) norm; a zero row stays zero. Y is float.
// Norms are summed in double over the row read as float32.
#include <algorithm>
#include <cmath>

#include "kernels/kernel.h"
#include "core/parallel.h"
#include "kernels/ml_common.h"
#include "kernels/ml_products.h"

namespace onyx {
namespace {

class NormalizerKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    const std::string norm = info.attr_string("norm", "MAX");
    if (norm == "MAX") norm_ = Norm::kMax;
    else if (norm == "L1") norm_ = Norm::kL1;
    else if (norm == "L2") norm_ = Norm::kL2;
    else return invalid_model("Normalizer: norm must be MAX, L1 or L2, got '", norm, "'");
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    ONYX_ASSIGN_OR_RETURN(ml::FloatRows x, ml::read_float_rows(ctx, 0, "Normalizer"));
    const int64_t c = x.cols;
    ONYX_ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output_uninitialized(0, DataType::kFloat, ctx.input(0).shape()));
    float* out = y->data<float>();
    parallel_for(x.rows, std::max<int64_t>(1, 8192 / std::max<int64_t>(c, 1)), [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        const float* row = x.data + r * c;
        double norm = 0;
        for (int64_t k = 0; k < c; ++k) {
          const double a = std::fabs(double(row[k]));
          if (norm_ == Norm::kMax) norm = std::max(norm, a);
          else if (norm_ == Norm::kL1) norm += a;
          else norm += a * a;
        }
        if (norm_ == Norm::kL2) norm = std::sqrt(norm);
        for (int64_t k = 0; k < c; ++k) out[r * c + k] = norm == 0 ? row[k] : float(row[k] / norm);
      }
    });
    return Status::Ok();
  }

 private:
  enum class Norm { kMax, kL1, kL2 } norm_ = Norm::kMax;
};

}  // namespace

ONYX_REGISTER_KERNEL("ai.onnx.ml", "Normalizer", 1, kLatestOpset, NormalizerKernel);

}  // namespace onyx
