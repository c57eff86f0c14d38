// Devices and allocators.
//
// Arena: the memory of runs. Intermediate tensors are allocated from it; when a tensor's
// last reference goes (its value's last reader ran), its block returns to the arena and the
// next allocation of that size class takes it again, so a run's intermediates share memory.
// A session keeps its arenas from run to run, so a steady run takes no memory from the system
// (and touches no fresh pages). close() hands the cached blocks back to the system; blocks
// still held (outputs returned to the caller) are freed normally when they die.
#pragma once
#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/data_type.h"

namespace onyx {

class Buffer;

// Where a tensor's bytes live. kSimulated is host memory that the runtime treats as a separate
// device (copies at its edges, no CPU kernel reads it): the placement tests' stand-in for a GPU.
struct Device {
  enum class Type { kCpu, kCuda, kSimulated };
  Type type = Type::kCpu;
  int index = 0;
  bool is_cpu() const { return type == Type::kCpu; }
  bool operator==(const Device& o) const { return type == o.type && (type == Type::kCpu || index == o.index); }
  bool operator!=(const Device& o) const { return !(*this == o); }
  std::string to_string() const {
    switch (type) {
      case Type::kCpu: return "cpu";
      case Type::kCuda: return "cuda:" + std::to_string(index);
      case Type::kSimulated: return "simulated:" + std::to_string(index);
    }
    return "?";
  }
};

class Allocator {
 public:
  virtual ~Allocator() = default;
  // A block of `bytes` for elements of `dtype`: zero-filled unless `zero_fill` is false (then
  // its contents are unspecified); strings are always constructed. Null when a limit of the
  // allocator refuses the request; std::bad_alloc when the system does.
  virtual std::shared_ptr<Buffer> allocate(size_t bytes, DataType dtype, bool zero_fill = true) = 0;
  // The limit that made allocate() return null, for messages (0: none).
  virtual size_t limit() const { return 0; }
  virtual Device device() const { return Device{}; }
};

// Plain aligned heap memory.
class CpuAllocator final : public Allocator {
 public:
  static CpuAllocator& instance();
  std::shared_ptr<Buffer> allocate(size_t bytes, DataType dtype, bool zero_fill = true) override;
};

class Arena final : public Allocator {
 public:
  Arena();
  ~Arena() override;
  std::shared_ptr<Buffer> allocate(size_t bytes, DataType dtype, bool zero_fill = true) override;
  // Frees the cached blocks; later releases go straight to the system.
  void close();
  // Frees the cached blocks (live ones stay in use and return to the cache when released).
  void trim();
  // Caps the bytes kept in the cache of released blocks: a released block that would pass the
  // cap goes back to the system. 0 (the default): twice the most bytes ever in use at once,
  // so that a run with new shapes cannot grow the cache past what runs really need.
  void set_cache_limit(size_t bytes);
  // Caps the bytes the arena holds, in use and cached together (0, the default: no cap): a
  // request that cannot fit even after the cache is emptied gets null from allocate().
  void set_max_bytes(size_t bytes);
  size_t limit() const override;
  // What Buffer::origin() holds for blocks this arena handed out.
  const void* identity() const { return state_.get(); }

  struct Stats {
    size_t bytes_in_use = 0;       // held by live tensors now
    size_t peak_bytes_in_use = 0;  // the most held at once
    size_t bytes_from_system = 0;  // obtained from the system over the arena's life
    size_t reused_blocks = 0;      // allocations served from a released block
    size_t bytes_cached = 0;       // in released blocks kept for reuse
  };
  Stats stats() const;

 private:
  struct State;
  std::shared_ptr<State> state_;
};

}  // namespace onyx
