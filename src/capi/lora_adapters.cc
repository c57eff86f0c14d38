// LoRA adapters through the C API: CreateLoraAdapter, CreateLoraAdapterFromArray,
// ReleaseLoraAdapter and RunOptionsAddActiveLoraAdapter, read from ORT's .onnx_adapter format.
//
// Contracts:
// - An adapter is a set of named tensors (its parameters). A LoRA model takes its low-rank
//   weights as graph inputs with initializer defaults (overridable initializers); a run whose
//   run options hold active adapters feeds each parameter as the model input of its name.
// - The C API's Run (session.cc) adds them to the caller's feeds (add_lora_feeds): a
//   parameter whose name is not an input of the model, or that the caller also feeds, or that
//   two active adapters both hold, is INVALID_ARGUMENT naming it. Other run paths
//   (RunWithBinding, RunAsync, ...) do not look at adapters.
// - The allocator argument: null or an allocator of CPU memory (the parameters live in onyx's
//   CPU memory either way); another device's is NOT_IMPLEMENTED.
// - The parameters are copied out of the file or the caller's bytes (the bytes may be freed
//   once the call returns) into a LoraParameters that the adapter and each run options it is
//   made active in share (capi_internal.h): releasing the adapter before the run options is
//   safe. Making the same adapter active twice in one run options adds it once.
// - The format: a FlatBuffers buffer, little endian, file identifier "TORT" at bytes 4..7.
//   Root table Adapter {0: format_version int32 (must be 1), 1: adapter_version int32,
//   2: model_version int32, 3: parameters [Parameter]}; Parameter {0: name string (required,
//   non-empty, unique), 1: dims [int64] (absent: a scalar; each >= 0), 2: data_type int32 (ONNX
//   element type numbers), 3: raw_data [uint8] (absent: no bytes), whose size must be
//   product(dims) * element size}.
// - The reader trusts nothing: every offset, vtable, table, string and vector is checked to
//   lie inside the buffer (in 64-bit arithmetic, so nothing wraps); a bad identifier, a
//   truncated or malformed buffer, or data that disagrees with its dims is INVALID_ARGUMENT
//   with what was wrong; string parameters and element types onyx lacks are NOT_IMPLEMENTED.
//   A file that cannot be opened or read is NO_SUCHFILE.
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <set>

#include "capi/capi_internal.h"
#include "capi/generated/api_declarations.h"

namespace onyx::capi {
namespace {

// The reader below reads the little-endian fields with memcpy.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the .onnx_adapter reader assumes a little-endian host");

// A malformed buffer: why, for the INVALID_ARGUMENT status.
struct Malformed {
  std::string why;
};

// Bounds-checked reads of a FlatBuffers buffer.
class Buffer {
 public:
  Buffer(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  size_t size() const { return size_; }
  const uint8_t* at(uint64_t pos) const { return data_ + pos; }

  // `n` bytes at `pos` lie inside the buffer.
  bool fits(uint64_t pos, uint64_t n) const { return pos <= size_ && n <= size_ - pos; }
  void need(uint64_t pos, uint64_t n, const char* what) const {
    if (!fits(pos, n))
      throw Malformed{std::string(what) + " at offset " + std::to_string(pos) + " (" + std::to_string(n) +
                      " bytes) runs past the end of the " + std::to_string(size_) + "-byte buffer"};
  }
  template <typename T>
  T read(uint64_t pos, const char* what) const {
    need(pos, sizeof(T), what);
    T v;
    std::memcpy(&v, data_ + pos, sizeof(T));
    return v;
  }

 private:
  const uint8_t* data_;
  size_t size_;
};

// A table: its position and its vtable's field offsets.
class Table {
 public:
  Table(const Buffer& buf, uint64_t pos, const char* what) : buf_(buf), pos_(pos), what_(what) {
    const int32_t soffset = buf.read<int32_t>(pos, what);
    const int64_t vt = int64_t(pos) - int64_t(soffset);
    if (vt < 0) throw Malformed{std::string(what) + "'s vtable offset points before the buffer"};
    vtable_ = uint64_t(vt);
    vsize_ = buf.read<uint16_t>(vtable_, "a vtable");
    tsize_ = buf.read<uint16_t>(vtable_ + 2, "a vtable");
    if (vsize_ < 4 || vsize_ % 2) throw Malformed{std::string(what) + "'s vtable has a bad size " + std::to_string(vsize_)};
    buf.need(vtable_, vsize_, "a vtable");
    if (tsize_ < 4) throw Malformed{std::string(what) + "'s table size " + std::to_string(tsize_) + " is too small"};
    buf.need(pos, tsize_, what);
  }

  // The field's position, or 0 when absent; a present field of `n` bytes lies in the table.
  uint64_t field(int index, uint64_t n) const {
    const uint64_t slot = 4 + 2 * uint64_t(index);
    if (slot + 2 > vsize_) return 0;
    const uint16_t off = buf_.read<uint16_t>(vtable_ + slot, "a vtable");
    if (off == 0) return 0;
    if (off < 4 || uint64_t(off) + n > tsize_)
      throw Malformed{std::string(what_) + "'s field " + std::to_string(index) + " lies outside its table"};
    return pos_ + off;
  }
  template <typename T>
  T scalar(int index, T fallback) const {
    const uint64_t at = field(index, sizeof(T));
    return at ? buf_.read<T>(at, what_) : fallback;
  }
  // The position an offset field points to, or 0 when absent.
  uint64_t target(int index) const {
    const uint64_t at = field(index, 4);
    if (!at) return 0;
    const uint64_t to = at + buf_.read<uint32_t>(at, what_);
    if (to >= buf_.size())
      throw Malformed{std::string(what_) + "'s field " + std::to_string(index) + " points past the end of the buffer"};
    return to;
  }
  // A vector of `elem`-byte items: its length and the position of its first item.
  std::pair<uint64_t, uint64_t> vector(int index, uint64_t elem, const char* what) const {
    const uint64_t to = target(index);
    if (!to) return {0, 0};
    const uint64_t n = buf_.read<uint32_t>(to, what);
    buf_.need(to + 4, n * elem, what);  // n < 2^32 and elem <= 8: no overflow
    return {n, to + 4};
  }

 private:
  const Buffer& buf_;
  uint64_t pos_, vtable_;
  uint16_t vsize_ = 0, tsize_ = 0;
  const char* what_;
};

constexpr int32_t kFormatVersion = 1;

// One Parameter table, read into (name, tensor); throws Malformed, or returns a status for
// what onyx does not support.
OrtStatus* read_parameter(const Buffer& buf, uint64_t pos, size_t index, const char* call,
                          std::pair<std::string, Tensor>& out) {
  const std::string what = "parameter " + std::to_string(index);
  Table t(buf, pos, what.c_str());
  // name
  const auto [name_len, name_at] = t.vector(0, 1, "a parameter name");
  if (!name_at) throw Malformed{what + " has no name"};
  if (name_len == 0) throw Malformed{what + " has an empty name"};
  std::string name(reinterpret_cast<const char*>(buf.at(name_at)), size_t(name_len));
  if (name.find('\0') != std::string::npos) throw Malformed{what + "'s name holds a NUL byte"};
  // dims
  const auto [rank, dims_at] = t.vector(1, 8, "a parameter's dims");
  Shape shape;
  for (uint64_t d = 0; d < rank; ++d) {
    const int64_t dim = buf.read<int64_t>(dims_at + 8 * d, "a parameter's dims");
    if (dim < 0) throw Malformed{"parameter '" + name + "' has a negative dim " + std::to_string(dim)};
    shape.push_back(dim);
  }
  // data_type
  const int32_t type = t.scalar<int32_t>(2, 0);
  if (type == int32_t(DataType::kString))
    return make_status(ORT_NOT_IMPLEMENTED,
                       std::string(call) + ": parameter '" + name + "' holds strings (onyx reads numeric adapter parameters only)");
  if (type <= 0 || type > 23)
    throw Malformed{"parameter '" + name + "' has an unknown element type " + std::to_string(type)};
  const size_t item = type <= int32_t(DataType::kBFloat16) ? data_type_size(DataType(type)) : 0;
  if (item == 0)
    return make_status(ORT_NOT_IMPLEMENTED, std::string(call) + ": parameter '" + name + "' has element type " +
                                                std::to_string(type) + ", which onyx does not support");
  // raw_data: exactly product(dims) * item bytes (checked without overflow)
  const auto [raw_len, raw_at] = t.vector(3, 1, "a parameter's raw_data");
  const uint64_t most = raw_len / item;  // the most elements the bytes could hold
  bool zero = false, too_many = false;
  for (int64_t d : shape) zero = zero || d == 0;
  uint64_t numel = zero ? 0 : 1;
  for (size_t d = 0; !zero && d < shape.size(); ++d) {
    if (numel > most / uint64_t(shape[d])) {
      too_many = true;
      break;
    }
    numel *= uint64_t(shape[d]);
  }
  if (too_many || numel * item != raw_len)
    throw Malformed{"parameter '" + name + "' has " + std::to_string(raw_len) + " bytes of data, but its shape " +
                    shape_to_string(shape) + " of " + data_type_name(DataType(type)) + " needs " +
                    (too_many ? std::string("more") : std::to_string(numel * item))};
  auto tensor = Tensor::create(DataType(type), shape, nullptr, false);
  if (!tensor.ok()) return to_ort_status(tensor.status());
  if (raw_len) std::memcpy(tensor->raw_data(), buf.at(raw_at), size_t(raw_len));
  out = {std::move(name), std::move(tensor).value()};
  return nullptr;
}

// The parameters of the adapter in bytes[0..size).
OrtStatus* parse_adapter(const uint8_t* bytes, size_t size, const char* call, std::shared_ptr<LoraParameters>& out) {
  auto params = std::make_shared<LoraParameters>();
  try {
    Buffer buf(bytes, size);
    if (size < 8)
      throw Malformed{"the buffer has " + std::to_string(size) + " bytes, too few for a FlatBuffers adapter"};
    if (std::memcmp(bytes + 4, "TORT", 4) != 0)
      throw Malformed{"the buffer lacks the .onnx_adapter file identifier \"TORT\" at bytes 4..7"};
    const uint32_t root = buf.read<uint32_t>(0, "the root offset");
    if (root < 8) throw Malformed{"the root table offset " + std::to_string(root) + " overlaps the header"};
    Table adapter(buf, root, "the Adapter table");
    const int32_t version = adapter.scalar<int32_t>(0, 0);
    if (version != kFormatVersion)
      throw Malformed{"adapter format version " + std::to_string(version) + " (onyx reads version " +
                      std::to_string(kFormatVersion) + ")"};
    const auto [count, first] = adapter.vector(3, 4, "the parameters vector");
    std::set<std::string> seen;
    for (uint64_t i = 0; i < count; ++i) {
      const uint64_t slot = first + 4 * i;
      const uint64_t pos = slot + buf.read<uint32_t>(slot, "the parameters vector");
      std::pair<std::string, Tensor> p;
      if (OrtStatus* st = read_parameter(buf, pos, size_t(i), call, p)) return st;
      if (!seen.insert(p.first).second) throw Malformed{"parameter '" + p.first + "' appears twice"};
      params->params.push_back(std::move(p));
    }
  } catch (const Malformed& m) {
    return make_status(ORT_INVALID_ARGUMENT, std::string(call) + ": invalid LoRA adapter: " + m.why);
  }
  out = std::move(params);
  return nullptr;
}

OrtStatus* check_allocator(OrtAllocator* allocator, const char* call) {
  if (!allocator) return nullptr;
  const OrtMemoryInfo* info = allocator->Info ? allocator->Info(allocator) : nullptr;
  if (!info) return make_status(ORT_INVALID_ARGUMENT, std::string(call) + ": the allocator describes no memory");
  if (!is_cpu_memory(*info))
    return make_status(ORT_NOT_IMPLEMENTED, std::string(call) + ": allocator of memory '" + info->name +
                                                "' (onyx keeps adapter parameters in CPU memory; pass null or a CPU allocator)");
  return nullptr;
}

OrtStatus* finish(std::shared_ptr<LoraParameters> params, OrtLoraAdapter** out) {
  auto adapter = std::make_unique<OrtLoraAdapter>();
  adapter->parameters = std::move(params);
  *out = adapter.release();
  return nullptr;
}

}  // namespace

OrtStatus* add_lora_feeds(const OrtSession& session, const OrtRunOptions* options,
                          std::vector<std::pair<std::string, Value>>& feeds) {
  if (!options || options->active_adapters.empty()) return nullptr;
  std::set<std::string> inputs, fed;
  for (const auto& vi : session.session->inputs()) inputs.insert(vi.name);
  for (const auto& f : feeds) fed.insert(f.first);
  std::set<std::string> from_adapters;
  for (const auto& adapter : options->active_adapters) {
    for (const auto& [name, tensor] : adapter->params) {
      if (!inputs.count(name))
        return make_status(ORT_INVALID_ARGUMENT, "Run: LoRA adapter parameter '" + name + "' is not an input of the model");
      if (fed.count(name))
        return make_status(ORT_INVALID_ARGUMENT, "Run: input '" + name +
                                                     "' is fed by the caller and by an active LoRA adapter");
      if (!from_adapters.insert(name).second)
        return make_status(ORT_INVALID_ARGUMENT, "Run: two active LoRA adapters both hold parameter '" + name + "'");
      feeds.emplace_back(name, Value(tensor));
    }
  }
  return nullptr;
}

OrtStatus* ORT_API_CALL CreateLoraAdapter(const ORTCHAR_T* adapter_file_path, OrtAllocator* allocator,
                                          OrtLoraAdapter** out) {
  return guarded("CreateLoraAdapter", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(adapter_file_path, "CreateLoraAdapter");
    ONYX_CAPI_REQUIRE(out, "CreateLoraAdapter");
    if (OrtStatus* st = check_allocator(allocator, "CreateLoraAdapter")) return st;
    std::ifstream file(adapter_file_path, std::ios::binary);
    if (!file)
      return make_status(ORT_NO_SUCHFILE, std::string("CreateLoraAdapter: cannot open '") + adapter_file_path + "'");
    std::vector<char> bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    if (file.bad())
      return make_status(ORT_NO_SUCHFILE, std::string("CreateLoraAdapter: cannot read '") + adapter_file_path + "'");
    std::shared_ptr<LoraParameters> params;
    if (OrtStatus* st = parse_adapter(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(),
                                      "CreateLoraAdapter", params))
      return st;
    return finish(std::move(params), out);
  });
}

OrtStatus* ORT_API_CALL CreateLoraAdapterFromArray(const void* bytes, size_t num_bytes, OrtAllocator* allocator,
                                                   OrtLoraAdapter** out) {
  return guarded("CreateLoraAdapterFromArray", [&]() -> OrtStatus* {
    if (num_bytes) ONYX_CAPI_REQUIRE(bytes, "CreateLoraAdapterFromArray");
    ONYX_CAPI_REQUIRE(out, "CreateLoraAdapterFromArray");
    if (OrtStatus* st = check_allocator(allocator, "CreateLoraAdapterFromArray")) return st;
    std::shared_ptr<LoraParameters> params;
    if (OrtStatus* st = parse_adapter(static_cast<const uint8_t*>(bytes), num_bytes, "CreateLoraAdapterFromArray", params))
      return st;
    return finish(std::move(params), out);
  });
}

void ORT_API_CALL ReleaseLoraAdapter(OrtLoraAdapter* adapter) { delete adapter; }

OrtStatus* ORT_API_CALL RunOptionsAddActiveLoraAdapter(OrtRunOptions* options, const OrtLoraAdapter* adapter) {
  return guarded("RunOptionsAddActiveLoraAdapter", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(options, "RunOptionsAddActiveLoraAdapter");
    ONYX_CAPI_REQUIRE(adapter, "RunOptionsAddActiveLoraAdapter");
    for (const auto& active : options->active_adapters)
      if (active == adapter->parameters) return nullptr;  // already active
    options->active_adapters.push_back(adapter->parameters);
    return nullptr;
  });
}

}  // namespace onyx::capi
