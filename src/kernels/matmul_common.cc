#include "kernels/matmul_common.h"

#include "kernels/broadcast.h"
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

template void batched_matmul<float>(const MatMulPlan&, const float*, const float*, float*);
template void batched_matmul<double>(const MatMulPlan&, const double*, const double*, double*);
template void batched_matmul<uint64_t>(const MatMulPlan&, const uint64_t*, const uint64_t*, uint64_t*);

}  // namespace onyx
