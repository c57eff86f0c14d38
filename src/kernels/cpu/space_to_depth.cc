// SpaceToDepth: [N, C, H, W] -> [N, C*b*b, H/b, W/b], moving each spatial b x b block into
// channels ordered (bh, bw, c).
#include "kernels/element_copy.h"
#include "kernels/kernel.h"

namespace onyx {
namespace {

class SpaceToDepthKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    blocksize_ = info.attr_int("blocksize", 0);
    if (blocksize_ <= 0) return invalid_model("SpaceToDepth: blocksize must be positive");
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const int64_t b = blocksize_;
    if (x.rank() != 4 || x.dim(2) % b != 0 || x.dim(3) % b != 0)
      return invalid_argument("SpaceToDepth: input ", x.describe(), " must be [N, C, H, W] with H and W divisible by ",
                              b);
    const int64_t n = x.dim(0), c = x.dim(1), h = x.dim(2), w = x.dim(3);
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output(0, x.dtype(), {n, c * b * b, h / b, w / b}));
    // The output read as [N, bh, bw, C, H/b, W/b], with the input stride of each.
    const std::vector<int64_t> strides = {c * h * w, w, 1, h * w, b * w, b};
    return strided_copy(x, 0, strides, {n, b, b, c, h / b, w / b}, *y);
  }

 private:
  int64_t blocksize_ = 0;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "SpaceToDepth", 1, kLatestOpset, SpaceToDepthKernel);

}  // namespace onyx
