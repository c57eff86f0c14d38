// Shared by the libFuzzer targets: deterministic small feeds for a session, so that a model
// found by the fuzzer can be run again from its bytes alone (tests/fuzz/README.md).
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/value.h"
#include "session/session.h"

namespace onyx::fuzz {

// FNV-1a of the bytes: the seed of every choice a target makes for one input.
inline uint64_t hash_bytes(const uint8_t* data, size_t size) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < size; ++i) h = (h ^ data[i]) * 1099511628211ull;
  return h;
}

// splitmix64: a tiny generator, identical on every platform.
struct Rng {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
};

// Tensors past this many elements are not made: the target checks onyx, not the machine.
inline constexpr int64_t kMaxFeedElements = 1 << 16;

// A feed for every input of `session` without an initializer default, or nullopt when one
// cannot be made small (a fixed dim too large, a non-tensor or string input). Symbolic dims
// get 1..3; integers are small (-2..5) so that indices and axes are mostly in range, floats
// are small values with an occasional NaN or infinity.
inline std::optional<std::vector<std::pair<std::string, Value>>> make_feeds(const Session& session, Rng& rng) {
  std::vector<std::pair<std::string, Value>> feeds;
  for (const ir::ValueInfo& in : session.inputs()) {
    if (session.input_has_default(in.name) && rng.next() % 2) continue;
    if (in.type.kind != ir::TypeInfo::Kind::kTensor || in.type.elem_type == DataType::kString ||
        in.type.elem_type == DataType::kUndefined || !in.type.shape.has_rank)
      return std::nullopt;
    Shape shape;
    int64_t count = 1;
    for (const Dim& d : in.type.shape.dims) {
      const int64_t size = d.value ? *d.value : int64_t(1 + rng.next() % 3);
      if (size < 0 || (size > 0 && count > kMaxFeedElements / size)) return std::nullopt;
      shape.push_back(size);
      count *= size;
    }
    auto tensor = Tensor::create(in.type.elem_type, shape);
    if (!tensor.ok()) return std::nullopt;
    Tensor t = std::move(*tensor);
    auto* bytes = static_cast<uint8_t*>(t.raw_data());
    const size_t item = t.itemsize();
    for (int64_t i = 0; i < t.numel(); ++i) {
      const uint64_t r = rng.next();
      uint8_t* at = bytes + size_t(i) * item;
      switch (t.dtype()) {
        case DataType::kFloat: {
          float v = float(int64_t(r % 17) - 8) / 4;
          if (r % 97 == 0) v = (r & 1) ? std::numeric_limits<float>::infinity() : std::numeric_limits<float>::quiet_NaN();
          std::memcpy(at, &v, sizeof v);
          break;
        }
        case DataType::kDouble: {
          const double v = double(int64_t(r % 17) - 8) / 4;
          std::memcpy(at, &v, sizeof v);
          break;
        }
        case DataType::kBool: *at = uint8_t(r & 1); break;
        default: {
          // Other types, integers included: a small signed value in the low bytes, sign
          // extended, which for float16/bfloat16 is just some bit pattern.
          const int64_t v = int64_t(r % 8) - 2;
          std::memcpy(at, &v, std::min(item, sizeof v));
          if (item > sizeof v) std::memset(at + sizeof v, 0, item - sizeof v);
        }
      }
    }
    feeds.emplace_back(in.name, Value(std::move(t)));
  }
  return feeds;
}

}  // namespace onyx::fuzz
