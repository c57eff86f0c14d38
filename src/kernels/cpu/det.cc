// Det: the determinant of each square matrix in the last two dims ([*, M, M] -> [*]),
// by LU decomposition with partial pivoting in double precision.
#include <cmath>
#include <utility>

#include "kernels/dispatch.h"
#include "kernels/kernel.h"

namespace onyx {
namespace {

double determinant(std::vector<double>& a, int64_t m) {
  double det = 1.0;
  for (int64_t c = 0; c < m; ++c) {
    int64_t pivot = c;
    for (int64_t r = c + 1; r < m; ++r)
      if (std::fabs(a[size_t(r * m + c)]) > std::fabs(a[size_t(pivot * m + c)])) pivot = r;
    if (a[size_t(pivot * m + c)] == 0.0) return 0.0;
    if (pivot != c) {
      for (int64_t j = 0; j < m; ++j) std::swap(a[size_t(c * m + j)], a[size_t(pivot * m + j)]);
      det = -det;
    }
    const double p = a[size_t(c * m + c)];
    det *= p;
    for (int64_t r = c + 1; r < m; ++r) {
      const double f = a[size_t(r * m + c)] / p;
      if (f == 0.0) continue;
      for (int64_t j = c + 1; j < m; ++j) a[size_t(r * m + j)] -= f * a[size_t(c * m + j)];
    }
  }
  return det;
}

class DetKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const int64_t rank = x.rank();
    if (rank < 2 || x.dim(rank - 1) != x.dim(rank - 2))
      return invalid_argument("Det: the input must be [*, M, M], got ", x.describe());
    const int64_t m = x.dim(rank - 1);
    const Shape out_shape(x.shape().begin(), x.shape().end() - 2);
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output(0, x.dtype(), out_shape));
    return dispatch<ONYX_FLOAT_TYPES>(x.dtype(), [&]<typename T>() -> Status {
      const T* in = x.data<T>();
      std::vector<double> a(size_t(m * m), 0.0);
      for (int64_t b = 0; b < y->numel(); ++b) {
        for (int64_t i = 0; i < m * m; ++i) a[size_t(i)] = double(compute_t<T>(in[b * m * m + i]));
        y->data<T>()[b] = static_cast<T>(compute_t<T>(determinant(a, m)));
      }
      return Status::Ok();
    });
  }
};

}  // namespace

ONYX_REGISTER_KERNEL("", "Det", 1, kLatestOpset, DetKernel);

}  // namespace onyx
