// Split (opset 13 on: 'split' as input 1, read on the host; opset 18's num_outputs) on CUDA,
// any element type but strings: each requested output is one 2-D device-to-device copy of its
// column range (piece sizes shared with the CPU kernel, kernels/split_sizes.h).
#include "kernels/broadcast.h"
#include "kernels/cuda/strided_copy.cuh"
#include "kernels/shape_util.h"
#include "kernels/split_sizes.h"

namespace onyx {
namespace {

class CudaSplit final : public CudaKernel {
 protected:
  Status prepare_cuda(const KernelInfo& info) override {
    axis_ = info.attr_int("axis", 0);
    if (info.opset() >= 18 && info.has_attr("num_outputs")) {
      const int64_t num_outputs = info.attr_int("num_outputs", 0);
      if (num_outputs != info.num_outputs())
        return invalid_model("Split: num_outputs=", num_outputs, " but the node has ", info.num_outputs(), " outputs");
      ceil_chunks_ = true;
    }
    return Status::Ok();
  }

 public:
  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    ONYX_ASSIGN_OR_RETURN(const int64_t axis, normalize_axis(axis_, x.rank()));
    const int64_t n = ctx.num_outputs();
    std::vector<int64_t> given;
    if (ctx.has_input(1)) {
      ONYX_ASSIGN_OR_RETURN(given, read_int_list(ctx.input(1), "split"));
    }
    ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> split,
                          split_sizes(x, axis, n, ctx.has_input(1) ? &given : nullptr, ceil_chunks_));
    int64_t rows = 1, inner = 1;
    for (int64_t k = 0; k < axis; ++k) rows *= x.dim(k);
    for (int64_t k = axis + 1; k < x.rank(); ++k) inner *= x.dim(k);
    const size_t item = x.itemsize();
    const size_t in_row = size_t(x.dim(axis) * inner) * item;
    ONYX_RETURN_IF_ERROR(cuda().activate());
    size_t column = 0;
    for (int64_t i = 0; i < n; ++i) {
      const size_t row = size_t(split[size_t(i)] * inner) * item;
      if (ctx.output_requested(int(i))) {
        Shape shape = x.shape();
        shape[size_t(axis)] = split[size_t(i)];
        ONYX_ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output_uninitialized(int(i), x.dtype(), shape));
        if (row > 0 && rows > 0)
          ONYX_RETURN_IF_ERROR(cuda_status(cudaMemcpy2DAsync(y->raw_data(), row,
                                                             static_cast<const char*>(x.raw_data()) + column, in_row,
                                                             row, size_t(rows), cudaMemcpyDeviceToDevice, stream()),
                                           "cudaMemcpy2DAsync (Split)"));
      }
      column += row;
    }
    return Status::Ok();
  }

 private:
  int64_t axis_ = 0;
  bool ceil_chunks_ = false;
};

}  // namespace

ONYX_REGISTER_PROVIDER_KERNEL("CUDA", "", "Split", 13, kLatestOpset, CudaSplit, cuda_copy::refuse_strings, {1});

}  // namespace onyx
