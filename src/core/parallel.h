// parallel_for: the one way kernels use threads, so the pool can change without touching
// kernels. fn(begin, end) is called on disjoint ranges covering [0, n); `grain` is the
// smallest range worth a task.
//
// The pool is OpenMP's (libgomp), the same one oneDNN uses, so the two never fight over the
// cores. Ranges are handed out dynamically in several tiles per thread; the calling thread
// works too. Inside a parallel region (nested calls) fn runs serially on the caller.
#pragma once
#include <cstdint>
#include <functional>

namespace onyx {

void parallel_for(int64_t n, int64_t grain, const std::function<void(int64_t, int64_t)>& fn);

// Sets how many threads parallel_for (and oneDNN) use for work started by the calling thread;
// 0 means one per available core. Sessions call this at the start of each run with their
// intra-op thread count.
void set_intra_op_threads(int threads);

// The number of threads parallel_for would use now from the calling thread.
int intra_op_threads();

// While it lives (when `on`), floating-point denormals are flushed to zero (x86's MXCSR FTZ
// and DAZ bits) on the calling thread and on the intra-op pool's threads, as ONNX Runtime's
// session.set_denormal_as_zero does: arithmetic on values below 1.2e-38 (softmax tails, ...)
// otherwise runs up to a hundred times slower. The calling thread gets its own mode back at
// the end; the pool's threads get the default (both bits clear). A no-op elsewhere than x86.
class DenormalsAsZero {
 public:
  explicit DenormalsAsZero(bool on);
  ~DenormalsAsZero();
  DenormalsAsZero(const DenormalsAsZero&) = delete;
  DenormalsAsZero& operator=(const DenormalsAsZero&) = delete;

 private:
  bool on_ = false;
  unsigned saved_ = 0;
};

}  // namespace onyx
