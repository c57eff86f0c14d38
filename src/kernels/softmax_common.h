// The computation shared by Softmax, LogSoftmax and Hardmax, with their opset-dependent axis
// semantics: before opset 13 the input is viewed as 2-D, [prod(dims[:axis]), prod(dims[axis:])]
// (axis default 1, 0 <= axis <= rank after adding rank to a negative one) and the op works on
// each row; from opset 13 it works along the one dim `axis` (default -1).
#pragma once
#include <cstdint>

#include "core/status.h"
#include "kernels/kernel.h"

namespace onyx {

enum class SoftmaxKind { kSoftmax, kLogSoftmax, kHardmax };

// The default 'axis' attribute for a model opset.
inline int64_t default_softmax_axis(int64_t opset) { return opset >= 13 ? -1 : 1; }

// Y = op(input 0) along the axis as described above.
Status compute_softmax(KernelContext& ctx, SoftmaxKind kind, int64_t axis, int64_t opset);

// The kernel of each of the three ops: reads 'axis' (default by opset) and runs compute_softmax.
template <SoftmaxKind Kind>
class SoftmaxFamilyKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    opset_ = info.opset();
    axis_ = info.attr_int("axis", default_softmax_axis(opset_));
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override { return compute_softmax(ctx, Kind, axis_, opset_); }

 private:
  int64_t opset_ = 13;
  int64_t axis_ = -1;
};

}  // namespace onyx
