// MaxUnpool: scatters X (N, C, D1..Dn) into a zero tensor at the flat indices I (as MaxPool's
// Indices output gives them). The inferred output shape is (N, C, (D - 1) * stride + kernel
// - pads). Indices address that inferred shape; with the optional output_shape input the
// result is the inferred tensor placed at the origin of a tensor of that shape (the ONNX
// reference semantics), so output_shape must be at least the inferred shape where indices land.
#include <algorithm>
#include <vector>

#include "kernels/dispatch.h"
#include "kernels/kernel.h"
#include "kernels/spatial.h"

namespace onyx {
namespace {

class MaxUnpoolKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    ONYX_RETURN_IF_ERROR(parse_window_attrs(info, &attrs_));
    if (attrs_.kernel_shape.empty()) return invalid_model("kernel_shape is required");
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const Tensor& ind = ctx.input(1);
    const size_t rank = size_t(x.rank());
    if (rank < 3) return invalid_argument("X must have rank 3 or more (N, C, D1...), got ", x.describe());
    const size_t r = rank - 2;
    if (ind.dtype() != DataType::kInt64 || ind.shape() != x.shape())
      return invalid_argument("I must be int64 with the shape of X, got ", ind.describe(), " for X ", x.describe());
    if (attrs_.kernel_shape.size() != r || (!attrs_.strides.empty() && attrs_.strides.size() != r) ||
        (!attrs_.pads.empty() && attrs_.pads.size() != 2 * r))
      return invalid_argument("kernel_shape, strides and pads do not match the ", r, " spatial dims of ", x.describe());
    Shape inferred{x.dim(0), x.dim(1)};
    for (size_t d = 0; d < r; ++d) {
      const int64_t s = attrs_.strides.empty() ? 1 : attrs_.strides[d];
      const int64_t pads = attrs_.pads.empty() ? 0 : attrs_.pads[d] + attrs_.pads[d + r];
      int64_t size = 0;
      if (__builtin_mul_overflow(std::max<int64_t>(x.dim(int64_t(d) + 2) - 1, 0), s, &size))
        return invalid_argument("unpooled size overflows");
      size += attrs_.kernel_shape[d] - pads;
      if (size < 0) return invalid_argument("pads exceed the unpooled size along spatial dim ", d);
      inferred.push_back(size);
    }
    Shape y_shape = inferred;
    if (ctx.has_input(2)) {
      const Tensor& os = ctx.input(2);
      if (os.rank() != 1 || os.dim(0) != int64_t(rank) || !is_integer_type(os.dtype()))
        return invalid_argument("output_shape must be a 1-D integer tensor of ", rank, " values, got ", os.describe());
      y_shape = os.to_int64_vector();
      if (y_shape[0] != x.dim(0) || y_shape[1] != x.dim(1))
        return invalid_argument("output_shape ", shape_to_string(y_shape), " must keep N and C of X ", x.describe());
      for (int64_t v : y_shape)
        if (v < 0) return invalid_argument("output_shape ", shape_to_string(y_shape), " has a negative dim");
    }
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output(0, x.dtype(), y_shape));
    const int64_t total = shape_size(inferred);
    const std::vector<int64_t> in_strides = shape_strides(inferred), out_strides = shape_strides(y_shape);
    const bool same = y_shape == inferred;
    const int64_t* idx = ind.data<int64_t>();
    return dispatch<ONYX_FLOAT_TYPES>(x.dtype(), [&]<typename T>() -> Status {
      const T* in = x.data<T>();
      T* out = y->data<T>();
      for (int64_t i = 0; i < x.numel(); ++i) {
        int64_t at = idx[i];
        if (at < 0 || at >= total)
          return invalid_argument("index ", at, " is out of range for the unpooled shape ", shape_to_string(inferred));
        if (!same) {
          int64_t pos = 0;
          for (size_t d = 0; d < rank; ++d) {
            const int64_t c = at / in_strides[d];
            at %= in_strides[d];
            if (c >= y_shape[d])
              return invalid_argument("index ", idx[i], " falls outside output_shape ", shape_to_string(y_shape));
            pos += c * out_strides[d];
          }
          at = pos;
        }
        out[at] = in[i];
      }
      return Status::Ok();
    });
  }

 private:
  WindowAttrs attrs_;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "MaxUnpool", 9, kLatestOpset, MaxUnpoolKernel);

}  // namespace onyx
