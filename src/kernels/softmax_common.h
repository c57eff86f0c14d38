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

}  // namespace onyx
