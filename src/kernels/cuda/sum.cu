// Sum on CUDA: the elementwise sum of all inputs with numpy broadcasting, float32 and float16
// (float16 inputs added in float32, the result rounded once per pass). Inputs of the output's
// shape are added by pointer, up to kInputsPerPass per pass; a broadcast one is spread into Y by
// the strided gather (the first write) or added by the binary kernels' broadcast loop.
#include "kernels/broadcast.h"
#include "kernels/cuda/elementwise_binary.cuh"
#include "kernels/cuda/strided_copy.cuh"

namespace onyx {
namespace {

constexpr int kInputsPerPass = 8;

struct SameShapeInputs {
  const void* ptr[kInputsPerPass];
  int count;
};

// y = (accumulate ? y : 0) + sum of the pass's inputs.
template <typename T>
__global__ void add_same_shape(SameShapeInputs in, T* y, int64_t n, bool accumulate) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    float s = accumulate ? float(y[i]) : 0.f;
    for (int k = 0; k < in.count; ++k) s += float(static_cast<const T*>(in.ptr[k])[i]);
    y[i] = T(s);
  }
}

struct Plus {
  __device__ float operator()(float a, float b) const { return a + b; }
};

std::string refuses(const KernelQuery& q) { return refuse_unless(q, {DataType::kFloat, DataType::kFloat16}); }

class CudaSum final : public CudaKernel {
 public:
  Status compute(KernelContext& ctx) const override {
    if (ctx.num_inputs() == 0) return invalid_argument("Sum: no inputs");
    std::vector<Shape> shapes;
    const DataType type = ctx.input(0).dtype();
    ONYX_RETURN_IF_ERROR(expect_float_or_half(ctx.input(0), "Sum", 0));
    for (int i = 0; i < ctx.num_inputs(); ++i) {
      if (ctx.input(i).dtype() != type)
        return invalid_argument("Sum: inputs of different types, ", ctx.input(0).describe(), " and ", ctx.input(i).describe());
      shapes.push_back(ctx.input(i).shape());
    }
    ONYX_ASSIGN_OR_RETURN(Shape out, broadcast_shapes(shapes));
    if (out.size() > size_t(kMaxDims)) return not_implemented("CUDA Sum takes at most ", kMaxDims, " dims");
    ONYX_ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output_uninitialized(0, type, out));
    if (y->numel() == 0) return Status::Ok();
    ONYX_RETURN_IF_ERROR(cuda().activate());
    return type == DataType::kFloat ? launch<float>(ctx, *y) : launch<__half>(ctx, *y);
  }

 private:
  template <typename T>
  Status launch(KernelContext& ctx, Tensor& y) const {
    const int64_t n = y.numel();
    T* py = static_cast<T*>(y.raw_data());
    bool written = false;
    SameShapeInputs pass{};
    auto flush = [&]() {
      if (pass.count == 0) return;
      add_same_shape<T><<<grid_for(n), 256, 0, stream()>>>(pass, py, n, written);
      written = true;
      pass = SameShapeInputs{};
    };
    for (int i = 0; i < ctx.num_inputs(); ++i) {
      const Tensor& x = ctx.input(i);
      if (x.shape() == y.shape()) {
        pass.ptr[pass.count++] = x.raw_data();
        if (pass.count == kInputsPerPass) flush();
      }
    }
    flush();
    for (int i = 0; i < ctx.num_inputs(); ++i) {
      const Tensor& x = ctx.input(i);
      if (x.shape() == y.shape()) continue;
      // strides[0]: x broadcast; strides[1]: Y itself, for y = y + x in place (each element read,
      // then written, by one thread)
      DimsAndStrides d;
      d.rank = int(y.rank());
      const std::vector<int64_t> s = broadcast_strides(x.shape(), y.shape());
      int64_t own = 1;
      for (int k = d.rank - 1; k >= 0; --k) {
        d.dims[k] = y.dim(k);
        d.strides[0][k] = s[size_t(k)];
        d.strides[1][k] = own;
        own *= y.dim(k);
      }
      if (!written) {
        ONYX_RETURN_IF_ERROR(cuda_copy::launch_strided_gather(x.raw_data(), py, n, 0, d, sizeof(T), stream(), "Sum"));
      } else {
        cuda_elementwise::binary_broadcast<<<grid_for(n), 256, 0, stream()>>>(static_cast<const T*>(x.raw_data()), py,
                                                                              py, n, d, Plus());
      }
      written = true;
    }
    return check_launch("Sum");
  }
};

}  // namespace

ONYX_REGISTER_PROVIDER_KERNEL("CUDA", "", "Sum", 1, kLatestOpset, CudaSum, refuses, {});

}  // namespace onyx
