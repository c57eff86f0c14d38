// ai.onnx.ml ArrayFeatureExtractor: the elements of X's last axis at the given indices (all
// of Y's elements, in order): Y = X[..., indices], shape X.shape[:-1] + [len(indices)]; a 1-D
// X gives [1, len(indices)], as ONNX Runtime does. An index outside the last axis is
// INVALID_ARGUMENT.
#include <cstring>

#include "kernels/kernel.h"

namespace onyx {
namespace {

class ArrayFeatureExtractorKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const Tensor& indices = ctx.input(1);
    if (!x.defined() || x.rank() < 1) return invalid_argument("ArrayFeatureExtractor: X must have rank >= 1");
    if (indices.dtype() != DataType::kInt64)
      return invalid_argument("ArrayFeatureExtractor: Y must be int64, got ", indices.describe());
    const int64_t last = x.dim(x.rank() - 1);
    const int64_t k = indices.numel();
    if (k == 0) return invalid_argument("ArrayFeatureExtractor: Y holds no index");
    const int64_t* idx = indices.data<int64_t>();
    for (int64_t j = 0; j < k; ++j)
      if (idx[j] < 0 || idx[j] >= last)
        return invalid_argument("ArrayFeatureExtractor: index ", idx[j], " is outside X's last axis of ", last);
    Shape shape = x.rank() == 1 ? Shape{1, k} : x.shape();
    shape.back() = k;
    ONYX_ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, x.dtype(), shape));
    const int64_t outer = last ? x.numel() / last : 0;
    const size_t item = x.itemsize();
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t j = 0; j < k; ++j) {
        const int64_t from = o * last + idx[j], to = o * k + j;
        if (x.dtype() == DataType::kString) y->data<std::string>()[to] = x.data<std::string>()[from];
        else std::memcpy(static_cast<char*>(y->raw_data()) + size_t(to) * item,
                         static_cast<const char*>(x.raw_data()) + size_t(from) * item, item);
      }
    }
    return Status::Ok();
  }
};

}  // namespace

ONYX_REGISTER_KERNEL("ai.onnx.ml", "ArrayFeatureExtractor", 1, kLatestOpset, ArrayFeatureExtractorKernel);

}  // namespace onyx
