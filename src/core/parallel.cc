#include "core/parallel.h"

namespace onyx {

// Serial for now; the intra-op pool (OpenMP, shared with oneDNN) plugs in here.
void parallel_for(int64_t n, int64_t grain, const std::function<void(int64_t, int64_t)>& fn) {
  (void)grain;
  if (n > 0) fn(0, n);
}

}  // namespace onyx
