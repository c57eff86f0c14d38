/* The C API's descriptions of types beyond a tensor's, the config-entry getters, and values by
 * deleter and by reference, in C against onyx's libonnxruntime.so.1:
 *   typed_io.onnx's inputs: a tensor with a symbolic dim, a sequence, an optional and a
 *   sequence of maps, taken apart through the casts and the nested getters;
 *   GetTypeInfo of a sequence and a map made with CreateValue;
 *   Has/GetSessionConfigEntry (sizes, a buffer too small, a missing key), the options' entries
 *   as pairs, GetRunConfigEntry;
 *   CreateTensorWithDataAndDeleterAsOrtValue (the deleter's Free runs once, when the value
 *   goes), GetTensorSizeInBytes, GetTensorElementTypeAndShapeDataReference, HasShape;
 *   UpdateEnvWithCustomLogLevel;
 *   global threads: a session that disables its own takes the environment's, and without an
 *   environment that has them its creation fails;
 *   the CUDA provider's options in both forms (appended where onyx has the CUDA provider, refused
 *   naming CUDA where it has not; no session is made, so no GPU is needed).
 * Usage: c_api_types_test typed_io.onnx */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "capi_check.h"

static OrtTypeInfo* input_type(OrtSession* session, size_t index) {
  OrtTypeInfo* info = NULL;
  ok(api->SessionGetInputTypeInfo(session, index, &info), "SessionGetInputTypeInfo");
  return info;
}

/* The element type of a tensor type (UNDEFINED, counting a failure, for another kind). */
static enum ONNXTensorElementDataType element_of(const OrtTypeInfo* info) {
  const OrtTensorTypeAndShapeInfo* tensor = NULL;
  enum ONNXTensorElementDataType type = ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
  ok(api->CastTypeInfoToTensorInfo(info, &tensor), "CastTypeInfoToTensorInfo");
  CHECK(tensor != NULL);
  if (tensor) ok(api->GetTensorElementType(tensor, &type), "GetTensorElementType");
  return type;
}

static void model_types(OrtSession* session) {
  enum ONNXType kind = ONNX_TYPE_UNKNOWN;

  OrtTypeInfo* x = input_type(session, 0); /* float32 [N, 3] */
  if (x) {
    const OrtTensorTypeAndShapeInfo* tensor = NULL;
    const OrtMapTypeInfo* not_a_map = (const OrtMapTypeInfo*)1;
    const char* denotation = NULL;
    size_t len = 99;
    ok(api->CastTypeInfoToTensorInfo(x, &tensor), "CastTypeInfoToTensorInfo");
    CHECK(tensor && api->TensorTypeAndShape_HasShape(tensor));
    if (tensor) {
      int64_t dims[2] = {0, 0};
      const char* symbols[2] = {NULL, NULL};
      ok(api->GetDimensions(tensor, dims, 2), "GetDimensions");
      ok(api->GetSymbolicDimensions(tensor, symbols, 2), "GetSymbolicDimensions");
      CHECK(dims[0] == -1 && dims[1] == 3 && symbols[0] && strcmp(symbols[0], "N") == 0);
    }
    ok(api->CastTypeInfoToMapTypeInfo(x, &not_a_map), "CastTypeInfoToMapTypeInfo");
    CHECK(not_a_map == NULL);
    ok(api->GetDenotationFromTypeInfo(x, &denotation, &len), "GetDenotationFromTypeInfo");
    CHECK(denotation != NULL && len == 0);
    api->ReleaseTypeInfo(x);
  }

  OrtTypeInfo* s = input_type(session, 1); /* seq(float32) */
  if (s) {
    const OrtSequenceTypeInfo* seq = NULL;
    OrtTypeInfo* element = NULL;
    ok(api->GetOnnxTypeFromTypeInfo(s, &kind), "GetOnnxTypeFromTypeInfo");
    CHECK(kind == ONNX_TYPE_SEQUENCE);
    ok(api->CastTypeInfoToSequenceTypeInfo(s, &seq), "CastTypeInfoToSequenceTypeInfo");
    CHECK(seq != NULL);
    if (seq && ok(api->GetSequenceElementType(seq, &element), "GetSequenceElementType")) {
      const OrtTensorTypeAndShapeInfo* tensor = NULL;
      CHECK(element_of(element) == ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT);
      ok(api->CastTypeInfoToTensorInfo(element, &tensor), "CastTypeInfoToTensorInfo");
      CHECK(tensor && !api->TensorTypeAndShape_HasShape(tensor)); /* the model gives no shape */
      api->ReleaseTypeInfo(element);
    }
    api->ReleaseTypeInfo(s);
  }

  OrtTypeInfo* o = input_type(session, 2); /* optional(float32 [2]) */
  if (o) {
    const OrtOptionalTypeInfo* opt = NULL;
    OrtTypeInfo* contained = NULL;
    ok(api->CastTypeInfoToOptionalTypeInfo(o, &opt), "CastTypeInfoToOptionalTypeInfo");
    CHECK(opt != NULL);
    if (opt && ok(api->GetOptionalContainedTypeInfo(opt, &contained), "GetOptionalContainedTypeInfo")) {
      const OrtTensorTypeAndShapeInfo* tensor = NULL;
      size_t count = 0;
      CHECK(element_of(contained) == ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT);
      ok(api->CastTypeInfoToTensorInfo(contained, &tensor), "CastTypeInfoToTensorInfo");
      if (tensor) ok(api->GetTensorShapeElementCount(tensor, &count), "GetTensorShapeElementCount");
      CHECK(count == 2);
      api->ReleaseTypeInfo(contained);
    }
    api->ReleaseTypeInfo(o);
  }

  OrtTypeInfo* m = input_type(session, 3); /* seq(map(int64, float32)) */
  if (m) {
    const OrtSequenceTypeInfo* seq = NULL;
    OrtTypeInfo* element = NULL;
    ok(api->CastTypeInfoToSequenceTypeInfo(m, &seq), "CastTypeInfoToSequenceTypeInfo");
    if (seq && ok(api->GetSequenceElementType(seq, &element), "GetSequenceElementType")) {
      const OrtMapTypeInfo* map = NULL;
      enum ONNXTensorElementDataType key = ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
      OrtTypeInfo* value = NULL;
      ok(api->CastTypeInfoToMapTypeInfo(element, &map), "CastTypeInfoToMapTypeInfo");
      CHECK(map != NULL);
      if (map) {
        ok(api->GetMapKeyType(map, &key), "GetMapKeyType");
        CHECK(key == ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64);
        if (ok(api->GetMapValueType(map, &value), "GetMapValueType")) {
          CHECK(element_of(value) == ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT);
          api->ReleaseTypeInfo(value);
        }
      }
      api->ReleaseTypeInfo(element);
    }
    api->ReleaseTypeInfo(m);
  }
}

/* GetTypeInfo of values a caller made: a sequence of float tensors and an int64 -> float map. */
static void value_types(void) {
  OrtAllocator* allocator = NULL;
  OrtValue* keys = NULL;
  OrtValue* values = NULL;
  const int64_t shape[1] = {2};
  ok(api->GetAllocatorWithDefaultOptions(&allocator), "GetAllocatorWithDefaultOptions");
  if (!ok(api->CreateTensorAsOrtValue(allocator, shape, 1, ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64, &keys), "keys") ||
      !ok(api->CreateTensorAsOrtValue(allocator, shape, 1, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, &values), "values"))
    return;
  const OrtValue* pair[2] = {keys, values};
  OrtValue* map = NULL;
  OrtTypeInfo* info = NULL;
  if (ok(api->CreateValue(pair, 2, ONNX_TYPE_MAP, &map), "CreateValue (map)") &&
      ok(api->GetTypeInfo(map, &info), "GetTypeInfo (map)")) {
    const OrtMapTypeInfo* m = NULL;
    enum ONNXTensorElementDataType key = ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
    OrtTypeInfo* value = NULL;
    ok(api->CastTypeInfoToMapTypeInfo(info, &m), "CastTypeInfoToMapTypeInfo");
    CHECK(m != NULL);
    if (m) {
      ok(api->GetMapKeyType(m, &key), "GetMapKeyType");
      CHECK(key == ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64);
      if (ok(api->GetMapValueType(m, &value), "GetMapValueType")) {
        CHECK(element_of(value) == ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT);
        api->ReleaseTypeInfo(value);
      }
    }
    api->ReleaseTypeInfo(info);
  }
  if (map) api->ReleaseValue(map);
  const OrtValue* items[2] = {values, values};
  OrtValue* seq = NULL;
  info = NULL;
  if (ok(api->CreateValue(items, 2, ONNX_TYPE_SEQUENCE, &seq), "CreateValue (sequence)") &&
      ok(api->GetTypeInfo(seq, &info), "GetTypeInfo (sequence)")) {
    const OrtSequenceTypeInfo* s = NULL;
    OrtTypeInfo* element = NULL;
    ok(api->CastTypeInfoToSequenceTypeInfo(info, &s), "CastTypeInfoToSequenceTypeInfo");
    if (s && ok(api->GetSequenceElementType(s, &element), "GetSequenceElementType")) {
      CHECK(element_of(element) == ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT);
      api->ReleaseTypeInfo(element);
    }
    CHECK(s != NULL);
    api->ReleaseTypeInfo(info);
  }
  if (seq) api->ReleaseValue(seq);
  api->ReleaseValue(keys);
  api->ReleaseValue(values);
}

static void config_entries(void) {
  OrtSessionOptions* options = NULL;
  OrtRunOptions* run = NULL;
  if (!ok(api->CreateSessionOptions(&options), "CreateSessionOptions")) return;
  int has = -1;
  char buffer[64];
  size_t size = 0;
  ok(api->AddSessionConfigEntry(options, "session.intra_op.allow_spinning", "0"), "AddSessionConfigEntry");
  ok(api->HasSessionConfigEntry(options, "session.intra_op.allow_spinning", &has), "HasSessionConfigEntry");
  CHECK(has == 1);
  ok(api->HasSessionConfigEntry(options, "no.such.key", &has), "HasSessionConfigEntry");
  CHECK(has == 0);
  ok(api->GetSessionConfigEntry(options, "session.intra_op.allow_spinning", NULL, &size), "GetSessionConfigEntry (size)");
  CHECK(size == 2);
  size = 1; /* too small for "0" and its NUL */
  CHECK(code_of(api->GetSessionConfigEntry(options, "session.intra_op.allow_spinning", buffer, &size)) ==
        ORT_INVALID_ARGUMENT);
  CHECK(size == 2);
  size = sizeof buffer;
  ok(api->GetSessionConfigEntry(options, "session.intra_op.allow_spinning", buffer, &size), "GetSessionConfigEntry");
  CHECK(strcmp(buffer, "0") == 0 && size == 2);
  CHECK(code_of(api->GetSessionConfigEntry(options, "no.such.key", buffer, &size)) == ORT_INVALID_ARGUMENT);
  OrtKeyValuePairs* pairs = NULL;
  if (ok(api->GetSessionOptionsConfigEntries(options, &pairs), "GetSessionOptionsConfigEntries")) {
    const char* const* keys = NULL;
    const char* const* values = NULL;
    size_t count = 0;
    api->GetKeyValuePairs(pairs, &keys, &values, &count);
    CHECK(count == 1 && strcmp(keys[0], "session.intra_op.allow_spinning") == 0 && strcmp(values[0], "0") == 0);
    api->ReleaseKeyValuePairs(pairs);
  }
  api->ReleaseSessionOptions(options);
  if (ok(api->CreateRunOptions(&run), "CreateRunOptions")) {
    ok(api->AddRunConfigEntry(run, "memory.enable_memory_arena_shrinkage", "cpu:0"), "AddRunConfigEntry");
    const char* got = api->GetRunConfigEntry(run, "memory.enable_memory_arena_shrinkage");
    CHECK(got && strcmp(got, "cpu:0") == 0);
    CHECK(api->GetRunConfigEntry(run, "no.such.key") == NULL);
    api->ReleaseRunOptions(run);
  }
}

/* An allocator whose Free counts the blocks it takes back. */
static int freed = 0;
static void* ORT_API_CALL counting_alloc(OrtAllocator* self, size_t size) { (void)self; return malloc(size); }
static void ORT_API_CALL counting_free(OrtAllocator* self, void* p) { (void)self; ++freed; free(p); }

static void values_by_deleter_and_reference(void) {
  OrtAllocator deleter;
  memset(&deleter, 0, sizeof deleter);
  deleter.version = ORT_API_VERSION;
  deleter.Alloc = counting_alloc;
  deleter.Free = counting_free;
  const int64_t shape[2] = {2, 3};
  float* data = (float*)malloc(6 * sizeof(float));
  for (int i = 0; i < 6; ++i) data[i] = (float)i;
  OrtValue* value = NULL;
  CHECK(code_of(api->CreateTensorWithDataAndDeleterAsOrtValue(&deleter, data, 5 * sizeof(float), shape, 2,
                                                              ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, &value)) ==
        ORT_INVALID_ARGUMENT); /* too few bytes for 2 x 3 floats: refused, and not freed */
  CHECK(freed == 0);
  if (ok(api->CreateTensorWithDataAndDeleterAsOrtValue(&deleter, data, 6 * sizeof(float), shape, 2,
                                                       ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, &value),
         "CreateTensorWithDataAndDeleterAsOrtValue")) {
    size_t bytes = 0;
    enum ONNXTensorElementDataType type = ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
    const int64_t* dims = NULL;
    size_t rank = 0;
    float* read = NULL;
    ok(api->GetTensorSizeInBytes(value, &bytes), "GetTensorSizeInBytes");
    CHECK(bytes == 6 * sizeof(float));
    ok(api->GetTensorElementTypeAndShapeDataReference(value, &type, &dims, &rank),
       "GetTensorElementTypeAndShapeDataReference");
    CHECK(type == ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT && rank == 2 && dims && dims[0] == 2 && dims[1] == 3);
    ok(api->GetTensorMutableData(value, (void**)&read), "GetTensorMutableData");
    CHECK(read == data && read[5] == 5.0f); /* the caller's memory, not a copy */
    CHECK(freed == 0);
    api->ReleaseValue(value);
    CHECK(freed == 1);
  } else {
    free(data);
  }
}

static void global_threads(const char* model) {
  OrtThreadingOptions* threads = NULL;
  OrtEnv* global = NULL;
  OrtEnv* plain = NULL;
  OrtSessionOptions* options = NULL;
  OrtSession* session = NULL;
  if (!ok(api->CreateThreadingOptions(&threads), "CreateThreadingOptions")) return;
  ok(api->SetGlobalIntraOpNumThreads(threads, 1), "SetGlobalIntraOpNumThreads");
  ok(api->SetGlobalInterOpNumThreads(threads, 1), "SetGlobalInterOpNumThreads");
  ok(api->SetGlobalSpinControl(threads, 0), "SetGlobalSpinControl");
  CHECK(code_of(api->SetGlobalSpinControl(threads, 2)) == ORT_INVALID_ARGUMENT);
  CHECK(code_of(api->SetGlobalIntraOpNumThreads(threads, -1)) == ORT_INVALID_ARGUMENT);
  ok(api->SetGlobalDenormalAsZero(threads), "SetGlobalDenormalAsZero");
  ok(api->CreateEnvWithGlobalThreadPools(ORT_LOGGING_LEVEL_WARNING, "global", threads, &global),
     "CreateEnvWithGlobalThreadPools");
  api->ReleaseThreadingOptions(threads); /* the environment keeps its own copy */
  ok(api->CreateEnv(ORT_LOGGING_LEVEL_WARNING, "plain", &plain), "CreateEnv");
  ok(api->CreateSessionOptions(&options), "CreateSessionOptions");
  ok(api->DisablePerSessionThreads(options), "DisablePerSessionThreads");
  if (global && ok(api->CreateSession(global, model, options, &session), "CreateSession (global threads)"))
    api->ReleaseSession(session);
  session = NULL;
  if (plain) CHECK(code_of(api->CreateSession(plain, model, options, &session)) == ORT_INVALID_ARGUMENT);
  CHECK(session == NULL);
  api->ReleaseSessionOptions(options);
  if (global) api->ReleaseEnv(global);
  if (plain) api->ReleaseEnv(plain);
}

/* OK, or NOT_IMPLEMENTED naming CUDA (a build without the CUDA provider); releases the status. */
static int appended_or_no_cuda(OrtStatus* status) {
  if (!status) return 1;
  const int no_cuda = api->GetErrorCode(status) == ORT_NOT_IMPLEMENTED && strstr(api->GetErrorMessage(status), "CUDA");
  if (!no_cuda) fprintf(stderr, "CUDA append: %s\n", api->GetErrorMessage(status));
  api->ReleaseStatus(status);
  return no_cuda;
}

static void cuda_options(void) {
  OrtCUDAProviderOptionsV2* cuda = NULL;
  OrtSessionOptions* options = NULL;
  OrtAllocator* allocator = NULL;
  char* text = NULL;
  OrtStatus* created = api->CreateCUDAProviderOptions(&cuda);
  if (created) { /* a build without CUDA refuses it, as ORT's does; the V1 appends still answer */
    CHECK(api->GetErrorCode(created) == ORT_FAIL && strstr(api->GetErrorMessage(created), "CUDA"));
    api->ReleaseStatus(created);
    OrtCUDAProviderOptions v1;
    memset(&v1, 0, sizeof v1);
    ok(api->CreateSessionOptions(&options), "CreateSessionOptions");
    CHECK(appended_or_no_cuda(api->SessionOptionsAppendExecutionProvider_CUDA(options, &v1)));
    api->ReleaseSessionOptions(options);
    return;
  }
  ok(api->GetAllocatorWithDefaultOptions(&allocator), "GetAllocatorWithDefaultOptions");
  const char* keys[2] = {"gpu_mem_limit", "arena_extend_strategy"};
  const char* values[2] = {"1048576", "kSameAsRequested"};
  ok(api->UpdateCUDAProviderOptions(cuda, keys, values, 2), "UpdateCUDAProviderOptions");
  const char* bad_keys[2] = {"enable_cuda_graph", NULL};
  CHECK(code_of(api->UpdateCUDAProviderOptions(cuda, bad_keys, values, 2)) == ORT_INVALID_ARGUMENT);
  if (ok(api->GetCUDAProviderOptionsAsString(cuda, allocator, &text), "GetCUDAProviderOptionsAsString")) {
    /* the failed update changed nothing */
    CHECK(strcmp(text, "arena_extend_strategy=kSameAsRequested;gpu_mem_limit=1048576") == 0);
    api->AllocatorFree(allocator, text);
  }
  /* device_id is taken where a GPU can be used, refused (naming it) where none can. */
  const char* device_key[1] = {"device_id"};
  const char* device_zero[1] = {"0"};
  OrtStatus* device = api->UpdateCUDAProviderOptions(cuda, device_key, device_zero, 1);
  if (device) {
    CHECK(api->GetErrorCode(device) == ORT_INVALID_ARGUMENT && strstr(api->GetErrorMessage(device), "device_id"));
    api->ReleaseStatus(device);
  }
  ok(api->CreateSessionOptions(&options), "CreateSessionOptions");
  /* Appended where onyx was built with CUDA; a build without it says so (NOT_IMPLEMENTED). */
  CHECK(appended_or_no_cuda(api->SessionOptionsAppendExecutionProvider_CUDA_V2(options, cuda)));
  OrtCUDAProviderOptions v1;
  memset(&v1, 0, sizeof v1);
  v1.gpu_mem_limit = SIZE_MAX;
  CHECK(appended_or_no_cuda(api->SessionOptionsAppendExecutionProvider_CUDA(options, &v1)));
  v1.has_user_compute_stream = 1;
  CHECK(code_of(api->SessionOptionsAppendExecutionProvider_CUDA(options, &v1)) == ORT_NOT_IMPLEMENTED);
  api->ReleaseSessionOptions(options);
  api->ReleaseCUDAProviderOptions(cuda);
}

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: c_api_types_test typed_io.onnx\n");
    return 2;
  }
  api = OrtGetApiBase()->GetApi(ORT_API_VERSION);
  OrtEnv* env = NULL;
  OrtSessionOptions* options = NULL;
  OrtSession* session = NULL;
  if (!ok(api->CreateEnv(ORT_LOGGING_LEVEL_WARNING, "types", &env), "CreateEnv")) return 1;
  ok(api->UpdateEnvWithCustomLogLevel(env, ORT_LOGGING_LEVEL_ERROR), "UpdateEnvWithCustomLogLevel");
  CHECK(code_of(api->UpdateEnvWithCustomLogLevel(env, (OrtLoggingLevel)9)) == ORT_INVALID_ARGUMENT);
  ok(api->CreateSessionOptions(&options), "CreateSessionOptions");
  if (ok(api->CreateSession(env, argv[1], options, &session), "CreateSession")) {
    model_types(session);
    api->ReleaseSession(session);
  }
  api->ReleaseSessionOptions(options);
  value_types();
  config_entries();
  values_by_deleter_and_reference();
  global_threads(argv[1]);
  cuda_options();
  api->ReleaseEnv(env);
  if (failures) fprintf(stderr, "%d check(s) failed\n", failures);
  else printf("c_api_types_test: all checks passed\n");
  return failures ? 1 : 0;
}
