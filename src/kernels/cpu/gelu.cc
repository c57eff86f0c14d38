// Gelu: Y = X * Phi(X), elementwise; float32, float16, double.
//   ai.onnx Gelu (opset 20): attribute approximate = "none" (erf form) or "tanh".
//   com.microsoft Gelu (contrib op, since 1): the erf form; the graph optimiser emits it for
//   the exported pattern x * 0.5 * (1 + Erf(x / sqrt(2))).
// Formulas and accuracy: kernels/gelu_common.h.
#include "kernels/gelu_common.h"

namespace onyx {
namespace {

class GeluKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    const std::string approximate = info.attr_string("approximate", "none");
    if (approximate == "tanh") kind_ = GeluKind::kTanh;
    else if (approximate != "none") return invalid_model("Gelu: approximate must be \"none\" or \"tanh\", got \"", approximate, "\"");
    return Status::Ok();
  }
  Status compute(KernelContext& ctx) const override { return gelu_compute(ctx, kind_, ctx.input(0), nullptr); }

 private:
  GeluKind kind_ = GeluKind::kErf;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "Gelu", 20, kLatestOpset, GeluKernel);
ONYX_REGISTER_KERNEL("com.microsoft", "Gelu", 1, kLatestOpset, GeluKernel);

}  // namespace onyx
