// Concat (opset 4 on) on CUDA, any element type but strings: each input is one 2-D
// device-to-device copy (rows: the dims before `axis`; row width: its slab from `axis` on)
// into its column range of the output.
#include "kernels/broadcast.h"
#include "kernels/cuda/strided_copy.cuh"

namespace onyx {
namespace {

class CudaConcat final : public CudaKernel {
 protected:
  Status prepare_cuda(const KernelInfo& info) override {
    if (!info.has_attr("axis")) return invalid_model("Concat needs an 'axis' attribute");
    axis_ = info.attr_int("axis", 0);
    return Status::Ok();
  }

 public:
  Status compute(KernelContext& ctx) const override {
    const int inputs = ctx.num_inputs();
    if (inputs == 0) return invalid_argument("Concat: no inputs");
    const Tensor& first = ctx.input(0);
    ONYX_ASSIGN_OR_RETURN(int64_t axis, normalize_axis(axis_, first.rank()));
    Shape out = first.shape();
    out[size_t(axis)] = 0;
    for (int i = 0; i < inputs; ++i) {
      const Tensor& t = ctx.input(i);
      if (t.dtype() != first.dtype() || t.rank() != first.rank())
        return invalid_argument("Concat: input ", i, " is ", t.describe(), ", input 0 is ", first.describe());
      for (int64_t k = 0; k < t.rank(); ++k)
        if (k != axis && t.dim(k) != first.dim(k))
          return invalid_argument("Concat: input ", i, " is ", t.describe(), ", input 0 is ", first.describe(),
                                  " (they may differ on axis ", axis, " only)");
      out[size_t(axis)] += t.dim(axis);
    }
    ONYX_ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output_uninitialized(0, first.dtype(), out));
    if (y->numel() == 0) return Status::Ok();
    int64_t rows = 1, inner = 1;
    for (int64_t k = 0; k < axis; ++k) rows *= out[size_t(k)];
    for (int64_t k = axis + 1; k < first.rank(); ++k) inner *= out[size_t(k)];
    const size_t item = first.itemsize();
    const size_t out_row = size_t(out[size_t(axis)] * inner) * item;
    ONYX_RETURN_IF_ERROR(cuda().activate());
    size_t column = 0;
    for (int i = 0; i < inputs; ++i) {
      const Tensor& t = ctx.input(i);
      const size_t row = size_t(t.dim(axis) * inner) * item;
      if (row > 0 && rows > 0)
        ONYX_RETURN_IF_ERROR(cuda_status(cudaMemcpy2DAsync(static_cast<char*>(y->raw_data()) + column, out_row, t.raw_data(),
                                                           row, row, size_t(rows), cudaMemcpyDeviceToDevice, stream()),
                                         "cudaMemcpy2DAsync (Concat)"));
      column += row;
    }
    return Status::Ok();
  }

 private:
  int64_t axis_ = 0;
};

}  // namespace

ONYX_REGISTER_PROVIDER_KERNEL("CUDA", "", "Concat", 4, kLatestOpset, CudaConcat, cuda_copy::refuse_strings, {});

}  // namespace onyx
