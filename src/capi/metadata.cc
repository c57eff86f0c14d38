// Model metadata, overridable initializers, free-dimension overrides, initializer overrides,
// cloned options, type-and-shape objects made by the caller and the providers list.
#include <cstring>

#include "capi/capi_internal.h"
#include "capi/generated/api_declarations.h"
#include "providers/execution_provider.h"

struct OrtModelMetadata {
  std::string producer, graph_name, domain, description, graph_description;
  int64_t version = 0;
  std::map<std::string, std::string> custom;
};

namespace onyx::capi {
namespace {

// The graph inputs that have an initializer default: ORT's "overridable initializers".
std::vector<const ir::ValueInfo*> overridable(const OrtSession* session) {
  std::vector<const ir::ValueInfo*> out;
  for (const auto& vi : session->session->inputs())
    if (session->session->input_has_default(vi.name)) out.push_back(&vi);
  return out;
}

}  // namespace

OrtStatus* ORT_API_CALL EnableTelemetryEvents(const OrtEnv* env) {
  ONYX_CAPI_REQUIRE(env, "EnableTelemetryEvents");
  return nullptr;  // onyx sends no telemetry
}

OrtStatus* ORT_API_CALL DisableTelemetryEvents(const OrtEnv* env) {
  ONYX_CAPI_REQUIRE(env, "DisableTelemetryEvents");
  return nullptr;
}

OrtStatus* ORT_API_CALL CloneSessionOptions(const OrtSessionOptions* in, OrtSessionOptions** out) {
  return guarded("CloneSessionOptions", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(in, "CloneSessionOptions");
    ONYX_CAPI_REQUIRE(out, "CloneSessionOptions");
    *out = new OrtSessionOptions(*in);
    return nullptr;
  });
}

OrtStatus* ORT_API_CALL AddFreeDimensionOverride(OrtSessionOptions* options, const char* denotation, int64_t value) {
  return guarded("AddFreeDimensionOverride", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(options, "AddFreeDimensionOverride");
    ONYX_CAPI_REQUIRE(denotation, "AddFreeDimensionOverride");
    if (value < 0) return make_status(ORT_INVALID_ARGUMENT, "AddFreeDimensionOverride: a negative size");
    options->core.add_free_dimension_override(denotation, value);
    return nullptr;
  });
}

OrtStatus* ORT_API_CALL AddFreeDimensionOverrideByName(OrtSessionOptions* options, const char* name, int64_t value) {
  return guarded("AddFreeDimensionOverrideByName", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(options, "AddFreeDimensionOverrideByName");
    ONYX_CAPI_REQUIRE(name, "AddFreeDimensionOverrideByName");
    if (value < 0) return make_status(ORT_INVALID_ARGUMENT, "AddFreeDimensionOverrideByName: a negative size");
    options->core.add_free_dimension_override_by_name(name, value);
    return nullptr;
  });
}

OrtStatus* ORT_API_CALL AddInitializer(OrtSessionOptions* options, const char* name, const OrtValue* value) {
  return guarded("AddInitializer", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(options, "AddInitializer");
    ONYX_CAPI_REQUIRE(name, "AddInitializer");
    ONYX_CAPI_REQUIRE(value, "AddInitializer");
    if (!value->value.is_tensor()) return make_status(ORT_INVALID_ARGUMENT, "AddInitializer: the value is not a tensor");
    // The tensor shares the caller's memory, which ORT requires to outlive the sessions made.
    options->core.add_initializer(name, value->value.tensor());
    return nullptr;
  });
}

OrtStatus* ORT_API_CALL AddExternalInitializers(OrtSessionOptions* options, const char* const* initializer_names,
                                                const OrtValue* const* initializers, size_t num_initializers) {
  return guarded("AddExternalInitializers", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(options, "AddExternalInitializers");
    if (num_initializers) {
      ONYX_CAPI_REQUIRE(initializer_names, "AddExternalInitializers");
      ONYX_CAPI_REQUIRE(initializers, "AddExternalInitializers");
    }
    std::vector<std::string> names;
    std::vector<Tensor> values;
    for (size_t i = 0; i < num_initializers; ++i) {
      if (!initializer_names[i] || !initializers[i] || !initializers[i]->value.is_tensor())
        return make_status(ORT_INVALID_ARGUMENT, "AddExternalInitializers: entry " + std::to_string(i) +
                                                     " needs a name and a tensor");
      names.emplace_back(initializer_names[i]);
      values.push_back(initializers[i]->value.tensor());  // the caller's memory, as ORT keeps it
    }
    return to_ort_status(options->core.add_external_initializers(names, values));
  });
}

OrtStatus* ORT_API_CALL SessionGetModelMetadata(const OrtSession* session, OrtModelMetadata** out) {
  return guarded("SessionGetModelMetadata", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(session, "SessionGetModelMetadata");
    ONYX_CAPI_REQUIRE(out, "SessionGetModelMetadata");
    const ir::Model& m = session->session->model();
    *out = new OrtModelMetadata{m.producer_name, m.graph.name, m.domain, m.doc, m.graph.doc, m.model_version, m.metadata};
    return nullptr;
  });
}

void ORT_API_CALL ReleaseModelMetadata(OrtModelMetadata* metadata) { delete metadata; }

#define ONYX_METADATA_STRING(Call, field)                                                              \
  OrtStatus* ORT_API_CALL Call(const OrtModelMetadata* metadata, OrtAllocator* allocator, char** value) { \
    ONYX_CAPI_REQUIRE(metadata, #Call);                                                                 \
    return copy_to_allocator(allocator, metadata->field, value, #Call);                                      \
  }
ONYX_METADATA_STRING(ModelMetadataGetProducerName, producer)
ONYX_METADATA_STRING(ModelMetadataGetGraphName, graph_name)
ONYX_METADATA_STRING(ModelMetadataGetDomain, domain)
ONYX_METADATA_STRING(ModelMetadataGetDescription, description)
ONYX_METADATA_STRING(ModelMetadataGetGraphDescription, graph_description)
#undef ONYX_METADATA_STRING

OrtStatus* ORT_API_CALL ModelMetadataGetVersion(const OrtModelMetadata* metadata, int64_t* value) {
  ONYX_CAPI_REQUIRE(metadata, "ModelMetadataGetVersion");
  ONYX_CAPI_REQUIRE(value, "ModelMetadataGetVersion");
  *value = metadata->version;
  return nullptr;
}

OrtStatus* ORT_API_CALL ModelMetadataLookupCustomMetadataMap(const OrtModelMetadata* metadata, OrtAllocator* allocator,
                                                             const char* key, char** value) {
  ONYX_CAPI_REQUIRE(metadata, "ModelMetadataLookupCustomMetadataMap");
  ONYX_CAPI_REQUIRE(key, "ModelMetadataLookupCustomMetadataMap");
  ONYX_CAPI_REQUIRE(value, "ModelMetadataLookupCustomMetadataMap");
  auto it = metadata->custom.find(key);
  if (it == metadata->custom.end()) {
    *value = nullptr;  // ORT: a missing key is no error, the value is null
    return nullptr;
  }
  return copy_to_allocator(allocator, it->second, value, "ModelMetadataLookupCustomMetadataMap");
}

OrtStatus* ORT_API_CALL ModelMetadataGetCustomMetadataMapKeys(const OrtModelMetadata* metadata, OrtAllocator* allocator,
                                                              char*** keys, int64_t* num_keys) {
  return guarded("ModelMetadataGetCustomMetadataMapKeys", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(metadata, "ModelMetadataGetCustomMetadataMapKeys");
    ONYX_CAPI_REQUIRE(allocator, "ModelMetadataGetCustomMetadataMapKeys");
    ONYX_CAPI_REQUIRE(keys, "ModelMetadataGetCustomMetadataMapKeys");
    ONYX_CAPI_REQUIRE(num_keys, "ModelMetadataGetCustomMetadataMapKeys");
    *keys = nullptr;
    *num_keys = int64_t(metadata->custom.size());
    if (metadata->custom.empty()) return nullptr;
    auto** array = static_cast<char**>(allocator->Alloc(allocator, metadata->custom.size() * sizeof(char*)));
    if (!array) return make_status(ORT_FAIL, "ModelMetadataGetCustomMetadataMapKeys: the allocator returned null");
    size_t i = 0;
    for (const auto& [key, value] : metadata->custom) {
      if (OrtStatus* bad = copy_to_allocator(allocator, key, &array[i], "ModelMetadataGetCustomMetadataMapKeys")) {
        for (size_t k = 0; k < i; ++k) allocator->Free(allocator, array[k]);
        allocator->Free(allocator, array);
        return bad;
      }
      ++i;
    }
    *keys = array;
    return nullptr;
  });
}

OrtStatus* ORT_API_CALL SessionGetOverridableInitializerCount(const OrtSession* session, size_t* out) {
  ONYX_CAPI_REQUIRE(session, "SessionGetOverridableInitializerCount");
  ONYX_CAPI_REQUIRE(out, "SessionGetOverridableInitializerCount");
  *out = overridable(session).size();
  return nullptr;
}

OrtStatus* ORT_API_CALL SessionGetOverridableInitializerName(const OrtSession* session, size_t index,
                                                             OrtAllocator* allocator, char** value) {
  return guarded("SessionGetOverridableInitializerName", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(session, "SessionGetOverridableInitializerName");
    const auto all = overridable(session);
    if (index >= all.size())
      return make_status(ORT_INVALID_ARGUMENT, "SessionGetOverridableInitializerName: index " + std::to_string(index) +
                                                   " is out of range (" + std::to_string(all.size()) + ")");
    return copy_to_allocator(allocator, all[index]->name, value, "SessionGetOverridableInitializerName");
  });
}

OrtStatus* ORT_API_CALL SessionGetOverridableInitializerTypeInfo(const OrtSession* session, size_t index,
                                                                 OrtTypeInfo** type_info) {
  return guarded("SessionGetOverridableInitializerTypeInfo", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(session, "SessionGetOverridableInitializerTypeInfo");
    ONYX_CAPI_REQUIRE(type_info, "SessionGetOverridableInitializerTypeInfo");
    const auto all = overridable(session);
    if (index >= all.size())
      return make_status(ORT_INVALID_ARGUMENT, "SessionGetOverridableInitializerTypeInfo: index " +
                                                   std::to_string(index) + " is out of range");
    *type_info = new OrtTypeInfo(type_info_of(all[index]->type));
    return nullptr;
  });
}

OrtStatus* ORT_API_CALL GetAvailableProviders(char*** out_ptr, int* provider_length) {
  return guarded("GetAvailableProviders", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(out_ptr, "GetAvailableProviders");
    ONYX_CAPI_REQUIRE(provider_length, "GetAvailableProviders");
    const std::vector<std::string> names = ProviderRegistry::global().available_ort_names();
    auto** array = new char*[names.size()];
    for (size_t i = 0; i < names.size(); ++i) {
      array[i] = new char[names[i].size() + 1];
      std::memcpy(array[i], names[i].c_str(), names[i].size() + 1);
    }
    *out_ptr = array;
    *provider_length = int(names.size());
    return nullptr;
  });
}

OrtStatus* ORT_API_CALL ReleaseAvailableProviders(char** ptr, int providers_length) {
  if (!ptr) return nullptr;
  for (int i = 0; i < providers_length; ++i) delete[] ptr[i];
  delete[] ptr;
  return nullptr;
}

OrtStatus* ORT_API_CALL CreateTensorTypeAndShapeInfo(OrtTensorTypeAndShapeInfo** out) {
  return guarded("CreateTensorTypeAndShapeInfo", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(out, "CreateTensorTypeAndShapeInfo");
    *out = new OrtTensorTypeAndShapeInfo();
    return nullptr;
  });
}

OrtStatus* ORT_API_CALL SetTensorElementType(OrtTensorTypeAndShapeInfo* info, enum ONNXTensorElementDataType type) {
  ONYX_CAPI_REQUIRE(info, "SetTensorElementType");
  info->type = type;
  return nullptr;
}

OrtStatus* ORT_API_CALL SetDimensions(OrtTensorTypeAndShapeInfo* info, const int64_t* dim_values, size_t dim_count) {
  return guarded("SetDimensions", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(info, "SetDimensions");
    if (dim_count && !dim_values) return make_status(ORT_INVALID_ARGUMENT, "SetDimensions: dim_values is null");
    info->dims.assign(dim_values, dim_values + dim_count);
    info->symbols.resize(dim_count);  // names SetSymbolicDimensions gave stay with their dims
    return nullptr;
  });
}

}  // namespace onyx::capi
