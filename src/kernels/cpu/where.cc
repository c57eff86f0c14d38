// Where: out = condition ? X : Y elementwise, the three inputs broadcast together (numpy rules).
// X and Y share any element type, strings and complex included.
#include <complex>
#include <string>

#include "kernels/elementwise_binary.h"

namespace onyx {
namespace {

class WhereKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    ONYX_RETURN_IF_ERROR(check_tensor_inputs(ctx, 3));
    const Tensor& cond = ctx.input(0);
    const Tensor& x = ctx.input(1);
    const Tensor& y = ctx.input(2);
    if (cond.dtype() != DataType::kBool)
      return invalid_argument("condition must be bool, got ", data_type_name(cond.dtype()));
    if (x.dtype() != y.dtype())
      return invalid_argument("X and Y must have the same type, got ", data_type_name(x.dtype()), " and ",
                              data_type_name(y.dtype()));
    ONYX_ASSIGN_OR_RETURN(Shape out_shape, broadcast_shapes({cond.shape(), x.shape(), y.shape()}));
    return dispatch<ONYX_ALL_TYPES, std::complex<float>, std::complex<double>>(
        x.dtype(), [&]<typename T>() -> Status {
          ONYX_ASSIGN_OR_RETURN(Tensor* out, ctx.allocate_output_uninitialized(0, x.dtype(), out_shape));
          const bool* pc = cond.data<bool>();
          const T* px = x.data<T>();
          const T* py = y.data<T>();
          T* po = out->data<T>();
          for_each_run<3>(out_shape, {cond.shape(), x.shape(), y.shape()},
                          [&](int64_t begin, int64_t n, const int64_t* off, const int64_t* st) {
                            const bool* c = pc + off[0];
                            const T* a = px + off[1];
                            const T* b = py + off[2];
                            for (int64_t i = 0; i < n; ++i)
                              po[begin + i] = c[i * st[0]] ? a[i * st[1]] : b[i * st[2]];
                          });
          return Status::Ok();
        });
  }
};

}  // namespace

ONYX_REGISTER_KERNEL("", "Where", 9, kLatestOpset, WhereKernel);

}  // namespace onyx
