// Shape: the input's dims as a 1-D int64 tensor; from opset 15 only dims[start:end]
// (negative values count from the end, out-of-range values are clamped).
#include <algorithm>

#include "kernels/kernel.h"

namespace onyx {
namespace {

class ShapeKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    if (info.opset() >= 15) {
      start_ = info.attr_int("start", 0);
      has_end_ = info.has_attr("end");
      end_ = info.attr_int("end", 0);
    }
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const Value& v = ctx.input_value(0);
    if (!v.is_tensor()) return invalid_argument("Shape: the input is ", v.describe(), ", not a tensor");
    const Tensor& x = v.tensor();
    const int64_t rank = x.rank();
    int64_t start = start_ < 0 ? start_ + rank : start_;
    int64_t end = has_end_ ? (end_ < 0 ? end_ + rank : end_) : rank;
    start = std::clamp<int64_t>(start, 0, rank);
    end = std::clamp<int64_t>(end, start, rank);
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output(0, DataType::kInt64, {end - start}));
    for (int64_t d = start; d < end; ++d) y->data<int64_t>()[d - start] = x.dim(d);
    return Status::Ok();
  }

 private:
  int64_t start_ = 0;
  bool has_end_ = false;
  int64_t end_ = 0;
};

}  // namespace

// Only the input's dims are read: a device value is not copied to the host for it.
ONYX_REGISTER_SHAPE_READING_KERNEL("", "Shape", 1, kLatestOpset, ShapeKernel, {0});

}  // namespace onyx
