// The C API's types beyond a tensor's: what a sequence holds, what an optional may hold, a
// map's key and value types, a type's denotation, and whether a tensor type has a shape at all.
// Casts hand out pointers into the OrtTypeInfo (valid while it lives; ORT's contract too); the
// getters of nested types hand out new OrtTypeInfo the caller releases.
#include "capi/capi_internal.h"
#include "capi/generated/api_declarations.h"

namespace onyx::capi {
namespace {

// A new copy of a nested type (an unknown type where there is none).
OrtTypeInfo* copy_of(const std::shared_ptr<const OrtTypeInfo>& nested) {
  return nested ? new OrtTypeInfo(*nested) : new OrtTypeInfo();
}

}  // namespace

OrtStatus* ORT_API_CALL GetDenotationFromTypeInfo(const OrtTypeInfo* type_info, const char** const denotation,
                                                  size_t* len) {
  ONYX_CAPI_REQUIRE(type_info, "GetDenotationFromTypeInfo");
  ONYX_CAPI_REQUIRE(denotation, "GetDenotationFromTypeInfo");
  ONYX_CAPI_REQUIRE(len, "GetDenotationFromTypeInfo");
  *denotation = type_info->denotation.c_str();
  *len = type_info->denotation.size();
  return nullptr;
}

OrtStatus* ORT_API_CALL CastTypeInfoToMapTypeInfo(const OrtTypeInfo* type_info, const OrtMapTypeInfo** out) {
  ONYX_CAPI_REQUIRE(type_info, "CastTypeInfoToMapTypeInfo");
  ONYX_CAPI_REQUIRE(out, "CastTypeInfoToMapTypeInfo");
  *out = type_info->kind == ONNX_TYPE_MAP ? &type_info->map : nullptr;  // as ORT: null for other kinds
  return nullptr;
}

OrtStatus* ORT_API_CALL CastTypeInfoToSequenceTypeInfo(const OrtTypeInfo* type_info, const OrtSequenceTypeInfo** out) {
  ONYX_CAPI_REQUIRE(type_info, "CastTypeInfoToSequenceTypeInfo");
  ONYX_CAPI_REQUIRE(out, "CastTypeInfoToSequenceTypeInfo");
  *out = type_info->kind == ONNX_TYPE_SEQUENCE ? &type_info->sequence : nullptr;
  return nullptr;
}

OrtStatus* ORT_API_CALL CastTypeInfoToOptionalTypeInfo(const OrtTypeInfo* type_info, const OrtOptionalTypeInfo** out) {
  ONYX_CAPI_REQUIRE(type_info, "CastTypeInfoToOptionalTypeInfo");
  ONYX_CAPI_REQUIRE(out, "CastTypeInfoToOptionalTypeInfo");
  *out = type_info->kind == ONNX_TYPE_OPTIONAL ? &type_info->optional : nullptr;
  return nullptr;
}

OrtStatus* ORT_API_CALL GetMapKeyType(const OrtMapTypeInfo* map_type_info, enum ONNXTensorElementDataType* out) {
  ONYX_CAPI_REQUIRE(map_type_info, "GetMapKeyType");
  ONYX_CAPI_REQUIRE(out, "GetMapKeyType");
  *out = map_type_info->key;
  return nullptr;
}

OrtStatus* ORT_API_CALL GetMapValueType(const OrtMapTypeInfo* map_type_info, OrtTypeInfo** type_info) {
  return guarded("GetMapValueType", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(map_type_info, "GetMapValueType");
    ONYX_CAPI_REQUIRE(type_info, "GetMapValueType");
    *type_info = copy_of(map_type_info->value);
    return nullptr;
  });
}

OrtStatus* ORT_API_CALL GetSequenceElementType(const OrtSequenceTypeInfo* sequence_type_info, OrtTypeInfo** type_info) {
  return guarded("GetSequenceElementType", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(sequence_type_info, "GetSequenceElementType");
    ONYX_CAPI_REQUIRE(type_info, "GetSequenceElementType");
    *type_info = copy_of(sequence_type_info->element);
    return nullptr;
  });
}

OrtStatus* ORT_API_CALL GetOptionalContainedTypeInfo(const OrtOptionalTypeInfo* optional_type_info, OrtTypeInfo** out) {
  return guarded("GetOptionalContainedTypeInfo", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(optional_type_info, "GetOptionalContainedTypeInfo");
    ONYX_CAPI_REQUIRE(out, "GetOptionalContainedTypeInfo");
    *out = copy_of(optional_type_info->contained);
    return nullptr;
  });
}

// The map and sequence parts are owned by their OrtTypeInfo (the casts' pointers); nothing onyx
// hands out owns one alone, so releasing one frees nothing.
void ORT_API_CALL ReleaseMapTypeInfo(OrtMapTypeInfo*) {}
void ORT_API_CALL ReleaseSequenceTypeInfo(OrtSequenceTypeInfo*) {}

bool ORT_API_CALL TensorTypeAndShape_HasShape(const OrtTensorTypeAndShapeInfo* info) {
  return info != nullptr && info->has_shape;
}

}  // namespace onyx::capi
