// DepthToSpace: [N, C, H, W] -> [N, C/(b*b), H*b, W*b], moving channel blocks into spatial
// b x b blocks. DCR mode reads channels as (bh, bw, c), CRD mode as (c, bh, bw).
#include "kernels/element_copy.h"
#include "kernels/kernel.h"

namespace onyx {
namespace {

class DepthToSpaceKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    blocksize_ = info.attr_int("blocksize", 0);
    if (blocksize_ <= 0) return invalid_model("DepthToSpace: blocksize must be positive");
    const std::string mode = info.attr_string("mode", "DCR");
    if (mode != "DCR" && mode != "CRD") return invalid_model("DepthToSpace: unknown mode '", mode, "'");
    crd_ = mode == "CRD";
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const int64_t b = blocksize_;
    if (x.rank() != 4 || b > x.dim(1) || x.dim(1) % (b * b) != 0)
      return invalid_argument("DepthToSpace: input ", x.describe(), " must be [N, C, H, W] with C divisible by ", b,
                              " squared");
    const int64_t n = x.dim(0), c = x.dim(1) / (b * b), h = x.dim(2), w = x.dim(3);
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output(0, x.dtype(), {n, c, h * b, w * b}));
    // The output read as [N, c, H, bh, W, bw], with the input stride of each.
    const int64_t hw = h * w;
    const std::vector<int64_t> strides =
        crd_ ? std::vector<int64_t>{c * b * b * hw, b * b * hw, w, b * hw, 1, hw}
             : std::vector<int64_t>{c * b * b * hw, hw, w, b * c * hw, 1, c * hw};
    return strided_copy(x, 0, strides, {n, c, h, b, w, b}, *y);
  }

 private:
  int64_t blocksize_ = 0;
  bool crd_ = false;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "DepthToSpace", 1, kLatestOpset, DepthToSpaceKernel);

}  // namespace onyx
