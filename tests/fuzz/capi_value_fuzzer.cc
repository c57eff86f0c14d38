// libFuzzer target (e): the C API's value constructors and readers, called as a careless
// program would call them, through libonnxruntime.so.1's table: tensors of any element type
// number (valid or not), rank and dims (negative, zero, huge), on onyx's memory or on caller
// memory of a fuzzed length; string tensors filled and read back into buffers of fuzzed
// sizes; sequences and maps made of the values so far, then taken apart. Every call must
// return a status or a value, never crash, hang or leak; every status is released. The input
// is a script: each step's first byte picks the call, the next bytes its arguments. The same
// bytes are first read as a LoRA adapter (CreateLoraAdapterFromArray, lora_adapters.cc).
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "onnxruntime_c_api.h"

namespace {

const OrtApi* api = OrtGetApiBase()->GetApi(ORT_API_VERSION);

// Reads the fuzz bytes in order; zeros once they run out.
struct Script {
  const uint8_t* data;
  size_t size;
  size_t at = 0;
  bool done() const { return at >= size; }
  uint8_t byte() { return at < size ? data[at++] : 0; }
  int64_t dim() {
    const uint8_t kind = byte();
    if (kind < 200) return kind % 5;                                   // small, often 0 or 1
    if (kind < 230) return -int64_t(byte());                           // negative
    int64_t v = 0;
    for (int i = 0; i < 8; ++i) v = (v << 8) | byte();                 // anything, huge included
    return v;
  }
  // Up to `n` bytes of the input itself (a caller buffer that really has that length).
  std::pair<const uint8_t*, size_t> span(size_t n) {
    n = std::min(n, size - std::min(size, at));
    const uint8_t* p = data + at;
    at += n;
    return {p, n};
  }
};

// A shape whose dims are all non-negative and whose element count fits in int64 but passes
// this many elements is a real request for that much memory (onyx grants it, as ORT does):
// the target does not make such calls. Negative dims and counts that overflow are made: they
// must be refused.
constexpr int64_t kMaxElements = int64_t(1) << 20;

bool huge_but_valid(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0 || __builtin_mul_overflow(n, d, &n)) return false;
  }
  return n > kMaxElements;
}

void release(OrtStatus* st) {
  if (st) {
    (void)api->GetErrorCode(st);
    (void)api->GetErrorMessage(st);
    api->ReleaseStatus(st);
  }
}

// Reads everything a tensor value tells about itself.
void inspect(const OrtValue* v) {
  int is_tensor = 0;
  release(api->IsTensor(v, &is_tensor));
  ONNXType type;
  release(api->GetValueType(v, &type));
  size_t count = 0;
  release(api->GetValueCount(v, &count));
  if (!is_tensor) return;
  OrtTensorTypeAndShapeInfo* info = nullptr;
  if (OrtStatus* st = api->GetTensorTypeAndShape(v, &info)) return release(st);
  size_t rank = 0, elements = 0;
  ONNXTensorElementDataType elem;
  release(api->GetDimensionsCount(info, &rank));
  std::vector<int64_t> dims(rank);
  release(api->GetDimensions(info, dims.data(), dims.size()));
  release(api->GetTensorShapeElementCount(info, &elements));
  release(api->GetTensorElementType(info, &elem));
  api->ReleaseTensorTypeAndShapeInfo(info);
  const void* data = nullptr;
  release(api->GetTensorData(v, &data));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (!api) return 0;
  {  // the whole input as a LoRA adapter (.onnx_adapter), its file identifier put in place so
     // that the reader gets past it; the copy is exactly `size` bytes long
    std::vector<uint8_t> adapter_bytes(data, data + size);
    if (size >= 8) std::memcpy(adapter_bytes.data() + 4, "TORT", 4);
    OrtLoraAdapter* adapter = nullptr;
    release(api->CreateLoraAdapterFromArray(adapter_bytes.data(), adapter_bytes.size(), nullptr, &adapter));
    api->ReleaseLoraAdapter(adapter);
  }
  Script s{data, size};
  OrtAllocator* allocator = nullptr;
  release(api->GetAllocatorWithDefaultOptions(&allocator));
  OrtMemoryInfo* cpu = nullptr;
  release(api->CreateCpuMemoryInfo(OrtArenaAllocator, OrtMemTypeDefault, &cpu));
  std::vector<OrtValue*> values;
  std::vector<std::vector<uint8_t>> buffers;  // caller memory the values made on it view
  for (int step = 0; step < 24 && !s.done(); ++step) {
    const uint8_t call = s.byte() % 6;
    OrtValue* made = nullptr;
    if (call == 0 || call == 1) {  // a tensor on onyx's memory, or on caller memory
      const auto type = ONNXTensorElementDataType(s.byte() % 26);
      const size_t rank = s.byte() % 6;
      std::vector<int64_t> shape(rank);
      for (int64_t& d : shape) d = s.dim();
      if (huge_but_valid(shape)) continue;
      if (call == 0) {
        release(api->CreateTensorAsOrtValue(allocator, shape.data(), shape.size(), type, &made));
      } else {
        auto [p, n] = s.span(s.byte());
        buffers.emplace_back(p, p + n);
        release(api->CreateTensorWithDataAsOrtValue(cpu, buffers.back().data(), buffers.back().size(), shape.data(),
                                                    shape.size(), type, &made));
      }
      if (made) {
        void* mutable_data = nullptr;
        OrtStatus* st = api->GetTensorMutableData(made, &mutable_data);
        size_t count = 0;
        OrtTensorTypeAndShapeInfo* info = nullptr;
        if (!st && !api->GetTensorTypeAndShape(made, &info)) {
          release(api->GetTensorShapeElementCount(info, &count));
          api->ReleaseTensorTypeAndShapeInfo(info);
        }
        if (!st && count && mutable_data) std::memset(mutable_data, 0x5a, 1);  // the first byte is really there
        release(st);
      }
    } else if (call == 2) {  // strings: filled, then read into a buffer of a fuzzed size
      const int64_t n = s.byte() % 5;
      OrtValue* t = nullptr;
      release(api->CreateTensorAsOrtValue(allocator, &n, 1, ONNX_TENSOR_ELEMENT_DATA_TYPE_STRING, &t));
      std::vector<std::string> strings;
      const size_t given = s.byte() % 6;  // may differ from n
      for (size_t i = 0; i < given; ++i) {
        auto [p, len] = s.span(s.byte() % 9);
        strings.emplace_back(reinterpret_cast<const char*>(p), len);
      }
      std::vector<const char*> pointers;
      for (const auto& x : strings) pointers.push_back(x.c_str());
      if (t) {
        release(api->FillStringTensor(t, pointers.data(), pointers.size()));
        size_t length = 0;
        release(api->GetStringTensorDataLength(t, &length));
        std::vector<char> out(s.byte() % 40);
        std::vector<size_t> offsets(size_t(s.byte() % 6));
        release(api->GetStringTensorContent(t, out.data(), out.size(), offsets.data(), offsets.size()));
        made = t;
      }
    } else if (call == 3 && !values.empty()) {  // a sequence or a map of earlier values
      const bool map = s.byte() & 1;
      const size_t n = map ? 2 : 1 + s.byte() % 4;
      std::vector<const OrtValue*> parts;
      for (size_t i = 0; i < n; ++i) parts.push_back(values[s.byte() % values.size()]);
      release(api->CreateValue(parts.data(), parts.size(), map ? ONNX_TYPE_MAP : ONNX_TYPE_SEQUENCE, &made));
      if (made) {
        size_t count = 0;
        release(api->GetValueCount(made, &count));
        OrtValue* part = nullptr;
        release(api->GetValue(made, int(s.byte() % 5), allocator, &part));
        if (part) {
          inspect(part);
          api->ReleaseValue(part);
        }
      }
    } else if (call == 4 && !values.empty()) {
      inspect(values[s.byte() % values.size()]);
    } else if (call == 5 && !values.empty()) {  // release one early
      const size_t i = s.byte() % values.size();
      api->ReleaseValue(values[i]);
      values.erase(values.begin() + std::ptrdiff_t(i));
    }
    if (made) {
      inspect(made);
      values.push_back(made);
    }
  }
  for (OrtValue* v : values) api->ReleaseValue(v);
  api->ReleaseMemoryInfo(cpu);
  return 0;
}
