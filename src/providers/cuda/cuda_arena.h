// CudaArena: device memory for the tensors CUDA kernels produce, cached between runs.
//
// Requests are rounded up (to 512 bytes below 1 MiB, to 1 MiB above) and a released block
// goes to a cache keyed by its rounded size, where the next request of that size takes it.
// A miss takes a block from the arena's own stream-ordered CUDA memory pool, which keeps
// the memory given back to it until trim() (under a memory limit, no more than the limit):
// a block leaving the cache goes back there with cudaFreeAsync, so neither waits for the
// device (cudaFree would, on every miss of a model whose tensors come in many sizes, as
// convolution networks' do).
// Blocks are released when the last tensor over them dies; the stream orders every use, so a
// block reused by a later kernel on the same stream is safe without waiting. Bounded: the
// cache keeps at most twice the most bytes ever in use at once, and with a memory limit,
// in-use plus cached bytes never pass it (the cache is emptied first; then the request gets
// null, which the run reports as a memory-limit error). trim() frees the cache and empties
// the pool.
//
// While a run is recorded (CUDA graphs), the arena holds: every block it hands out is also
// kept by the hold, so no block the recording uses is given to anyone else after its tensor
// dies, nothing is freed, and new blocks come from cudaMalloc (the pool's calls would become
// nodes of the recorded graph).
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <memory>
#include <vector>

#include "core/allocator.h"
#include "core/tensor.h"

namespace onyx {

class CudaArena final : public Allocator {
 public:
  CudaArena(int device_id, cudaStream_t stream, size_t max_bytes);
  ~CudaArena() override;
  // Zero-fill is a cudaMemsetAsync on the stream. Strings cannot live on a device (null).
  std::shared_ptr<Buffer> allocate(size_t bytes, DataType dtype, bool zero_fill = true) override;
  size_t limit() const override;
  Device device() const override;
  void trim();
  // Starts holding (see above). Blocks handed out from now on stay in use until the keepers
  // end_hold returns are dropped.
  void begin_hold();
  std::vector<std::shared_ptr<void>> end_hold();

  struct Stats {
    size_t bytes_in_use = 0;
    size_t peak_bytes_in_use = 0;
    size_t bytes_cached = 0;
    size_t reused_blocks = 0;
    size_t device_allocations = 0;  // blocks taken from the pool or cudaMalloc
    size_t device_frees = 0;        // blocks given back to them
  };
  Stats stats() const;

 private:
  struct State;
  std::shared_ptr<State> state_;
};

}  // namespace onyx
