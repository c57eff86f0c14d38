#include "onnx/raw_data_lift.h"

#include <cstdint>

namespace onyx::onnx_format {
namespace {

// Field numbers of onnx.proto.
constexpr uint32_t kModelGraph = 7;
constexpr uint32_t kGraphInitializer = 5;
constexpr uint32_t kTensorRawData = 9;
constexpr int kLengthDelimited = 2;

// One field of a message: its key at [begin, key_end), its payload at [payload, end).
struct Field {
  uint32_t number = 0;
  int wire_type = 0;
  size_t begin = 0, key_end = 0, payload = 0, end = 0;
};

bool read_varint(const char* d, size_t limit, size_t& pos, uint64_t& v) {
  v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (pos >= limit) return false;
    const uint8_t b = uint8_t(d[pos++]);
    if (shift == 63 && b > 1) return false;  // more than 64 bits
    v |= uint64_t(b & 0x7f) << shift;
    if (b < 0x80) return true;
  }
  return false;
}

// Reads the field at `pos` of a message ending at `limit` and moves past it; false for bytes
// protobuf would not read as a field this walk can skip.
bool next_field(const char* d, size_t limit, size_t& pos, Field& f) {
  f.begin = pos;
  uint64_t key = 0;
  if (!read_varint(d, limit, pos, key)) return false;
  if ((key >> 3) == 0 || (key >> 3) > 0x1fffffff) return false;
  f.number = uint32_t(key >> 3);
  f.wire_type = int(key & 7);
  f.key_end = pos;
  switch (f.wire_type) {
    case 0: {
      uint64_t ignored = 0;
      if (!read_varint(d, limit, pos, ignored)) return false;
      f.payload = f.key_end;
      break;
    }
    case 1:
    case 5: {
      const size_t n = f.wire_type == 1 ? 8 : 4;
      if (limit - pos < n) return false;
      f.payload = pos;
      pos += n;
      break;
    }
    case kLengthDelimited: {
      uint64_t n = 0;
      if (!read_varint(d, limit, pos, n) || n > limit - pos) return false;
      f.payload = pos;
      pos += size_t(n);
      break;
    }
    default:
      return false;  // groups (3, 4) and the unused wire types 6, 7
  }
  f.end = pos;
  return true;
}

void append_varint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(char(uint8_t(v) | 0x80));
    v >>= 7;
  }
  out.push_back(char(v));
}

// The one raw_data field of the TensorProto `tensor`; false when it has none, several, or
// bytes this walk does not read.
bool single_raw_data(const char* d, const Field& tensor, Field& raw, bool& unreadable) {
  int count = 0;
  size_t pos = tensor.payload;
  Field f;
  while (pos < tensor.end) {
    if (!next_field(d, tensor.end, pos, f)) {
      unreadable = true;
      return false;
    }
    if (f.number != kTensorRawData) continue;
    if (f.wire_type != kLengthDelimited) {
      unreadable = true;
      return false;
    }
    raw = f;
    ++count;
  }
  return count == 1;
}

}  // namespace

std::optional<ModelSkeleton> lift_raw_data(const char* d, size_t size, size_t min_bytes) {
  Field f, graph;
  bool has_graph = false;
  for (size_t pos = 0; pos < size;) {
    if (!next_field(d, size, pos, f)) return std::nullopt;
    if (f.number != kModelGraph) continue;
    // Protobuf merges repeated occurrences of a message field; keep to the plain case.
    if (f.wire_type != kLengthDelimited || has_graph) return std::nullopt;
    graph = f;
    has_graph = true;
  }
  if (!has_graph) return std::nullopt;

  ModelSkeleton skeleton;
  std::string graph_bytes;
  int index = 0;
  for (size_t pos = graph.payload; pos < graph.end;) {
    if (!next_field(d, graph.end, pos, f)) return std::nullopt;
    if (f.number != kGraphInitializer) {
      graph_bytes.append(d + f.begin, f.end - f.begin);
      continue;
    }
    if (f.wire_type != kLengthDelimited) return std::nullopt;
    const int initializer = index++;
    Field raw;
    bool unreadable = false;
    const bool lift = single_raw_data(d, f, raw, unreadable) && raw.end - raw.payload >= min_bytes;
    if (unreadable) return std::nullopt;
    if (!lift) {
      graph_bytes.append(d + f.begin, f.end - f.begin);
      continue;
    }
    graph_bytes.append(d + f.begin, f.key_end - f.begin);
    append_varint(graph_bytes, (f.end - f.payload) - (raw.end - raw.begin));
    graph_bytes.append(d + f.payload, raw.begin - f.payload);
    graph_bytes.append(d + raw.end, f.end - raw.end);
    skeleton.lifted.push_back({initializer, raw.payload, raw.end - raw.payload});
  }
  if (skeleton.lifted.empty()) return std::nullopt;

  for (size_t pos = 0; pos < size;) {
    next_field(d, size, pos, f);  // read once above
    if (f.number != kModelGraph) {
      skeleton.bytes.append(d + f.begin, f.end - f.begin);
      continue;
    }
    skeleton.bytes.append(d + f.begin, f.key_end - f.begin);
    append_varint(skeleton.bytes, graph_bytes.size());
    skeleton.bytes.append(graph_bytes);
  }
  return skeleton;
}

}  // namespace onyx::onnx_format
