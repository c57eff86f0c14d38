// Sequences and maps through the C API: made from tensors (CreateValue), counted and taken
// apart (GetValueCount, GetValue: a sequence's items; a map's keys at 0 and values at 1).
#include "capi/capi_internal.h"
#include "capi/generated/api_declarations.h"

namespace onyx::capi {

OrtStatus* ORT_API_CALL CreateValue(const OrtValue* const* in, size_t num_values, enum ONNXType value_type,
                                    OrtValue** out) {
  return guarded("CreateValue", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(out, "CreateValue");
    if (num_values && !in) return make_status(ORT_INVALID_ARGUMENT, "CreateValue: in is null");
    std::vector<Tensor> items;
    for (size_t i = 0; i < num_values; ++i) {
      if (!in[i] || !in[i]->value.is_tensor())
        return make_status(ORT_INVALID_ARGUMENT, "CreateValue: item " + std::to_string(i) + " is not a tensor");
      items.push_back(in[i]->value.tensor());
    }
    if (value_type == ONNX_TYPE_SEQUENCE) {
      if (items.empty()) return make_status(ORT_INVALID_ARGUMENT, "CreateValue: a sequence needs at least one tensor");
      for (const Tensor& t : items)
        if (t.dtype() != items.front().dtype())
          return make_status(ORT_INVALID_ARGUMENT, "CreateValue: a sequence's tensors must share one element type, got " +
                                                       items.front().describe() + " and " + t.describe());
      const DataType elem = items.front().dtype();
      *out = new OrtValue{Value::sequence(std::move(items), elem)};
      return nullptr;
    }
    if (value_type == ONNX_TYPE_MAP) {
      if (items.size() != 2) return make_status(ORT_INVALID_ARGUMENT, "CreateValue: a map needs two tensors, keys and values");
      // ONNX's map keys are strings or integers.
      const DataType key = items[0].dtype();
      if (key != DataType::kString && !is_integer_type(key))
        return make_status(ORT_INVALID_ARGUMENT, "CreateValue: a map's keys must be strings or integers, got " +
                                                     items[0].describe());
      auto map = Value::map(items[0], items[1]);
      if (!map.ok()) return to_ort_status(map.status());
      *out = new OrtValue{std::move(map).value()};
      return nullptr;
    }
    return make_status(ORT_INVALID_ARGUMENT, "CreateValue: makes sequences and maps, not ONNXType " +
                                                 std::to_string(int(value_type)));
  });
}

OrtStatus* ORT_API_CALL GetValueCount(const OrtValue* value, size_t* out) {
  ONYX_CAPI_REQUIRE(value, "GetValueCount");
  ONYX_CAPI_REQUIRE(out, "GetValueCount");
  if (value->value.is_sequence()) {
    *out = value->value.sequence_items().size();
  } else if (value->value.is_map_sequence()) {
    *out = value->value.map_sequence_items().size();
  } else if (value->value.is_map()) {
    *out = 2;
  } else {
    return make_status(ORT_INVALID_ARGUMENT, "GetValueCount: the value is " + value->value.describe() +
                                                 ", not a sequence or a map");
  }
  return nullptr;
}

OrtStatus* ORT_API_CALL GetValue(const OrtValue* value, int index, OrtAllocator* allocator, OrtValue** out) {
  return guarded("GetValue", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(value, "GetValue");
    ONYX_CAPI_REQUIRE(out, "GetValue");
    (void)allocator;  // the item shares the container's memory
    if (value->value.is_sequence()) {
      const auto& items = value->value.sequence_items();
      if (index < 0 || size_t(index) >= items.size())
        return make_status(ORT_INVALID_ARGUMENT, "GetValue: index " + std::to_string(index) + " of a sequence of " +
                                                     std::to_string(items.size()));
      *out = new OrtValue{Value(items[size_t(index)])};
      return nullptr;
    }
    if (value->value.is_map_sequence()) {  // a sequence of maps (ZipMap's output): item i, a map
      const auto& maps = value->value.map_sequence_items();
      if (index < 0 || size_t(index) >= maps.size())
        return make_status(ORT_INVALID_ARGUMENT, "GetValue: index " + std::to_string(index) + " of a sequence of " +
                                                     std::to_string(maps.size()) + " maps");
      *out = new OrtValue{maps[size_t(index)]};
      return nullptr;
    }
    if (value->value.is_map()) {
      if (index != 0 && index != 1)
        return make_status(ORT_INVALID_ARGUMENT, "GetValue: a map has keys (0) and values (1), not " + std::to_string(index));
      *out = new OrtValue{Value(index == 0 ? value->value.map_keys() : value->value.map_values())};
      return nullptr;
    }
    return make_status(ORT_INVALID_ARGUMENT, "GetValue: the value is " + value->value.describe() +
                                                 ", not a sequence or a map");
  });
}

// Key-value pairs. These members return nothing, as ORT's do: null arguments are ignored.

void ORT_API_CALL CreateKeyValuePairs(OrtKeyValuePairs** out) {
  if (out) *out = new (std::nothrow) OrtKeyValuePairs();
}

void ORT_API_CALL AddKeyValuePair(OrtKeyValuePairs* kvps, const char* key, const char* value) {
  if (!kvps || !key || !value || !*key) return;
  for (size_t i = 0; i < kvps->keys.size(); ++i)
    if (kvps->keys[i] == key) {  // an existing key takes the new value
      kvps->values[i] = value;
      kvps->refresh();
      return;
    }
  kvps->keys.emplace_back(key);
  kvps->values.emplace_back(value);
  kvps->refresh();
}

const char* ORT_API_CALL GetKeyValue(const OrtKeyValuePairs* kvps, const char* key) {
  if (!kvps || !key) return nullptr;
  for (size_t i = 0; i < kvps->keys.size(); ++i)
    if (kvps->keys[i] == key) return kvps->values[i].c_str();
  return nullptr;
}

void ORT_API_CALL GetKeyValuePairs(const OrtKeyValuePairs* kvps, const char* const** keys, const char* const** values,
                                   size_t* num_entries) {
  if (!kvps || !keys || !values || !num_entries) return;
  *keys = kvps->key_ptrs.data();
  *values = kvps->value_ptrs.data();
  *num_entries = kvps->keys.size();
}

void ORT_API_CALL RemoveKeyValuePair(OrtKeyValuePairs* kvps, const char* key) {
  if (!kvps || !key) return;
  for (size_t i = 0; i < kvps->keys.size(); ++i)
    if (kvps->keys[i] == key) {
      kvps->keys.erase(kvps->keys.begin() + std::ptrdiff_t(i));
      kvps->values.erase(kvps->values.begin() + std::ptrdiff_t(i));
      kvps->refresh();
      return;
    }
}

void ORT_API_CALL ReleaseKeyValuePairs(OrtKeyValuePairs* kvps) { delete kvps; }

}  // namespace onyx::capi

