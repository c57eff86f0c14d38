#include "providers/cuda/cuda_arena.h"

#include <algorithm>
#include <map>
#include <mutex>

namespace onyx {

// A block of device memory: from the arena's stream-ordered pool (freed with cudaFreeAsync,
// which does not wait for the device) or, while a run is recorded or where the pool is
// missing, from cudaMalloc (freed with cudaFree, which waits for the whole device).
struct CudaBlock {
  void* ptr = nullptr;
  bool pooled = false;
};

struct CudaArena::State {
  int device_id = 0;
  cudaStream_t stream = nullptr;
  cudaMemPool_t pool = nullptr;  // null: the driver has no memory pools; cudaMalloc alone
  size_t max_bytes = 0;  // 0: no cap
  std::mutex mu;
  std::multimap<size_t, CudaBlock> cached;  // rounded size -> block
  bool closed = false;
  bool holding = false;                       // a run is being recorded
  std::vector<std::shared_ptr<void>> held;  // the blocks handed out while holding
  Stats stats;

  ~State() {
    if (pool) cudaMemPoolDestroy(pool);  // its memory goes back once every block is freed
  }

  void free_block(const CudaBlock& b) {
    cudaSetDevice(device_id);
    // A closed arena's stream may be gone; cudaFree also takes pool memory (and waits).
    if (b.pooled && !closed) cudaFreeAsync(b.ptr, stream);
    else cudaFree(b.ptr);
    ++stats.device_frees;
  }

  // Frees cached blocks until `need` more bytes fit under the cap (all of them when need is
  // SIZE_MAX). Caller holds mu.
  void evict(size_t need) {
    while (!cached.empty() && (need == SIZE_MAX || (max_bytes && stats.bytes_in_use + stats.bytes_cached + need > max_bytes))) {
      auto it = std::prev(cached.end());  // the largest first
      free_block(it->second);
      stats.bytes_cached -= it->first;
      cached.erase(it);
    }
  }

  void release(CudaBlock b, size_t rounded) {
    std::lock_guard<std::mutex> lock(mu);
    stats.bytes_in_use -= rounded;
    const size_t cache_cap = 2 * stats.peak_bytes_in_use;
    if (closed || (stats.bytes_cached + rounded > cache_cap && !holding)) {
      free_block(b);
      return;
    }
    cached.emplace(rounded, b);
    stats.bytes_cached += rounded;
  }

  // A new block of `rounded` bytes, or a null ptr. Caller holds mu.
  CudaBlock allocate_new(size_t rounded) {
    CudaBlock b;
    cudaSetDevice(device_id);
    if (pool && !holding) {  // a recording would turn the pool's calls into graph nodes
      b.pooled = cudaMallocFromPoolAsync(&b.ptr, rounded, pool, stream) == cudaSuccess;
      if (!b.pooled) {
        cudaGetLastError();
        b.ptr = nullptr;
      }
    }
    if (!b.ptr && cudaMalloc(&b.ptr, rounded) != cudaSuccess) {
      cudaGetLastError();  // clear the error state of this failure
      b.ptr = nullptr;
    }
    if (b.ptr) ++stats.device_allocations;
    return b;
  }
};

namespace {
size_t round_request(size_t bytes) {
  constexpr size_t kSmall = 512, kLarge = size_t(1) << 20;
  if (bytes == 0) bytes = 1;
  return bytes < kLarge ? (bytes + kSmall - 1) / kSmall * kSmall : (bytes + kLarge - 1) / kLarge * kLarge;
}
}  // namespace

CudaArena::CudaArena(int device_id, cudaStream_t stream, size_t max_bytes) : state_(std::make_shared<State>()) {
  state_->device_id = device_id;
  state_->stream = stream;
  state_->max_bytes = max_bytes;
  // The pool keeps what is freed to it until trim(), so blocks that leave the cache come back
  // from it without a trip to the driver's allocator; under a memory limit it keeps no more
  // than the limit (its release threshold: what it holds at a synchronisation beyond that
  // goes back to the driver).
  int supported = 0;
  if (cudaDeviceGetAttribute(&supported, cudaDevAttrMemoryPoolsSupported, device_id) == cudaSuccess && supported) {
    cudaMemPoolProps props{};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = device_id;
    if (cudaMemPoolCreate(&state_->pool, &props) == cudaSuccess) {
      uint64_t keep = max_bytes ? uint64_t(max_bytes) : UINT64_MAX;
      cudaMemPoolSetAttribute(state_->pool, cudaMemPoolAttrReleaseThreshold, &keep);
    } else {
      state_->pool = nullptr;
    }
  }
  cudaGetLastError();
}

CudaArena::~CudaArena() {
  std::lock_guard<std::mutex> lock(state_->mu);
  state_->closed = true;  // blocks still held are freed when their tensors die
  state_->evict(SIZE_MAX);
}

std::shared_ptr<Buffer> CudaArena::allocate(size_t bytes, DataType dtype, bool zero_fill) {
  if (dtype == DataType::kString) return nullptr;
  const size_t rounded = round_request(bytes);
  CudaBlock block;
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    if (auto it = state_->cached.find(rounded); it != state_->cached.end()) {
      block = it->second;
      state_->cached.erase(it);
      state_->stats.bytes_cached -= rounded;
      ++state_->stats.reused_blocks;
    } else {
      if (!state_->holding) state_->evict(rounded);
      if (state_->max_bytes && state_->stats.bytes_in_use + state_->stats.bytes_cached + rounded > state_->max_bytes)
        return nullptr;
      block = state_->allocate_new(rounded);
      if (!block.ptr && !state_->holding) {
        state_->evict(SIZE_MAX);
        if (state_->pool) {
          cudaStreamSynchronize(state_->stream);  // the pool's freed blocks are reusable once the stream is done
          cudaMemPoolTrimTo(state_->pool, 0);
        }
        block = state_->allocate_new(rounded);
      }
      if (!block.ptr) throw std::bad_alloc();
    }
    state_->stats.bytes_in_use += rounded;
    state_->stats.peak_bytes_in_use = std::max(state_->stats.peak_bytes_in_use, state_->stats.bytes_in_use);
  }
  void* p = block.ptr;
  if (zero_fill && bytes) cudaMemsetAsync(p, 0, bytes, state_->stream);
  std::shared_ptr<State> state = state_;
  std::shared_ptr<void> keeper(p, [state, block, rounded](void*) { state->release(block, rounded); });
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    if (state_->holding) state_->held.push_back(keeper);
  }
  return std::make_shared<Buffer>(p, bytes, std::move(keeper), device());
}

size_t CudaArena::limit() const { return state_->max_bytes; }

Device CudaArena::device() const { return Device{Device::Type::kCuda, state_->device_id}; }

void CudaArena::trim() {
  std::lock_guard<std::mutex> lock(state_->mu);
  state_->evict(SIZE_MAX);
  if (state_->pool) {
    cudaStreamSynchronize(state_->stream);
    cudaMemPoolTrimTo(state_->pool, 0);
  }
}

void CudaArena::begin_hold() {
  std::lock_guard<std::mutex> lock(state_->mu);
  state_->holding = true;
}

std::vector<std::shared_ptr<void>> CudaArena::end_hold() {
  std::lock_guard<std::mutex> lock(state_->mu);
  state_->holding = false;
  std::vector<std::shared_ptr<void>> held;
  held.swap(state_->held);
  return held;
}

CudaArena::Stats CudaArena::stats() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->stats;
}

}  // namespace onyx
