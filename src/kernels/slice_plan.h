// The arithmetic of Slice shared by its CPU and CUDA kernels: from the input's shape and the
// starts, ends, axes and steps, the output shape and where each output element reads.
#pragma once
#include <cstdint>
#include <vector>

#include "core/status.h"
#include "core/tensor.h"

namespace onyx {

struct SlicePlan {
  Shape out_shape;
  // Output element at coordinates c reads input element offset + sum(c[k] * strides[k])
  // (strides in elements, negative for negative steps, 0 on dims of length <= 1).
  int64_t offset = 0;
  std::vector<int64_t> strides;
};

// `axes` empty means 0, 1, ...; `steps` empty means all 1. Negative starts/ends count from the
// end and are clamped as the ONNX spec says. INVALID_ARGUMENT for lists of different lengths, a
// step of 0 or an axis out of range.
Result<SlicePlan> plan_slice(const Shape& in, const std::vector<int64_t>& starts, const std::vector<int64_t>& ends,
                             std::vector<int64_t> axes, std::vector<int64_t> steps);

}  // namespace onyx
