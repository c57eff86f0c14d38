#include "kernels/matmul_common.h"

#include <functional>
#include <type_traits>
#include <vector>

#include "kernels/broadcast.h"
#include "kernels/dispatch.h"
#include "kernels/gemm.h"

namespace onyx {

Result<MatMulPlan> plan_matmul(const Shape& a, const Shape& b) {
  if (a.empty() || b.empty())
    return invalid_argument("MatMul operands must have rank 1 or more, got ", shape_to_string(a), " and ",
                            shape_to_string(b));
  Shape a2 = a, b2 = b;
  if (a2.size() == 1) a2.insert(a2.begin(), 1);
  if (b2.size() == 1) b2.push_back(1);
  MatMulPlan plan;
  plan.m = a2[a2.size() - 2];
  plan.k = a2.back();
  plan.n = b2.back();
  if (b2[b2.size() - 2] != plan.k)
    return invalid_argument("MatMul inner dims differ: ", shape_to_string(a), " x ", shape_to_string(b));
  const Shape a_batch(a2.begin(), a2.end() - 2), b_batch(b2.begin(), b2.end() - 2);
  ONYX_ASSIGN_OR_RETURN(Shape batch, broadcast_shapes({a_batch, b_batch}));
  plan.out = batch;
  if (a.size() > 1) plan.out.push_back(plan.m);
  if (b.size() > 1) plan.out.push_back(plan.n);
  const int64_t count = shape_size(batch);
  if (count < 0) return invalid_argument("MatMul batch dims overflow");
  plan.a_offsets.resize(size_t(count));
  plan.b_offsets.resize(size_t(count));
  for_each_broadcast(batch, {a_batch, b_batch}, [&](int64_t i, const int64_t* off) {
    plan.a_offsets[size_t(i)] = off[0] * plan.m * plan.k;
    plan.b_offsets[size_t(i)] = off[1] * plan.k * plan.n;
  });
  return plan;
}

template <typename T>
void batched_matmul(const MatMulPlan& plan, const T* a, const T* b, T* y) {
  const int64_t count = int64_t(plan.a_offsets.size());
  const int64_t m = plan.m, n = plan.n, k = plan.k;
  // One B for every item and A items back to back: a single (count * M) x K product.
  bool fold = true;
  for (int64_t i = 0; i < count && fold; ++i)
    fold = plan.b_offsets[size_t(i)] == 0 && plan.a_offsets[size_t(i)] == i * m * k;
  if (fold) {
    gemm<T>(false, false, count * m, n, k, T(1), a, k, b, n, T(0), y, n);
    return;
  }
  for (int64_t i = 0; i < count; ++i)
    gemm<T>(false, false, m, n, k, T(1), a + plan.a_offsets[size_t(i)], k, b + plan.b_offsets[size_t(i)], n, T(0),
            y + i * m * n, n);
}

Result<std::vector<uint64_t>> subtract_zero_point(const Tensor& x, const Tensor& zero_point, bool is_a) {
  if (x.rank() < 1) return invalid_argument("matrix operand must have rank 1 or more, got ", x.describe());
  const Shape& xs = x.shape();
  const bool vector = xs.size() == 1;
  const int64_t k = is_a ? xs.back() : xs[vector ? 0 : xs.size() - 2];
  // m: the rows of A or the columns of B.
  const int64_t m = vector ? 1 : is_a ? xs[xs.size() - 2] : xs.back();
  // The zero point index of element i.
  std::function<int64_t(int64_t)> zp_index = [](int64_t) { return int64_t(0); };
  const bool has_zp = zero_point.defined();
  if (has_zp) {
    if (zero_point.dtype() != x.dtype())
      return invalid_argument("zero point ", zero_point.describe(), " must have the type of its operand ",
                              x.describe());
    Shape per_batch = xs;
    if (!vector) per_batch[is_a ? xs.size() - 1 : xs.size() - 2] = 1;
    if (zero_point.numel() == 1) {
      // per tensor
    } else if (zero_point.rank() == 1 && zero_point.dim(0) == m) {
      if (is_a) {
        zp_index = [k, m](int64_t i) { return (i / k) % m; };
      } else {
        zp_index = [m](int64_t i) { return i % m; };
      }
    } else if (zero_point.shape() == per_batch && !vector) {
      if (is_a) {
        zp_index = [k](int64_t i) { return i / k; };
      } else {
        zp_index = [k, m](int64_t i) { return i / (k * m) * m + i % m; };
      }
    } else {
      return invalid_argument("zero point ", zero_point.describe(), " does not fit operand ", x.describe());
    }
  }
  std::vector<uint64_t> out(size_t(x.numel()));
  Status st = dispatch<uint8_t, int8_t>(x.dtype(), [&]<typename Q>() -> Status {
    const Q* in = x.data<Q>();
    const Q* zp = has_zp ? zero_point.data<Q>() : nullptr;
    for (int64_t i = 0; i < x.numel(); ++i)
      out[size_t(i)] = uint64_t(int64_t(in[i]) - (zp ? int64_t(zp[zp_index(i)]) : 0));
    return Status::Ok();
  });
  if (!st.ok()) return st;
  return out;
}

template void batched_matmul<float>(const MatMulPlan&, const float*, const float*, float*);
template void batched_matmul<double>(const MatMulPlan&, const double*, const double*, double*);
template void batched_matmul<uint64_t>(const MatMulPlan&, const uint64_t*, const uint64_t*, uint64_t*);

Status matmul_reference(const MatMulPlan& plan, const Tensor& a, const Tensor& b, Tensor& y) {
  if (y.numel() == 0) return Status::Ok();
  return dispatch<ONYX_FLOAT_TYPES, int32_t, int64_t, uint32_t, uint64_t>(a.dtype(), [&]<typename T>() -> Status {
    using CT = std::conditional_t<std::is_integral_v<T>, uint64_t, compute_t<T>>;
    std::vector<CT> abuf, bbuf, ybuf;
    const CT* ac = as_compute_type<CT>(a.data<T>(), a.numel(), abuf);
    const CT* bc = as_compute_type<CT>(b.data<T>(), b.numel(), bbuf);
    if constexpr (std::is_same_v<T, CT>) {
      batched_matmul<CT>(plan, ac, bc, y.data<T>());
    } else {
      ybuf.resize(size_t(y.numel()));
      batched_matmul<CT>(plan, ac, bc, ybuf.data());
      T* out = y.data<T>();
      for (int64_t i = 0; i < y.numel(); ++i) out[i] = static_cast<T>(ybuf[size_t(i)]);
    }
    return Status::Ok();
  });
}

}  // namespace onyx
