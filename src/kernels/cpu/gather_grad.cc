// GatherGrad (ai.onyx.training): the gradient of Gather along axis 0 (embeddings):
//   dData = zeros of data's shape, with each row of dY added at its index
// Inputs dY [indices' shape..., data's dims after the first], indices (int64 or int32, negative
// counting from the end), data (read for its shape only). Repeated indices add up. One zeroed
// allocation and one pass over dY, instead of zeros, a copy and a scatter.
// With the optional inputs buffer (data's type and shape) and reset (a bool scalar), it also
// does a training model's gradient accumulation (GradAccumulate's contract):
//   out = (reset ? zeros : buffer) + the rows of dY at their indices
// and the output may be written over buffer (Kernel::in_place_outputs), so accumulating into
// the state's gradient touches only the gathered rows, and resetting clears it once.
#include <cstring>

#include "core/parallel.h"
#include "kernels/dispatch.h"
#include "kernels/kernel.h"

namespace onyx {
namespace {

class GatherGradKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    const Tensor& dy = ctx.input(0);
    const Tensor& indices = ctx.input(1);
    const Tensor& data = ctx.input(2);
    if (data.rank() < 1) return invalid_argument("GatherGrad: data must have rank 1 or more, got ", data.describe());
    if (indices.dtype() != DataType::kInt64 && indices.dtype() != DataType::kInt32)
      return invalid_argument("GatherGrad: indices must be int64 or int32, got ", indices.describe());
    const int64_t rows = data.dim(0);
    const int64_t row = rows ? data.numel() / rows : 0;
    if (dy.dtype() != data.dtype() || dy.numel() != indices.numel() * row)
      return invalid_argument("GatherGrad: dY ", dy.describe(), " does not fit indices ", indices.describe(),
                              " of data ", data.describe());
    const bool accumulating = ctx.has_input(3) && ctx.has_input(4);
    Tensor* out = nullptr;
    if (accumulating) {
      const Tensor& buffer = ctx.input(3);
      const Tensor& reset = ctx.input(4);
      if (buffer.dtype() != data.dtype() || buffer.shape() != data.shape())
        return invalid_argument("GatherGrad: buffer ", buffer.describe(), " must be like data ", data.describe());
      if (reset.dtype() != DataType::kBool || reset.numel() != 1)
        return invalid_argument("GatherGrad: reset must be one bool, got ", reset.describe());
      ONYX_ASSIGN_OR_RETURN(out, ctx.allocate_output_uninitialized(0, data.dtype(), data.shape()));
      if (*reset.data<bool>()) {
        std::memset(out->raw_data(), 0, out->nbytes());
      } else if (out->raw_data() != buffer.raw_data()) {
        std::memcpy(out->raw_data(), buffer.raw_data(), out->nbytes());
      }
    } else {
      ONYX_ASSIGN_OR_RETURN(out, ctx.allocate_output(0, data.dtype(), data.shape()));  // zero-filled
    }
    std::vector<int64_t> idx = indices.to_int64_vector();
    for (int64_t& i : idx) {
      if (i < -rows || i >= rows)
        return invalid_argument("GatherGrad: index ", i, " is out of range for ", rows, " rows");
      if (i < 0) i += rows;
    }
    return dispatch<float, double>(data.dtype(), [&]<typename T>() -> Status {
      const T* g = dy.data<T>();
      T* y = out->data<T>();
      // Columns split across threads: every thread visits every index, so repeated indices
      // never race.
      parallel_for(row, 256, [&](int64_t c0, int64_t c1) {
        for (size_t k = 0; k < idx.size(); ++k) {
          T* dst = y + idx[k] * row;
          const T* src = g + int64_t(k) * row;
          for (int64_t c = c0; c < c1; ++c) dst[c] += src[c];
        }
      });
      return Status::Ok();
    });
  }
  std::vector<std::pair<int, int>> in_place_outputs() const override { return {{0, 3}}; }
};

}  // namespace

ONYX_REGISTER_KERNEL("ai.onyx.training", "GatherGrad", 1, kLatestOpset, GatherGradKernel);

}  // namespace onyx
