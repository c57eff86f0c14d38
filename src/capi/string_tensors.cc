// String tensors' elements through the C API: filled, measured, read whole or one at a time,
// and resized in place.
//
// Contracts:
// - Every member takes a string tensor value (another value: INVALID_ARGUMENT naming the call)
//   and an element index below its element count where it takes one.
// - GetStringTensorContent and GetStringTensorElement copy bytes without NULs, as ORT does;
//   a buffer shorter than the strings is INVALID_ARGUMENT.
// - GetResizedStringTensorElementBuffer: element `index` becomes `length_in_bytes` bytes long
//   (new bytes are NUL, old ones up to that length kept) and *buffer points at them, for the
//   caller to write. The pointer stays valid until that element changes again or the tensor's
//   last value goes. Values that share the tensor see the change.
#include <cstring>
#include <string>

#include "capi/capi_internal.h"
#include "capi/generated/api_declarations.h"

namespace onyx::capi {
namespace {

const Tensor* tensor_of(const OrtValue* value) { return value && value->value.is_tensor() ? &value->value.tensor() : nullptr; }

// The string element `index` of a string tensor value, or an OrtStatus naming `call`.
OrtStatus* string_element(const OrtValue* value, size_t index, const char* call, std::string** out) {
  const Tensor* t = tensor_of(value);
  if (!t || t->dtype() != DataType::kString)
    return make_status(ORT_INVALID_ARGUMENT, std::string(call) + ": the value is not a string tensor");
  if (index >= size_t(t->numel()))
    return make_status(ORT_INVALID_ARGUMENT, std::string(call) + ": index " + std::to_string(index) +
                                                 " is out of range for " + std::to_string(t->numel()) + " strings");
  *out = const_cast<std::string*>(t->data<std::string>()) + index;
  return nullptr;
}

}  // namespace

OrtStatus* ORT_API_CALL FillStringTensor(OrtValue* value, const char* const* s, size_t s_len) {
  return guarded("FillStringTensor", [&]() -> OrtStatus* {
    if (!value || !value->value.is_tensor() || value->value.tensor().dtype() != DataType::kString)
      return make_status(ORT_INVALID_ARGUMENT, "FillStringTensor: the value is not a string tensor");
    Tensor& t = value->value.tensor();
    if (size_t(t.numel()) != s_len)
      return make_status(ORT_INVALID_ARGUMENT, "FillStringTensor: " + std::to_string(s_len) + " strings for " +
                                                   std::to_string(t.numel()) + " elements");
    if (s_len && !s) return make_status(ORT_INVALID_ARGUMENT, "FillStringTensor: s is null");
    for (size_t i = 0; i < s_len; ++i) t.data<std::string>()[i] = s[i] ? s[i] : "";
    return nullptr;
  });
}

OrtStatus* ORT_API_CALL GetStringTensorDataLength(const OrtValue* value, size_t* len) {
  ONYX_CAPI_REQUIRE(len, "GetStringTensorDataLength");
  const Tensor* t = tensor_of(value);
  if (!t || t->dtype() != DataType::kString)
    return make_status(ORT_INVALID_ARGUMENT, "GetStringTensorDataLength: the value is not a string tensor");
  size_t total = 0;
  for (int64_t i = 0; i < t->numel(); ++i) total += t->data<std::string>()[i].size();
  *len = total;
  return nullptr;
}

OrtStatus* ORT_API_CALL GetStringTensorContent(const OrtValue* value, void* s, size_t s_len, size_t* offsets,
                                               size_t offsets_len) {
  const Tensor* t = tensor_of(value);
  if (!t || t->dtype() != DataType::kString)
    return make_status(ORT_INVALID_ARGUMENT, "GetStringTensorContent: the value is not a string tensor");
  if (offsets_len != size_t(t->numel()))
    return make_status(ORT_INVALID_ARGUMENT, "GetStringTensorContent: " + std::to_string(offsets_len) +
                                                 " offsets for " + std::to_string(t->numel()) + " strings");
  size_t total = 0;
  for (int64_t i = 0; i < t->numel(); ++i) total += t->data<std::string>()[i].size();
  if (s_len < total)
    return make_status(ORT_INVALID_ARGUMENT, "GetStringTensorContent: " + std::to_string(s_len) +
                                                 " bytes for strings of " + std::to_string(total));
  if ((total && !s) || (offsets_len && !offsets))
    return make_status(ORT_INVALID_ARGUMENT, "GetStringTensorContent: null buffer");
  size_t at = 0;
  for (int64_t i = 0; i < t->numel(); ++i) {
    const std::string& str = t->data<std::string>()[i];
    offsets[i] = at;
    if (!str.empty()) std::memcpy(static_cast<char*>(s) + at, str.data(), str.size());
    at += str.size();
  }
  return nullptr;
}

OrtStatus* ORT_API_CALL GetStringTensorElementLength(const OrtValue* value, size_t index, size_t* out) {
  ONYX_CAPI_REQUIRE(out, "GetStringTensorElementLength");
  std::string* s = nullptr;
  if (OrtStatus* st = string_element(value, index, "GetStringTensorElementLength", &s)) return st;
  *out = s->size();
  return nullptr;
}

OrtStatus* ORT_API_CALL GetStringTensorElement(const OrtValue* value, size_t s_len, size_t index, void* out) {
  std::string* s = nullptr;
  if (OrtStatus* st = string_element(value, index, "GetStringTensorElement", &s)) return st;
  if (s_len < s->size())
    return make_status(ORT_INVALID_ARGUMENT, "GetStringTensorElement: " + std::to_string(s_len) +
                                                 " bytes for a string of " + std::to_string(s->size()));
  if (!s->empty()) {
    ONYX_CAPI_REQUIRE(out, "GetStringTensorElement");
    std::memcpy(out, s->data(), s->size());  // not NUL-terminated, as ORT's
  }
  return nullptr;
}

OrtStatus* ORT_API_CALL FillStringTensorElement(OrtValue* value, const char* str, size_t index) {
  return guarded("FillStringTensorElement", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(str, "FillStringTensorElement");
    std::string* s = nullptr;
    if (OrtStatus* st = string_element(value, index, "FillStringTensorElement", &s)) return st;
    *s = str;
    return nullptr;
  });
}

OrtStatus* ORT_API_CALL GetResizedStringTensorElementBuffer(OrtValue* value, size_t index, size_t length_in_bytes,
                                                            char** buffer) {
  return guarded("GetResizedStringTensorElementBuffer", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(value, "GetResizedStringTensorElementBuffer");
    ONYX_CAPI_REQUIRE(buffer, "GetResizedStringTensorElementBuffer");
    std::string* s = nullptr;
    if (OrtStatus* st = string_element(value, index, "GetResizedStringTensorElementBuffer", &s)) return st;
    s->resize(length_in_bytes);
    *buffer = s->data();
    return nullptr;
  });
}

}  // namespace onyx::capi
