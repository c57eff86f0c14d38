// ReverseSequence: for each batch entry b, reverses the first sequence_lens[b] steps along
// time_axis and copies the rest. batch_axis and time_axis are 0 and 1 in some order.
#include "kernels/element_copy.h"
#include "kernels/kernel.h"
#include "kernels/shape_util.h"

namespace onyx {
namespace {

class ReverseSequenceKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    batch_axis_ = info.attr_int("batch_axis", 1);
    time_axis_ = info.attr_int("time_axis", 0);
    if (!((batch_axis_ == 0 && time_axis_ == 1) || (batch_axis_ == 1 && time_axis_ == 0)))
      return invalid_model("ReverseSequence: batch_axis and time_axis must be 0 and 1");
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    if (x.rank() < 2) return invalid_argument("ReverseSequence: the input must have rank >= 2, got ", x.describe());
    ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> lens, read_int_list(ctx.input(1), "sequence_lens"));
    const int64_t batch = x.dim(batch_axis_), steps = x.dim(time_axis_);
    if (int64_t(lens.size()) != batch)
      return invalid_argument("ReverseSequence: sequence_lens has ", lens.size(), " entries for batch ", batch);
    for (int64_t len : lens)
      if (len < 0 || len > steps) return invalid_argument("ReverseSequence: sequence length ", len, " is out of range");
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output(0, x.dtype(), x.shape()));
    const int64_t inner = x.dim(0) > 0 && x.dim(1) > 0 ? x.numel() / (x.dim(0) * x.dim(1)) : 0;
    const int64_t batch_stride = batch_axis_ == 0 ? steps * inner : inner;
    const int64_t time_stride = time_axis_ == 0 ? batch * inner : inner;
    for (int64_t b = 0; b < batch; ++b)
      for (int64_t t = 0; t < steps; ++t) {
        const int64_t src_t = t < lens[size_t(b)] ? lens[size_t(b)] - 1 - t : t;
        copy_elements(x, b * batch_stride + src_t * time_stride, *y, b * batch_stride + t * time_stride, inner);
      }
    return Status::Ok();
  }

 private:
  int64_t batch_axis_ = 1;
  int64_t time_axis_ = 0;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "ReverseSequence", 1, kLatestOpset, ReverseSequenceKernel);

}  // namespace onyx
