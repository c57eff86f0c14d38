// GatherGrad (ai.onyx.training) on CUDA, float32: the gradient of Gather along axis 0,
//   dData = zeros of data's shape, with each row of dY added at its index
// from dY [indices' shape..., data's dims after the first], indices (int64 or int32, negative
// counting from the end) and data (read for its shape only). Repeated indices add up through
// atomicAdd, so their order of addition (and the last bits of such rows) can vary between runs,
// as in PyTorch's own GPU kernels. An index out of range adds nothing and fails the run through
// the provider's device check, naming the node. The accumulating form (inputs buffer and
// reset) is refused: such a node runs on the CPU.
#include "kernels/cuda/cuda_kernel.h"

namespace onyx {
namespace {

template <typename I>
__global__ void scatter_add_rows(const float* dy, const I* index, float* out, int64_t n, int64_t row, int64_t rows,
                                 int* error_flag, int site) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t j = i / row, c = i % row;
    int64_t k = int64_t(index[j]);
    if (k < 0) k += rows;
    if (k < 0 || k >= rows) {
      if (c == 0) atomicCAS(error_flag, 0, site);
      continue;
    }
    atomicAdd(out + k * row + c, dy[i]);
  }
}

std::string refuses(const KernelQuery& q) {
  if (q.node.inputs.size() > 3 && !q.node.inputs[3].empty()) return "accumulates into a buffer (CPU only)";
  if (std::string why = refuse_unless(q, {DataType::kFloat}, {0}); !why.empty()) return why;
  return refuse_unless(q, {DataType::kInt64, DataType::kInt32}, {1});
}

class CudaGatherGrad final : public CudaKernel {
 protected:
  Status prepare_cuda(const KernelInfo& info) override {
    site_ = cuda().register_error_site("GatherGrad: an index is out of range in node " + info.node().label());
    return Status::Ok();
  }

 public:
  Status compute(KernelContext& ctx) const override {
    const Tensor& dy = ctx.input(0);
    const Tensor& indices = ctx.input(1);
    const Tensor& data = ctx.input(2);
    if (data.rank() < 1) return invalid_argument("GatherGrad: data must have rank 1 or more, got ", data.describe());
    if (indices.dtype() != DataType::kInt64 && indices.dtype() != DataType::kInt32)
      return invalid_argument("GatherGrad: indices must be int64 or int32, got ", indices.describe());
    if (ctx.has_input(3) || ctx.has_input(4))
      return not_implemented("CUDA GatherGrad: the accumulating form (buffer, reset)");
    const int64_t rows = data.dim(0);
    const int64_t row = rows ? data.numel() / rows : 0;
    if (dy.dtype() != DataType::kFloat || data.dtype() != DataType::kFloat || dy.numel() != indices.numel() * row)
      return invalid_argument("GatherGrad: dY ", dy.describe(), " does not fit indices ", indices.describe(),
                              " of data ", data.describe(), " (CUDA: float32)");
    ONYX_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, data.dtype(), data.shape()));  // zero-filled
    const int64_t n = dy.numel();
    if (n == 0) return Status::Ok();
    ONYX_RETURN_IF_ERROR(cuda().activate());
    if (indices.dtype() == DataType::kInt64)
      scatter_add_rows<<<grid_for(n), 256, 0, stream()>>>(dy.data<float>(), indices.data<int64_t>(), out->data<float>(),
                                                          n, row, rows, cuda().device_error_flag(), site_);
    else
      scatter_add_rows<<<grid_for(n), 256, 0, stream()>>>(dy.data<float>(), indices.data<int32_t>(), out->data<float>(),
                                                          n, row, rows, cuda().device_error_flag(), site_);
    return check_launch("GatherGrad");
  }

 private:
  int site_ = 0;
};

}  // namespace

ONYX_REGISTER_PROVIDER_KERNEL("CUDA", "ai.onyx.training", "GatherGrad", 1, kLatestOpset, CudaGatherGrad, refuses, {});

}  // namespace onyx
