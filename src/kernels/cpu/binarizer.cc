// ai.onnx.ml Binarizer: Y = 1 where X > threshold, else 0, in X's type (NaN stays NaN).
#include <cmath>

#include "kernels/dispatch.h"
#include "kernels/kernel.h"

namespace onyx {
namespace {

class BinarizerKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    threshold_ = info.attr_float("threshold", 0.f);
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    ONYX_ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output_uninitialized(0, x.dtype(), x.shape()));
    return dispatch<float, double, int64_t, int32_t>(x.dtype(), [&]<typename T>() -> Status {
      const T* in = x.data<T>();
      T* out = y->data<T>();
      for (int64_t i = 0; i < x.numel(); ++i) {
        if constexpr (std::is_floating_point_v<T>) {
          if (std::isnan(in[i])) { out[i] = in[i]; continue; }
        }
        out[i] = double(in[i]) > double(threshold_) ? T(1) : T(0);
      }
      return Status::Ok();
    });
  }

 private:
  float threshold_ = 0;
};

}  // namespace

ONYX_REGISTER_KERNEL("ai.onnx.ml", "Binarizer", 1, kLatestOpset, BinarizerKernel);

}  // namespace onyx
