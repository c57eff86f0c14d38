// STREAM-style memory bandwidth of this machine, the bound for decoding kernels that stream
// weights once per token. Three kernels over arrays far larger than the caches, each run
// `--reps` times on `--threads` OpenMP threads, the best time reported (as STREAM does):
//   triad  a[i] = b[i] + s * c[i]   counts 3 arrays of bytes (reads b, c; writes a)
//   read   sum += b[i] * c[i]       counts 2 arrays (reads only: what a weight stream does)
//   copy   a[i] = b[i]              counts 2 arrays
// and the float32 multiply-add peak of the same threads (fma_gflops: 12 independent chains of
// 16-float vectors per thread, in registers), the bound for compute-heavy kernels.
// Usage: onyx_stream_bench [--threads N] [--mb MB_PER_ARRAY] [--reps R]; prints one JSON line.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

namespace {

double seconds_now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

template <typename F>
double best_seconds(int reps, F&& f) {
  double best = 1e30;
  for (int r = 0; r < reps; ++r) {
    const double t0 = seconds_now();
    f();
    best = std::min(best, seconds_now() - t0);
  }
  return best;
}

// Float32 GFLOP/s of `threads` threads doing nothing but multiply-adds (2 FLOPs each).
double fma_gflops(int threads, int reps, float* sink) {
  typedef float v16 __attribute__((vector_size(64)));
  constexpr int kChains = 12;
  const long iters = 20000000;
  float total = 0;
  const double t = best_seconds(reps, [&] {
#pragma omp parallel num_threads(threads) reduction(+ : total)
    {
      v16 acc[kChains];
      const v16 zero = {};
      const v16 mul = zero + 0.999f, add = zero + 1e-4f;
#pragma GCC unroll 12
      for (int j = 0; j < kChains; ++j) acc[j] = zero + float(j) * 1e-3f;
      for (long k = 0; k < iters; ++k) {
#pragma GCC unroll 12
        for (int j = 0; j < kChains; ++j) acc[j] = acc[j] * mul + add;
      }
      for (int j = 0; j < kChains; ++j) total += acc[j][0];
    }
  });
  *sink += total;
  return double(threads) * iters * kChains * 16 * 2 / t / 1e9;
}

}  // namespace

int main(int argc, char** argv) {
  int threads = 1, reps = 10;
  long mb = 256;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--threads")) threads = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--mb")) mb = std::atol(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--reps")) reps = std::atoi(argv[i + 1]);
    else {
      std::fprintf(stderr, "usage: %s [--threads N] [--mb MB_PER_ARRAY] [--reps R]\n", argv[0]);
      return 2;
    }
  }
  if (threads < 1 || mb < 1 || reps < 1) {
    std::fprintf(stderr, "--threads, --mb and --reps must be positive\n");
    return 2;
  }
  omp_set_num_threads(threads);
  const long n = mb * (1L << 20) / long(sizeof(double));
  // Uninitialised, then first touched by the threads that use them (pages on their nodes).
  std::unique_ptr<double[]> a(new double[size_t(n)]), b(new double[size_t(n)]), c(new double[size_t(n)]);
  double* pa = a.get();
  const double *pb = b.get(), *pc = c.get();
#pragma omp parallel for schedule(static)
  for (long i = 0; i < n; ++i) pa[i] = 0.0, b[i] = 1.0, c[i] = 2.0;
  const double s = 3.0;
  const double triad = best_seconds(reps, [&] {
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; ++i) pa[i] = pb[i] + s * pc[i];
  });
  double sink = 0;
  const double read = best_seconds(reps, [&] {
    double sum = 0;
#pragma omp parallel reduction(+ : sum)
    {
      // Eight independent sums per thread, so the adds' latency does not bound the stream.
      double part[8] = {0, 0, 0, 0, 0, 0, 0, 0};
#pragma omp for schedule(static) nowait
      for (long i = 0; i < n / 8; ++i)
        for (int u = 0; u < 8; ++u) part[u] += pb[8 * i + u] * pc[8 * i + u];
      for (double p : part) sum += p;
    }
    sink += sum;
  });
  const double copy = best_seconds(reps, [&] {
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; ++i) pa[i] = pb[i];
  });
  float fma_sink = 0;
  const double fma = fma_gflops(threads, std::min(reps, 3), &fma_sink);
  const double bytes = double(n) * sizeof(double);
  std::printf("{\"threads\": %d, \"mb_per_array\": %ld, \"triad_gbs\": %.1f, \"read_gbs\": %.1f, \"copy_gbs\": %.1f, "
              "\"fma_gflops\": %.1f, \"check\": %.0f}\n",
              threads, mb, 3 * bytes / triad / 1e9, 2 * bytes / read / 1e9, 2 * bytes / copy / 1e9, fma,
              sink > 0 && fma_sink != 0 ? 1.0 : 0.0);
  return 0;
}
