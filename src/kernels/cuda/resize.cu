// Resize (opset 10+) on CUDA, float32 and float16: every mode the CPU has (nearest, linear,
// cubic, antialias, every coordinate transform, tf_crop_and_resize's extrapolation), since the
// per-axis filters are the CPU's own (make_resize_filter in resize_common.h), computed on the
// host and uploaded; each output element then sums the product of its axes' taps, in float32.
// roi, scales and sizes are read on the host.
#include <vector>

#include "kernels/cuda/cuda_kernel.h"
#include "kernels/resize_common.h"

namespace onyx {
namespace {

// Per dim: output size, input stride, taps per output, and where its taps start in the
// index/weight tables (at out * k entries per dim) and its flags in the outside table.
struct ResizeTables {
  int rank = 0;
  int64_t out[kMaxDims] = {}, in_stride[kMaxDims] = {}, taps[kMaxDims] = {}, tap_base[kMaxDims] = {},
          flag_base[kMaxDims] = {};
};

template <typename T>
__global__ void resize(const T* x, T* y, int64_t n, ResizeTables t, const int64_t* index, const float* weight,
                       const uint8_t* outside, float extrapolation) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    int64_t o[kMaxDims], rem = i, total = 1;
    bool out_of_roi = false;
    for (int d = t.rank - 1; d >= 0; --d) {
      o[d] = rem % t.out[d];
      rem /= t.out[d];
      out_of_roi = out_of_roi || outside[t.flag_base[d] + o[d]];
      total *= t.taps[d];
    }
    if (out_of_roi) {
      y[i] = T(extrapolation);
      continue;
    }
    float acc = 0.f;
    for (int64_t tap = 0; tap < total; ++tap) {
      int64_t r = tap, off = 0;
      float w = 1.f;
      for (int d = t.rank - 1; d >= 0 && w != 0.f; --d) {
        const int64_t j = t.tap_base[d] + o[d] * t.taps[d] + r % t.taps[d];
        r /= t.taps[d];
        w *= weight[j];
        off += index[j] * t.in_stride[d];
      }
      if (w != 0.f) acc += w * float(x[off]);
    }
    y[i] = T(acc);
  }
}

class CudaResize final : public CudaKernel {
 protected:
  Status prepare_cuda(const KernelInfo& info) override {
    legacy_ = info.opset() < 11;
    ONYX_ASSIGN_OR_RETURN(attrs_, parse_resize_attrs(info, legacy_));
    return Status::Ok();
  }

 public:
  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    ONYX_RETURN_IF_ERROR(expect_float_or_half(x, "Resize", 0));
    ONYX_ASSIGN_OR_RETURN(const std::vector<ResizeAxis> axes, resolve_resize_axes(ctx, attrs_, legacy_, x.shape()));
    Shape out_shape;
    for (const ResizeAxis& a : axes) {
      if (a.in_len == 0 && a.out_len > 0) return invalid_argument("Resize: cannot resize an empty dim to ", a.out_len);
      out_shape.push_back(a.out_len);
    }
    ONYX_ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output_uninitialized(0, x.dtype(), out_shape));
    const int64_t n = y->numel();
    if (n == 0) return Status::Ok();
    if (x.rank() > kMaxDims) return not_implemented("CUDA Resize of rank ", x.rank(), " (at most ", kMaxDims, ")");

    // The filters, with identity dims as one tap of weight 1, flattened into host tables.
    ResizeTables t;
    t.rank = int(x.rank());
    std::vector<int64_t> index;
    std::vector<float> weight;
    std::vector<uint8_t> outside;
    const std::vector<int64_t> strides = shape_strides(x.shape());
    for (int d = 0; d < t.rank; ++d) {
      const ResizeFilter f = make_resize_filter(attrs_, axes[size_t(d)]);
      const int64_t len = axes[size_t(d)].out_len;
      t.out[d] = len;
      t.in_stride[d] = strides[size_t(d)];
      t.tap_base[d] = int64_t(index.size());
      t.flag_base[d] = int64_t(outside.size());
      t.taps[d] = f.identity ? 1 : f.k;
      for (int64_t o = 0; o < len; ++o) {
        for (int64_t j = 0; j < t.taps[d]; ++j) {
          index.push_back(f.identity ? o : f.index[size_t(o * f.k + j)]);
          weight.push_back(f.identity ? 1.f : float(f.weight[size_t(o * f.k + j)]));
        }
        outside.push_back(f.outside[size_t(o)]);
      }
    }
    ONYX_ASSIGN_OR_RETURN(Tensor index_d, upload(ctx, DataType::kInt64, index.data(), int64_t(index.size())));
    ONYX_ASSIGN_OR_RETURN(Tensor weight_d, upload(ctx, DataType::kFloat, weight.data(), int64_t(weight.size())));
    ONYX_ASSIGN_OR_RETURN(Tensor outside_d, upload(ctx, DataType::kUInt8, outside.data(), int64_t(outside.size())));
    ONYX_RETURN_IF_ERROR(cuda().activate());
    const float fill = float(attrs_.extrapolation_value);
    if (x.dtype() == DataType::kFloat)
      resize<<<grid_for(n), 256, 0, stream()>>>(x.data<float>(), y->data<float>(), n, t, index_d.data<int64_t>(),
                                                weight_d.data<float>(), outside_d.data<uint8_t>(), fill);
    else
      resize<<<grid_for(n), 256, 0, stream()>>>(static_cast<const __half*>(x.raw_data()),
                                                static_cast<__half*>(y->raw_data()), n, t, index_d.data<int64_t>(),
                                                weight_d.data<float>(), outside_d.data<uint8_t>(), fill);
    return check_launch("Resize");
  }

 private:
  // A device scratch tensor holding `count` elements of `type` copied from host `data`
  // (the host bytes may go once this returns).
  Result<Tensor> upload(KernelContext& ctx, DataType type, const void* data, int64_t count) const {
    ONYX_ASSIGN_OR_RETURN(Tensor device, ctx.allocate_scratch(type, {count}));
    ONYX_ASSIGN_OR_RETURN(const Tensor host, Tensor::borrow(type, {count}, const_cast<void*>(data),
                                                            size_t(count) * data_type_size(type)));
    ONYX_RETURN_IF_ERROR(cuda().activate());
    ONYX_RETURN_IF_ERROR(cuda().copy(host, device));  // queued on the stream before the resize
    return device;
  }

  bool legacy_ = false;
  ResizeAttrs attrs_;
};

}  // namespace

ONYX_REGISTER_PROVIDER_KERNEL("CUDA", "", "Resize", 10, kLatestOpset, CudaResize, float_or_half, {1, 2, 3});

}  // namespace onyx
