// NonZero: the coordinates of the non-zero elements, as int64 [rank, count] in row-major
// order (a scalar reads as a 1-element vector). Strings count when non-empty.
#include <complex>

#include "kernels/dispatch.h"
#include "kernels/kernel.h"

namespace onyx {
namespace {

class NonZeroKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    std::vector<int64_t> hits;
    Status st = dispatch<ONYX_NUMERIC_TYPES, bool, std::string, std::complex<float>, std::complex<double>>(
        x.dtype(), [&]<typename T>() -> Status {
          const T* in = x.data<T>();
          for (int64_t i = 0; i < x.numel(); ++i) {
            bool nz;
            if constexpr (std::is_same_v<T, std::string>) nz = !in[i].empty();
            else if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>) nz = float(in[i]) != 0.0f;
            else nz = in[i] != T(0);
            if (nz) hits.push_back(i);
          }
          return Status::Ok();
        });
    ONYX_RETURN_IF_ERROR(st);
    const int64_t rank = x.rank() == 0 ? 1 : x.rank();
    const Shape dims = x.rank() == 0 ? Shape{1} : x.shape();
    const int64_t n = int64_t(hits.size());
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output(0, DataType::kInt64, {rank, n}));
    int64_t* out = y->data<int64_t>();
    for (int64_t j = 0; j < n; ++j) {
      int64_t flat = hits[size_t(j)];
      for (int64_t d = rank - 1; d >= 0; --d) {
        out[d * n + j] = flat % dims[size_t(d)];
        flat /= dims[size_t(d)];
      }
    }
    return Status::Ok();
  }
};

}  // namespace

ONYX_REGISTER_KERNEL("", "NonZero", 1, kLatestOpset, NonZeroKernel);

}  // namespace onyx
