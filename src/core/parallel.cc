#include "core/parallel.h"

#include <algorithm>

#include <omp.h>

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#define ONYX_HAS_MXCSR 1
#endif

namespace onyx {

void parallel_for(int64_t n, int64_t grain, const std::function<void(int64_t, int64_t)>& fn) {
  if (n <= 0) return;
  grain = std::max<int64_t>(grain, 1);
  const int64_t threads = omp_in_parallel() ? 1 : omp_get_max_threads();
  const int64_t most_tasks = (n + grain - 1) / grain;
  if (threads <= 1 || most_tasks <= 1) {
    fn(0, n);
    return;
  }
  // A few tiles per thread so that uneven tiles and a busy core even out.
  const int64_t tasks = std::min(most_tasks, threads * 4);
  const int64_t chunk = (n + tasks - 1) / tasks;
  const int64_t count = (n + chunk - 1) / chunk;
#pragma omp parallel for schedule(dynamic, 1) num_threads(int(std::min(threads, count)))
  for (int64_t t = 0; t < count; ++t) fn(t * chunk, std::min(n, (t + 1) * chunk));
}

void set_intra_op_threads(int threads) {
  omp_set_num_threads(threads > 0 ? threads : omp_get_num_procs());
}

int intra_op_threads() { return omp_in_parallel() ? 1 : omp_get_max_threads(); }

#ifdef ONYX_HAS_MXCSR
namespace {
constexpr unsigned kFlushBits = 0x8040;  // FTZ (bit 15) and DAZ (bit 6)

void set_pool_flush(bool on) {
  if (omp_in_parallel()) return;
#pragma omp parallel num_threads(omp_get_max_threads())
  {
    const unsigned csr = _mm_getcsr();
    _mm_setcsr(on ? (csr | kFlushBits) : (csr & ~kFlushBits));
  }
}
}  // namespace

DenormalsAsZero::DenormalsAsZero(bool on) : on_(on) {
  if (!on_) return;
  saved_ = _mm_getcsr();
  _mm_setcsr(saved_ | kFlushBits);
  set_pool_flush(true);
}

DenormalsAsZero::~DenormalsAsZero() {
  if (!on_) return;
  set_pool_flush(false);
  _mm_setcsr(saved_);
}
#else
DenormalsAsZero::DenormalsAsZero(bool on) : on_(on) {}
DenormalsAsZero::~DenormalsAsZero() = default;
#endif

}  // namespace onyx
