// parallel_for: the one way kernels use threads, so the pool can change without touching
// kernels. fn(begin, end) is called on disjoint ranges covering [0, n); `grain` is the
// smallest range worth a task.
#pragma once
#include <cstdint>
#include <functional>

namespace onyx {

void parallel_for(int64_t n, int64_t grain, const std::function<void(int64_t, int64_t)>& fn);

}  // namespace onyx
