#include "providers/cuda/cuda_arena.h"

#include <algorithm>
#include <map>
#include <mutex>

namespace onyx {

struct CudaArena::State {
  int device_id = 0;
  cudaStream_t stream = nullptr;
  size_t max_bytes = 0;  // 0: no cap
  std::mutex mu;
  std::multimap<size_t, void*> cached;  // rounded size -> block
  bool closed = false;
  bool holding = false;                       // a run is being recorded
  std::vector<std::shared_ptr<void>> held;  // the blocks handed out while holding
  Stats stats;

  // Frees cached blocks until `need` more bytes fit under the cap (all of them when need is
  // SIZE_MAX). Caller holds mu.
  void evict(size_t need) {
    while (!cached.empty() && (need == SIZE_MAX || (max_bytes && stats.bytes_in_use + stats.bytes_cached + need > max_bytes))) {
      auto it = std::prev(cached.end());  // the largest first
      cudaSetDevice(device_id);
      cudaFree(it->second);
      stats.bytes_cached -= it->first;
      cached.erase(it);
    }
  }

  void release(void* p, size_t rounded) {
    std::lock_guard<std::mutex> lock(mu);
    stats.bytes_in_use -= rounded;
    const size_t cache_cap = 2 * stats.peak_bytes_in_use;
    if (closed || (stats.bytes_cached + rounded > cache_cap && !holding)) {
      cudaSetDevice(device_id);
      cudaFree(p);
      return;
    }
    cached.emplace(rounded, p);
    stats.bytes_cached += rounded;
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
}

CudaArena::~CudaArena() {
  std::lock_guard<std::mutex> lock(state_->mu);
  state_->closed = true;  // blocks still held are freed when their tensors die
  state_->evict(SIZE_MAX);
}

std::shared_ptr<Buffer> CudaArena::allocate(size_t bytes, DataType dtype, bool zero_fill) {
  if (dtype == DataType::kString) return nullptr;
  const size_t rounded = round_request(bytes);
  void* p = nullptr;
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    if (auto it = state_->cached.find(rounded); it != state_->cached.end()) {
      p = it->second;
      state_->cached.erase(it);
      state_->stats.bytes_cached -= rounded;
      ++state_->stats.reused_blocks;
    } else {
      if (!state_->holding) state_->evict(rounded);
      if (state_->max_bytes && state_->stats.bytes_in_use + state_->stats.bytes_cached + rounded > state_->max_bytes)
        return nullptr;
      cudaSetDevice(state_->device_id);
      if (cudaMalloc(&p, rounded) != cudaSuccess) {
        cudaGetLastError();  // clear the sticky-free error state of this failure
        if (!state_->holding) state_->evict(SIZE_MAX);
        if (state_->holding || cudaMalloc(&p, rounded) != cudaSuccess) {
          cudaGetLastError();
          throw std::bad_alloc();
        }
      }
    }
    state_->stats.bytes_in_use += rounded;
    state_->stats.peak_bytes_in_use = std::max(state_->stats.peak_bytes_in_use, state_->stats.bytes_in_use);
  }
  if (zero_fill && bytes) cudaMemsetAsync(p, 0, bytes, state_->stream);
  std::shared_ptr<State> state = state_;
  std::shared_ptr<void> keeper(p, [state, rounded](void* q) { state->release(q, rounded); });
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
