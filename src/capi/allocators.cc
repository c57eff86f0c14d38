// Allocators, arena settings and memory descriptions through the C API.
//
// Contracts:
// - CreateAllocator(session, info): host memory ("Cpu", "CPU", or a CPU device with default
//   memory from CreateMemoryInfo_V2) gets a new counting allocator of 64-byte-aligned heap
//   blocks, the caller's to release with ReleaseAllocator. A session made with the config entry
//   "session.use_env_allocators" = "1" hands out instead the environment's shared allocator for
//   that memory, when there was one as the session was made (owned by the environment:
//   ReleaseAllocator leaves it be). CUDA memory: NOT_IMPLEMENTED where the session has the CUDA
//   provider (its device memory is reached through IoBinding), INVALID_ARGUMENT where it has
//   not; any other device: INVALID_ARGUMENT naming it.
// - Env-level shared allocators (RegisterAllocator, CreateAndRegisterAllocator(V2),
//   UnregisterAllocator, GetSharedAllocator): one per memory (same_memory). onyx's sessions do
//   NOT put their own tensors in them: a run's intermediates and outputs come from the session's
//   own arenas whatever "session.use_env_allocators" says; the shared allocators are only what
//   CreateAllocator and GetSharedAllocator hand out. A caller's registered allocator must stay
//   alive until it is unregistered and every session that took it is released.
// - CreateAndRegisterAllocator(V2) makes a counting host allocator; an OrtArenaCfg's max_mem caps
//   the bytes it has out at once (Alloc returns null past it). The other arena settings are
//   validated and kept, with no effect: the allocator is plain heap memory, not ORT's BFC arena,
//   so its Info says OrtDeviceAllocator whatever type the caller's info asked for.
// - AllocatorGetStats: an allocator onyx made here reports, truthfully, "InUse" (bytes asked for
//   and not yet freed), "TotalAllocated" (bytes held from the system, rounded up to 64),
//   "MaxInUse", "NumAllocs", "NumReserves", "MaxAllocSize" and, under a cap, "Limit". The default
//   allocator counts nothing and reports no pairs; a caller's allocator answers through its own
//   GetStats (NOT_IMPLEMENTED without one).
// - CreateMemoryInfo_V2 keeps every field it is given; enum arguments are read as ints (a C
//   caller may pass any value) and checked.
#include <climits>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>
#include <unordered_map>

#include "capi/capi_internal.h"
#include "capi/generated/api_declarations.h"
#include "providers/execution_provider.h"

namespace onyx::capi {
namespace {

// Host memory with counts: what CreateAllocator and CreateAndRegisterAllocator(V2) make.
struct CountingAllocator : OrtAllocator {
  OrtMemoryInfo info;
  size_t limit = 0;  // the most bytes out at once (an arena configuration's max_mem); 0: none
  OrtArenaCfg arena;  // kept as given (see the contracts above)

  std::mutex mu;
  std::unordered_map<void*, size_t> live;  // block -> bytes asked for
  size_t in_use = 0, held = 0, peak = 0, max_request = 0;
  uint64_t allocs = 0, reserves = 0;

  explicit CountingAllocator(OrtMemoryInfo described) : info(std::move(described)) {
    std::memset(static_cast<OrtAllocator*>(this), 0, sizeof(OrtAllocator));
    version = ORT_API_VERSION;
    Alloc = [](OrtAllocator* self, size_t size) -> void* { return static_cast<CountingAllocator*>(self)->take(size, false); };
    Reserve = [](OrtAllocator* self, size_t size) -> void* { return static_cast<CountingAllocator*>(self)->take(size, true); };
    Free = [](OrtAllocator* self, void* p) { static_cast<CountingAllocator*>(self)->give_back(p); };
    Info = [](const OrtAllocator* self) -> const OrtMemoryInfo* { return &static_cast<const CountingAllocator*>(self)->info; };
    GetStats = [](const OrtAllocator* self, OrtKeyValuePairs** out) -> OrtStatus* {
      return guarded("AllocatorGetStats", [&]() -> OrtStatus* {
        ONYX_CAPI_REQUIRE(out, "AllocatorGetStats");
        *out = const_cast<CountingAllocator*>(static_cast<const CountingAllocator*>(self))->stats().release();
        return nullptr;
      });
    };
  }

  void* take(size_t size, bool reserve) noexcept {
    try {
      std::lock_guard<std::mutex> lock(mu);
      if (limit && (size > limit || in_use > limit - size)) return nullptr;
      const size_t rounded = size ? (size + 63) / 64 * 64 : 64;
      if (rounded < size) return nullptr;  // overflow
      void* p = std::aligned_alloc(64, rounded);
      if (!p) return nullptr;
      live.emplace(p, size);
      in_use += size;
      held += rounded;
      peak = std::max(peak, in_use);
      max_request = std::max(max_request, size);
      ++(reserve ? reserves : allocs);
      return p;
    } catch (...) {
      return nullptr;
    }
  }

  // A block this allocator did not hand out is left alone (never passed to free()).
  void give_back(void* p) noexcept {
    if (!p) return;
    std::lock_guard<std::mutex> lock(mu);
    auto it = live.find(p);
    if (it == live.end()) return;
    in_use -= it->second;
    held -= it->second ? (it->second + 63) / 64 * 64 : 64;
    live.erase(it);
    std::free(p);
  }

  std::unique_ptr<OrtKeyValuePairs> stats() {
    auto pairs = std::make_unique<OrtKeyValuePairs>();
    std::lock_guard<std::mutex> lock(mu);
    auto add = [&](const char* key, uint64_t value) {
      pairs->keys.emplace_back(key);
      pairs->values.push_back(std::to_string(value));
    };
    if (limit) add("Limit", limit);
    add("InUse", in_use);
    add("TotalAllocated", held);
    add("MaxInUse", peak);
    add("NumAllocs", allocs);
    add("NumReserves", reserves);
    add("MaxAllocSize", max_request);
    pairs->refresh();
    return pairs;
  }
};

// The allocators CreateAllocator handed out and the caller has not released.
std::mutex& handed_out_mu() {
  static std::mutex mu;
  return mu;
}
std::set<OrtAllocator*>& handed_out() {
  static std::set<OrtAllocator*> all;
  return all;
}

std::string describe(const OrtMemoryInfo& info) { return "'" + info.name + "' (device id " + std::to_string(info.id) + ")"; }

// Adds `entry` to the environment's shared allocators; INVALID_ARGUMENT when one serves that
// memory already.
OrtStatus* register_shared(OrtEnv* env, std::shared_ptr<SharedAllocator> entry, const char* call) {
  std::lock_guard<std::mutex> lock(env->allocators->mu);
  for (const auto& e : env->allocators->entries)
    if (same_memory(*e->info, *entry->info))
      return make_status(ORT_INVALID_ARGUMENT, std::string(call) + ": the environment has an allocator for memory " +
                                                   describe(*entry->info) + " already (UnregisterAllocator it first)");
  env->allocators->entries.push_back(std::move(entry));
  return nullptr;
}

// A counting host allocator for the environment, capped by the arena settings' max_mem.
OrtStatus* register_host_allocator(OrtEnv* env, const OrtMemoryInfo* mem_info, const OrtArenaCfg* arena_cfg,
                                   const char* call) {
  if (!is_cpu_memory(*mem_info))
    return make_status(ORT_INVALID_ARGUMENT, std::string(call) + ": memory " + describe(*mem_info) +
                                                 " is not host memory; onyx shares host allocators only");
  OrtMemoryInfo described = *mem_info;
  described.type = OrtDeviceAllocator;  // plain heap memory, not an arena
  auto allocator = std::make_shared<CountingAllocator>(std::move(described));
  if (arena_cfg) {
    allocator->arena = *arena_cfg;
    allocator->limit = arena_cfg->max_mem;
  }
  auto entry = std::make_shared<SharedAllocator>();
  entry->info = std::make_shared<const OrtMemoryInfo>(*mem_info);
  entry->allocator = allocator.get();
  entry->owned = std::move(allocator);
  return register_shared(env, std::move(entry), call);
}

OrtStatus* check_extend_strategy(int strategy, const char* call) {
  if (strategy >= -1 && strategy <= 1) return nullptr;
  return make_status(ORT_INVALID_ARGUMENT, std::string(call) + ": arena_extend_strategy " + std::to_string(strategy) +
                                               " is not -1 (the default), 0 (kNextPowerOfTwo) or 1 (kSameAsRequested)");
}

}  // namespace

// Memory descriptions.

bool is_cpu_memory(const OrtMemoryInfo& info) {
  if (info.v2) return info.device_type == OrtMemoryInfoDeviceType_CPU && info.device_mem_type == OrtDeviceMemoryType_DEFAULT;
  return info.name == "Cpu" || info.name == "CPU";
}

bool same_memory(const OrtMemoryInfo& a, const OrtMemoryInfo& b) {
  const bool host_a = is_cpu_memory(a), host_b = is_cpu_memory(b);
  if (host_a || host_b) return host_a && host_b;
  if (!a.v2 && !b.v2) return a.name == b.name && a.id == b.id && a.mem_type == b.mem_type;
  return a.device_type == b.device_type && a.vendor_id == b.vendor_id && a.id == b.id &&
         a.device_mem_type == b.device_mem_type;
}

OrtStatus* ORT_API_CALL CreateMemoryInfo_V2(const char* name, enum OrtMemoryInfoDeviceType device_type,
                                            uint32_t vendor_id, int32_t device_id, enum OrtDeviceMemoryType mem_type,
                                            size_t alignment, enum OrtAllocatorType allocator_type,
                                            OrtMemoryInfo** out) {
  return guarded("CreateMemoryInfo_V2", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(name, "CreateMemoryInfo_V2");
    ONYX_CAPI_REQUIRE(out, "CreateMemoryInfo_V2");
    const int device = as_int(device_type), memory = as_int(mem_type), kind = as_int(allocator_type);
    if (device < OrtMemoryInfoDeviceType_CPU || device > OrtMemoryInfoDeviceType_NPU)
      return make_status(ORT_INVALID_ARGUMENT, "CreateMemoryInfo_V2: device type " + std::to_string(device) +
                                                   " is not one of CPU (0), GPU (1), FPGA (2), NPU (3)");
    if (memory != OrtDeviceMemoryType_DEFAULT && memory != OrtDeviceMemoryType_HOST_ACCESSIBLE)
      return make_status(ORT_INVALID_ARGUMENT, "CreateMemoryInfo_V2: memory type " + std::to_string(memory) +
                                                   " is neither DEFAULT (0) nor HOST_ACCESSIBLE (5)");
    if (kind < OrtDeviceAllocator || kind > OrtReadOnlyAllocator)
      return make_status(ORT_INVALID_ARGUMENT, "CreateMemoryInfo_V2: allocator type " + std::to_string(kind) +
                                                   " is not one of device (0), arena (1), read-only (2)");
    if (device_id < 0)
      return make_status(ORT_INVALID_ARGUMENT, "CreateMemoryInfo_V2: device id " + std::to_string(device_id) + " is negative");
    if (alignment & (alignment - 1))
      return make_status(ORT_INVALID_ARGUMENT, "CreateMemoryInfo_V2: alignment " + std::to_string(alignment) +
                                                   " is not a power of two (or 0, the default)");
    auto info = std::make_unique<OrtMemoryInfo>();
    info->name = name;
    info->id = device_id;
    info->type = OrtAllocatorType(kind);
    info->mem_type = memory == OrtDeviceMemoryType_HOST_ACCESSIBLE ? OrtMemTypeCPU : OrtMemTypeDefault;
    info->device_type = OrtMemoryInfoDeviceType(device);
    info->vendor_id = vendor_id;
    info->device_mem_type = OrtDeviceMemoryType(memory);
    info->alignment = alignment;
    info->v2 = true;
    *out = info.release();
    return nullptr;
  });
}

OrtDeviceMemoryType ORT_API_CALL MemoryInfoGetDeviceMemType(const OrtMemoryInfo* ptr) {
  return ptr ? ptr->device_mem_type : OrtDeviceMemoryType_DEFAULT;
}

uint32_t ORT_API_CALL MemoryInfoGetVendorId(const OrtMemoryInfo* ptr) { return ptr ? ptr->vendor_id : 0; }

// Allocators.

OrtStatus* ORT_API_CALL CreateAllocator(const OrtSession* session, const OrtMemoryInfo* mem_info, OrtAllocator** out) {
  return guarded("CreateAllocator", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(session, "CreateAllocator");
    ONYX_CAPI_REQUIRE(mem_info, "CreateAllocator");
    ONYX_CAPI_REQUIRE(out, "CreateAllocator");
    for (const auto& shared : session->env_allocators)
      if (same_memory(*shared->info, *mem_info)) {
        *out = shared->allocator;  // the environment's
        return nullptr;
      }
    if (is_cpu_memory(*mem_info)) {
      auto allocator = std::make_unique<CountingAllocator>(cpu_memory_info());
      std::lock_guard<std::mutex> lock(handed_out_mu());
      handed_out().insert(allocator.get());
      *out = allocator.release();
      return nullptr;
    }
    const bool cuda = mem_info->v2 ? mem_info->device_type == OrtMemoryInfoDeviceType_GPU && mem_info->vendor_id == 0x10DE
                                   : mem_info->name == "Cuda";
    if (cuda && mem_info->device_mem_type == OrtDeviceMemoryType_DEFAULT) {
      if (session->session->provider_for(Device{Device::Type::kCuda, mem_info->id}))
        return make_status(ORT_NOT_IMPLEMENTED, "CreateAllocator: onyx hands out host allocators only; the session's "
                                                "CUDA memory is reached through IoBinding (BindOutputToDevice)");
      return make_status(ORT_INVALID_ARGUMENT, "CreateAllocator: the session has no CUDA provider for device " +
                                                   std::to_string(mem_info->id));
    }
    return make_status(ORT_INVALID_ARGUMENT, "CreateAllocator: onyx has no allocator for memory " + describe(*mem_info) +
                                                 " (its sessions use host memory and CUDA devices)");
  });
}

// Releases an allocator CreateAllocator made; the default allocator, the environment's and a
// caller's own are left be. Blocks still out stay valid (and are not freed).
void ORT_API_CALL ReleaseAllocator(OrtAllocator* allocator) {
  if (!allocator) return;
  {
    std::lock_guard<std::mutex> lock(handed_out_mu());
    if (!handed_out().erase(allocator)) return;
  }
  delete static_cast<CountingAllocator*>(allocator);
}

OrtStatus* ORT_API_CALL CreateAndRegisterAllocator(OrtEnv* env, const OrtMemoryInfo* mem_info,
                                                   const OrtArenaCfg* arena_cfg) {
  return guarded("CreateAndRegisterAllocator", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(env, "CreateAndRegisterAllocator");
    ONYX_CAPI_REQUIRE(mem_info, "CreateAndRegisterAllocator");
    return register_host_allocator(env, mem_info, arena_cfg, "CreateAndRegisterAllocator");
  });
}

OrtStatus* ORT_API_CALL CreateAndRegisterAllocatorV2(OrtEnv* env, const char* provider_type,
                                                     const OrtMemoryInfo* mem_info, const OrtArenaCfg* arena_cfg,
                                                     const char* const* provider_options_keys,
                                                     const char* const* provider_options_values, size_t num_keys) {
  return guarded("CreateAndRegisterAllocatorV2", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(env, "CreateAndRegisterAllocatorV2");
    ONYX_CAPI_REQUIRE(provider_type, "CreateAndRegisterAllocatorV2");
    ONYX_CAPI_REQUIRE(mem_info, "CreateAndRegisterAllocatorV2");
    if (num_keys && (!provider_options_keys || !provider_options_values))
      return make_status(ORT_INVALID_ARGUMENT, "CreateAndRegisterAllocatorV2: null provider option keys or values");
    const std::string provider = ProviderRegistry::global().canonical(provider_type);
    if (provider.empty())
      return make_status(ORT_NOT_IMPLEMENTED, std::string("CreateAndRegisterAllocatorV2: onyx has no provider '") +
                                                  provider_type + "'");
    if (provider != "CPU")
      return make_status(ORT_NOT_IMPLEMENTED, "CreateAndRegisterAllocatorV2: onyx's " + provider +
                                                  " provider keeps its memory per session (its gpu_mem_limit option); "
                                                  "onyx shares host allocators only");
    if (num_keys)
      return make_status(ORT_INVALID_ARGUMENT, std::string("CreateAndRegisterAllocatorV2: the CPU allocator takes no "
                                                           "provider options (got '") +
                                                   (provider_options_keys[0] ? provider_options_keys[0] : "(null)") + "')");
    return register_host_allocator(env, mem_info, arena_cfg, "CreateAndRegisterAllocatorV2");
  });
}

OrtStatus* ORT_API_CALL RegisterAllocator(OrtEnv* env, OrtAllocator* allocator) {
  return guarded("RegisterAllocator", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(env, "RegisterAllocator");
    ONYX_CAPI_REQUIRE(allocator, "RegisterAllocator");
    if (!allocator->Alloc || !allocator->Free || !allocator->Info)
      return make_status(ORT_INVALID_ARGUMENT, "RegisterAllocator: the allocator lacks Alloc, Free or Info");
    const OrtMemoryInfo* info = allocator->Info(allocator);
    if (!info) return make_status(ORT_INVALID_ARGUMENT, "RegisterAllocator: the allocator's Info returned null");
    auto entry = std::make_shared<SharedAllocator>();
    entry->info = std::make_shared<const OrtMemoryInfo>(*info);
    entry->allocator = allocator;  // the caller's, not owned
    return register_shared(env, std::move(entry), "RegisterAllocator");
  });
}

OrtStatus* ORT_API_CALL UnregisterAllocator(OrtEnv* env, const OrtMemoryInfo* mem_info) {
  return guarded("UnregisterAllocator", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(env, "UnregisterAllocator");
    ONYX_CAPI_REQUIRE(mem_info, "UnregisterAllocator");
    std::lock_guard<std::mutex> lock(env->allocators->mu);
    auto& entries = env->allocators->entries;
    for (auto it = entries.begin(); it != entries.end(); ++it)
      if (same_memory(*(*it)->info, *mem_info)) {
        entries.erase(it);  // sessions that took it keep it (an allocator onyx made lives on with them)
        return nullptr;
      }
    return make_status(ORT_INVALID_ARGUMENT, "UnregisterAllocator: no allocator is registered for memory " +
                                                 describe(*mem_info));
  });
}

// The environment's allocator for the memory, else the default one for host memory, else null
// (not an error). Owned by the environment (or the process): not to be released.
OrtStatus* ORT_API_CALL GetSharedAllocator(OrtEnv* env, const OrtMemoryInfo* mem_info, OrtAllocator** allocator) {
  return guarded("GetSharedAllocator", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(env, "GetSharedAllocator");
    ONYX_CAPI_REQUIRE(mem_info, "GetSharedAllocator");
    ONYX_CAPI_REQUIRE(allocator, "GetSharedAllocator");
    std::lock_guard<std::mutex> lock(env->allocators->mu);
    for (const auto& e : env->allocators->entries)
      if (same_memory(*e->info, *mem_info)) {
        *allocator = e->allocator;
        return nullptr;
      }
    *allocator = is_cpu_memory(*mem_info) ? default_allocator() : nullptr;
    return nullptr;
  });
}

OrtStatus* ORT_API_CALL AllocatorGetStats(const OrtAllocator* ort_allocator, OrtKeyValuePairs** out) {
  return guarded("AllocatorGetStats", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(ort_allocator, "AllocatorGetStats");
    ONYX_CAPI_REQUIRE(out, "AllocatorGetStats");
    if (ort_allocator == default_allocator()) {  // counts nothing: no pairs
      *out = new OrtKeyValuePairs();
      return nullptr;
    }
    constexpr uint32_t kGetStatsSince = 23;  // the OrtAllocator version that added GetStats
    if (ort_allocator->version < kGetStatsSince || !ort_allocator->GetStats)
      return make_status(ORT_NOT_IMPLEMENTED, "AllocatorGetStats: the allocator has no GetStats");
    return ort_allocator->GetStats(ort_allocator, out);
  });
}

// Arena settings.

OrtStatus* ORT_API_CALL CreateArenaCfg(size_t max_mem, int arena_extend_strategy, int initial_chunk_size_bytes,
                                       int max_dead_bytes_per_chunk, OrtArenaCfg** out) {
  return guarded("CreateArenaCfg", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(out, "CreateArenaCfg");
    if (OrtStatus* bad = check_extend_strategy(arena_extend_strategy, "CreateArenaCfg")) return bad;
    if (initial_chunk_size_bytes < -1 || max_dead_bytes_per_chunk < -1)
      return make_status(ORT_INVALID_ARGUMENT, "CreateArenaCfg: initial_chunk_size_bytes and max_dead_bytes_per_chunk "
                                               "are byte counts, or -1 for the default");
    auto cfg = std::make_unique<OrtArenaCfg>();
    cfg->max_mem = max_mem;
    cfg->arena_extend_strategy = arena_extend_strategy;
    cfg->initial_chunk_size_bytes = initial_chunk_size_bytes;
    cfg->max_dead_bytes_per_chunk = max_dead_bytes_per_chunk;
    *out = cfg.release();
    return nullptr;
  });
}

OrtStatus* ORT_API_CALL CreateArenaCfgV2(const char* const* arena_config_keys, const size_t* arena_config_values,
                                         size_t num_keys, OrtArenaCfg** out) {
  return guarded("CreateArenaCfgV2", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(out, "CreateArenaCfgV2");
    if (num_keys && (!arena_config_keys || !arena_config_values))
      return make_status(ORT_INVALID_ARGUMENT, "CreateArenaCfgV2: null keys or values");
    auto cfg = std::make_unique<OrtArenaCfg>();
    auto as_int_field = [&](const std::string& key, size_t value, int& field) -> OrtStatus* {
      if (value > size_t(INT_MAX))
        return make_status(ORT_INVALID_ARGUMENT, "CreateArenaCfgV2: " + key + " = " + std::to_string(value) +
                                                     " does not fit an int");
      field = int(value);
      return nullptr;
    };
    for (size_t i = 0; i < num_keys; ++i) {
      if (!arena_config_keys[i])
        return make_status(ORT_INVALID_ARGUMENT, "CreateArenaCfgV2: key " + std::to_string(i) + " is null");
      const std::string key = arena_config_keys[i];
      const size_t value = arena_config_values[i];
      OrtStatus* bad = nullptr;
      if (key == "max_mem") {
        cfg->max_mem = value;
      } else if (key == "arena_extend_strategy") {
        if (value > 1)
          return make_status(ORT_INVALID_ARGUMENT, "CreateArenaCfgV2: arena_extend_strategy " + std::to_string(value) +
                                                       " is neither 0 (kNextPowerOfTwo) nor 1 (kSameAsRequested)");
        cfg->arena_extend_strategy = int(value);
      } else if (key == "initial_chunk_size_bytes") {
        bad = as_int_field(key, value, cfg->initial_chunk_size_bytes);
      } else if (key == "max_dead_bytes_per_chunk") {
        bad = as_int_field(key, value, cfg->max_dead_bytes_per_chunk);
      } else if (key == "initial_growth_chunk_size_bytes") {
        bad = as_int_field(key, value, cfg->initial_growth_chunk_size_bytes);
      } else if (key == "max_power_of_two_extend_bytes") {
        if (value > size_t(INT64_MAX))
          return make_status(ORT_INVALID_ARGUMENT, "CreateArenaCfgV2: max_power_of_two_extend_bytes = " +
                                                       std::to_string(value) + " does not fit an int64");
        cfg->max_power_of_two_extend_bytes = int64_t(value);
      } else {
        return make_status(ORT_INVALID_ARGUMENT, "CreateArenaCfgV2: unknown key '" + key +
                                                     "' (known: max_mem, arena_extend_strategy, initial_chunk_size_bytes, "
                                                     "max_dead_bytes_per_chunk, initial_growth_chunk_size_bytes, "
                                                     "max_power_of_two_extend_bytes)");
      }
      if (bad) return bad;
    }
    *out = cfg.release();
    return nullptr;
  });
}

void ORT_API_CALL ReleaseArenaCfg(OrtArenaCfg* input) { delete input; }

}  // namespace onyx::capi
