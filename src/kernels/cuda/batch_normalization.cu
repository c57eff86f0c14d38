// BatchNormalization on CUDA, inference only: Y = (X - mean[c]) * scale[c] / sqrt(var[c] +
// epsilon) + B[c] over X (N, C, D1..Dn), float32 or float16, the four per-channel inputs of
// X's type or float32. Training mode (training_mode = 1, or the extra outputs before opset 14)
// and spatial = 0 (opsets before 9) are refused at placement and run on the CPU.
#include "kernels/cuda/cuda_kernel.h"

namespace onyx {
namespace {

template <typename T, typename P>
__global__ void batch_norm(const T* x, T* y, int64_t n, int64_t channels, int64_t plane, const P* scale, const P* bias,
                           const P* mean, const P* var, float epsilon) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t c = (i / plane) % channels;
    const float a = float(scale[c]) * rsqrtf(float(var[c]) + epsilon);
    y[i] = T((float(x[i]) - float(mean[c])) * a + float(bias[c]));
  }
}

bool training(const KernelQuery& q) {
  if (q.opset >= 14) {
    const ir::Attribute* t = q.node.attribute("training_mode");
    return t && t->i != 0;
  }
  for (size_t i = 1; i < q.node.outputs.size(); ++i)
    if (!q.node.outputs[i].empty()) return true;
  return false;
}

std::string refuses(const KernelQuery& q) {
  if (training(q)) return "runs inference only, not training mode";
  if (const ir::Attribute* s = q.node.attribute("spatial"); q.opset < 9 && s && s->i == 0)
    return "takes per-channel statistics only (spatial = 0 is not)";
  if (std::string why = float_or_half(q); !why.empty()) return why;
  for (int i = 1; i <= 4; ++i) {
    const DataType t = size_t(i) < q.input_types.size() ? q.input_types[size_t(i)] : DataType::kUndefined;
    if (t != DataType::kUndefined && t != DataType::kFloat && t != q.input_types[0])
      return "takes statistics of X's type or float32, not " + std::string(data_type_name(t));
  }
  return "";
}

class CudaBatchNormalization final : public CudaKernel {
 protected:
  Status prepare_cuda(const KernelInfo& info) override {
    epsilon_ = info.attr_float("epsilon", 1e-5f);
    return Status::Ok();
  }

 public:
  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    ONYX_RETURN_IF_ERROR(expect_float_or_half(x, "BatchNormalization", 0));
    if (x.rank() < 2) return invalid_argument("BatchNormalization: X must have rank 2 or more, got ", x.describe());
    const int64_t channels = x.dim(1);
    const DataType ptype = ctx.input(1).dtype();
    for (int i = 1; i <= 4; ++i) {
      const Tensor& p = ctx.input(i);
      if (!p.defined() || p.rank() != 1 || p.dim(0) != channels || p.dtype() != ptype ||
          (ptype != DataType::kFloat && ptype != x.dtype()))
        return invalid_argument("BatchNormalization: input ", i, " must be [", channels, "] of ",
                                data_type_name(ptype), " (float32 or X's type), got ",
                                p.defined() ? p.describe() : std::string("nothing"));
    }
    ONYX_ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output_uninitialized(0, x.dtype(), x.shape()));
    const int64_t n = x.numel();
    if (n == 0) return Status::Ok();
    const int64_t plane = n / (x.dim(0) * channels);
    ONYX_RETURN_IF_ERROR(cuda().activate());
    const void* s = ctx.input(1).raw_data();
    const void* b = ctx.input(2).raw_data();
    const void* m = ctx.input(3).raw_data();
    const void* v = ctx.input(4).raw_data();
    const unsigned grid = grid_for(n);
    auto launch = [&]<typename T, typename P>() {
      batch_norm<T, P><<<grid, 256, 0, stream()>>>(static_cast<const T*>(x.raw_data()), static_cast<T*>(y->raw_data()), n,
                                                   channels, plane, static_cast<const P*>(s), static_cast<const P*>(b),
                                                   static_cast<const P*>(m), static_cast<const P*>(v), epsilon_);
    };
    if (x.dtype() == DataType::kFloat) launch.template operator()<float, float>();
    else if (ptype == DataType::kFloat) launch.template operator()<__half, float>();
    else launch.template operator()<__half, __half>();
    return check_launch("BatchNormalization");
  }

 private:
  float epsilon_ = 1e-5f;
};

}  // namespace

ONYX_REGISTER_PROVIDER_KERNEL("CUDA", "", "BatchNormalization", 1, kLatestOpset, CudaBatchNormalization, refuses, {});

}  // namespace onyx
