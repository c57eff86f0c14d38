#include "core/allocator.h"

#include <cstdlib>
#include <cstring>
#include <new>

#include "core/tensor.h"

namespace onyx {

CpuAllocator& CpuAllocator::instance() {
  static CpuAllocator* a = new CpuAllocator();
  return *a;
}

std::shared_ptr<Buffer> CpuAllocator::allocate(size_t bytes, DataType dtype, bool zero_fill) {
  return Buffer::allocate(bytes, dtype, zero_fill);
}

namespace {
// Size classes: multiples of 64 bytes up to 4 KiB, then powers of two.
size_t size_class(size_t bytes) {
  if (bytes <= 4096) return (bytes + 63) / 64 * 64;
  size_t c = 4096;
  while (c < bytes) c *= 2;
  return c;
}
}  // namespace

struct Arena::State {
  std::mutex mu;
  bool closed = false;
  size_t cache_limit = 0;  // 0: twice the peak in use
  size_t max_bytes = 0;    // 0: no cap on in use + cached
  std::map<size_t, std::vector<void*>> free_blocks;  // by size class
  Stats stats;

  void release(void* p, size_t cls) {
    std::lock_guard<std::mutex> lock(mu);
    stats.bytes_in_use -= cls;
    const size_t limit = cache_limit ? cache_limit : 2 * stats.peak_bytes_in_use;
    if (closed || cls > limit) {
      std::free(p);
      return;
    }
    // Make room by evicting blocks of other size classes (largest first): the cache follows
    // the shapes of recent runs instead of filling up with the sizes of old ones.
    for (auto it = free_blocks.rbegin(); stats.bytes_cached + cls > limit && it != free_blocks.rend();) {
      if (it->first == cls || it->second.empty()) {
        ++it;
        continue;
      }
      std::free(it->second.back());
      it->second.pop_back();
      stats.bytes_cached -= it->first;
    }
    if (stats.bytes_cached + cls > limit) {
      std::free(p);
    } else {
      free_blocks[cls].push_back(p);
      stats.bytes_cached += cls;
    }
  }
  void free_all() {
    for (auto& [cls, blocks] : free_blocks)
      for (void* p : blocks) std::free(p);
    free_blocks.clear();
    stats.bytes_cached = 0;
  }
};

Arena::Arena() : state_(std::make_shared<State>()) {}
Arena::~Arena() { close(); }

std::shared_ptr<Buffer> Arena::allocate(size_t bytes, DataType dtype, bool zero_fill) {
  if (dtype == DataType::kString) return Buffer::allocate(bytes, dtype);
  const size_t cls = size_class(bytes ? bytes : 1);
  void* p = nullptr;
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    auto it = state_->free_blocks.find(cls);
    if (it != state_->free_blocks.end() && !it->second.empty()) {
      p = it->second.back();
      it->second.pop_back();
      ++state_->stats.reused_blocks;
      state_->stats.bytes_cached -= cls;
    }
    if (!p && state_->max_bytes) {
      if (state_->stats.bytes_in_use + state_->stats.bytes_cached + cls > state_->max_bytes) state_->free_all();
      if (state_->stats.bytes_in_use + cls > state_->max_bytes) return nullptr;
    }
    state_->stats.bytes_in_use += cls;
    state_->stats.peak_bytes_in_use = std::max(state_->stats.peak_bytes_in_use, state_->stats.bytes_in_use);
    if (!p) state_->stats.bytes_from_system += cls;
  }
  if (!p) {
    p = std::aligned_alloc(64, cls);
    if (!p) throw std::bad_alloc();
  }
  if (zero_fill) std::memset(p, 0, bytes);
  std::shared_ptr<State> state = state_;
  auto buffer = std::make_shared<Buffer>(p, bytes, std::shared_ptr<void>(p, [state, cls](void* q) { state->release(q, cls); }));
  buffer->set_origin(state.get());
  return buffer;
}

void Arena::close() {
  std::lock_guard<std::mutex> lock(state_->mu);
  state_->closed = true;
  state_->free_all();
}

void Arena::trim() {
  std::lock_guard<std::mutex> lock(state_->mu);
  state_->free_all();
}

void Arena::set_cache_limit(size_t bytes) {
  std::lock_guard<std::mutex> lock(state_->mu);
  state_->cache_limit = bytes;
}

void Arena::set_max_bytes(size_t bytes) {
  std::lock_guard<std::mutex> lock(state_->mu);
  state_->max_bytes = bytes;
}

size_t Arena::limit() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->max_bytes;
}

Arena::Stats Arena::stats() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->stats;
}

}  // namespace onyx
