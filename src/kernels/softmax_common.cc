#include "kernels/softmax_common.h"

#include <algorithm>
#include <cmath>

#include "core/parallel.h"
#include "kernels/dispatch.h"
#include "kernels/vector_math.h"

namespace onyx {
namespace {

// Applies `kind` to the n values at x[0], x[stride], ... writing y likewise.
template <typename T>
void softmax_slice(const T* x, T* y, int64_t n, int64_t stride, SoftmaxKind kind) {
  using CT = compute_t<T>;
  int64_t arg = 0;
  CT best = static_cast<CT>(x[0]);
  for (int64_t j = 1; j < n; ++j) {
    const CT v = static_cast<CT>(x[j * stride]);
    if (v > best || (std::isnan(v) && !std::isnan(best))) {
      best = v;
      arg = j;
    }
  }
  if (kind == SoftmaxKind::kHardmax) {
    for (int64_t j = 0; j < n; ++j) y[j * stride] = static_cast<T>(CT(j == arg ? 1 : 0));
    return;
  }
  double sum = 0;
  for (int64_t j = 0; j < n; ++j) sum += std::exp(double(static_cast<CT>(x[j * stride]) - best));
  if (kind == SoftmaxKind::kSoftmax) {
    for (int64_t j = 0; j < n; ++j)
      y[j * stride] = static_cast<T>(static_cast<CT>(std::exp(double(static_cast<CT>(x[j * stride]) - best)) / sum));
  } else {
    const double log_sum = std::log(sum);
    for (int64_t j = 0; j < n; ++j)
      y[j * stride] = static_cast<T>(static_cast<CT>(double(static_cast<CT>(x[j * stride]) - best) - log_sum));
  }
}

}  // namespace

Status compute_softmax(KernelContext& ctx, SoftmaxKind kind, int64_t axis, int64_t opset) {
  const Tensor& x = ctx.input(0);
  const int64_t rank = x.rank();
  // The op works on `n` values spaced `inner` apart, `outer` times over.
  int64_t outer = 1, n = 1, inner = 1;
  if (opset >= 13) {
    if (axis < -rank || axis >= rank) return invalid_argument("axis ", axis, " is out of range for ", x.describe());
    if (axis < 0) axis += rank;
    for (int64_t d = 0; d < rank; ++d) (d < axis ? outer : d == axis ? n : inner) *= x.dim(d);
  } else {
    if (axis < -rank || axis > rank) return invalid_argument("axis ", axis, " is out of range for ", x.describe());
    if (axis < 0) axis += rank;
    for (int64_t d = 0; d < rank; ++d) (d < axis ? outer : n) *= x.dim(d);
  }
  ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output_uninitialized(0, x.dtype(), x.shape()));
  if (x.numel() == 0) return Status::Ok();
  if (x.dtype() == DataType::kFloat && inner == 1 && n > 0 && kind != SoftmaxKind::kHardmax) {
    const float* in = x.data<float>();
    float* out = y->data<float>();
    const int64_t grain = std::max<int64_t>(1, 8192 / n);
    parallel_for(outer, grain, [&](int64_t begin, int64_t end) {
      for (int64_t o = begin; o < end; ++o) {
        if (kind == SoftmaxKind::kSoftmax) vec::softmax_row(in + o * n, out + o * n, n);
        else vec::log_softmax_row(in + o * n, out + o * n, n);
      }
    });
    return Status::Ok();
  }
  return dispatch<ONYX_FLOAT_TYPES>(x.dtype(), [&]<typename T>() -> Status {
    const T* in = x.data<T>();
    T* out = y->data<T>();
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i) {
        const int64_t base = o * n * inner + i;
        softmax_slice<T>(in + base, out + base, n, inner, kind);
      }
    return Status::Ok();
  });
}

}  // namespace onyx
