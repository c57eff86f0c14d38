/* A sequence of maps through ORT's C API, as ORT's users read a classifier's ZipMap output
 * (tests/capi/zipmap.onnx, labels 3, 1, 7): the output's type information (sequence of
 * map(int64, tensor float)), then the value: one map per row, each a key tensor and a value
 * tensor (GetValue 0 and 1), keys ascending as in ORT's ordered maps. It passes on ORT 1.30's
 * own library too (LD_PRELOAD it), which is how its expectations were checked. */
#include <stdint.h>
#include <stdio.h>

#include "capi_check.h"

static void output_type(OrtSession* session) {
  OrtTypeInfo* info = NULL;
  if (!ok(api->SessionGetOutputTypeInfo(session, 0, &info), "SessionGetOutputTypeInfo")) return;
  enum ONNXType kind = ONNX_TYPE_UNKNOWN;
  ok(api->GetOnnxTypeFromTypeInfo(info, &kind), "GetOnnxTypeFromTypeInfo");
  CHECK(kind == ONNX_TYPE_SEQUENCE);
  const OrtSequenceTypeInfo* seq = NULL;
  OrtTypeInfo* element = NULL;
  if (ok(api->CastTypeInfoToSequenceTypeInfo(info, &seq), "CastTypeInfoToSequenceTypeInfo") && seq &&
      ok(api->GetSequenceElementType(seq, &element), "GetSequenceElementType")) {
    ok(api->GetOnnxTypeFromTypeInfo(element, &kind), "GetOnnxTypeFromTypeInfo (element)");
    CHECK(kind == ONNX_TYPE_MAP);
    const OrtMapTypeInfo* map = NULL;
    if (ok(api->CastTypeInfoToMapTypeInfo(element, &map), "CastTypeInfoToMapTypeInfo") && map) {
      ONNXTensorElementDataType key = ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
      ok(api->GetMapKeyType(map, &key), "GetMapKeyType");
      CHECK(key == ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64);
      OrtTypeInfo* value = NULL;
      if (ok(api->GetMapValueType(map, &value), "GetMapValueType")) {
        const OrtTensorTypeAndShapeInfo* tensor = NULL;
        ONNXTensorElementDataType elem = ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
        if (ok(api->CastTypeInfoToTensorInfo(value, &tensor), "CastTypeInfoToTensorInfo") && tensor)
          ok(api->GetTensorElementType(tensor, &elem), "GetTensorElementType");
        CHECK(elem == ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT);
        api->ReleaseTypeInfo(value);
      }
    }
    api->ReleaseTypeInfo(element);
  }
  api->ReleaseTypeInfo(info);
}

/* Map `row` of the output: keys must be 1, 3, 7 and values p[row][1], p[row][0], p[row][2]. */
static void check_map(const OrtValue* maps, size_t row, const float* p, OrtAllocator* allocator) {
  OrtValue* map = NULL;
  if (!ok(api->GetValue(maps, (int)row, allocator, &map), "GetValue (map)")) return;
  enum ONNXType kind = ONNX_TYPE_UNKNOWN;
  size_t count = 0;
  ok(api->GetValueType(map, &kind), "GetValueType (map)");
  ok(api->GetValueCount(map, &count), "GetValueCount (map)");
  CHECK(kind == ONNX_TYPE_MAP && count == 2);
  OrtValue* keys = NULL;
  OrtValue* values = NULL;
  if (ok(api->GetValue(map, 0, allocator, &keys), "GetValue (keys)") &&
      ok(api->GetValue(map, 1, allocator, &values), "GetValue (values)")) {
    OrtTensorTypeAndShapeInfo* shape = NULL;
    size_t n = 0;
    if (ok(api->GetTensorTypeAndShape(keys, &shape), "GetTensorTypeAndShape")) {
      ok(api->GetTensorShapeElementCount(shape, &n), "GetTensorShapeElementCount");
      api->ReleaseTensorTypeAndShapeInfo(shape);
    }
    const int64_t* k = NULL;
    const float* v = NULL;
    ok(api->GetTensorData(keys, (const void**)&k), "GetTensorData (keys)");
    ok(api->GetTensorData(values, (const void**)&v), "GetTensorData (values)");
    CHECK(n == 3 && k && v);
    if (n == 3 && k && v) {
      const int64_t want_keys[3] = {1, 3, 7};
      const int column[3] = {1, 0, 2}; /* where each key's value sits in the row */
      for (int i = 0; i < 3; ++i) {
        CHECK(k[i] == want_keys[i]);
        CHECK(v[i] == p[row * 3 + (size_t)column[i]]);
      }
    }
  }
  if (keys) api->ReleaseValue(keys);
  if (values) api->ReleaseValue(values);
  /* An index past the pair fails (onyx: INVALID_ARGUMENT; ORT 1.30: FAIL). */
  CHECK(code_of(api->GetValue(map, 2, allocator, &keys)) != ORT_OK);
  api->ReleaseValue(map);
}

static void run(OrtSession* session, OrtAllocator* allocator) {
  float p[2 * 3] = {0.5f, 0.25f, 0.125f, 1.0f, 2.0f, 3.0f};
  const int64_t shape[2] = {2, 3};
  OrtMemoryInfo* cpu = NULL;
  OrtValue* input = NULL;
  if (!ok(api->CreateCpuMemoryInfo(OrtArenaAllocator, OrtMemTypeDefault, &cpu), "CreateCpuMemoryInfo") ||
      !ok(api->CreateTensorWithDataAsOrtValue(cpu, p, sizeof p, shape, 2, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, &input),
          "CreateTensorWithDataAsOrtValue"))
    return;
  const char* in_names[1] = {"p"};
  const char* out_names[1] = {"maps"};
  const OrtValue* feeds[1] = {input};
  OrtValue* maps = NULL;
  if (ok(api->Run(session, NULL, in_names, feeds, 1, out_names, 1, &maps), "Run")) {
    enum ONNXType kind = ONNX_TYPE_UNKNOWN;
    size_t count = 0;
    ok(api->GetValueType(maps, &kind), "GetValueType");
    ok(api->GetValueCount(maps, &count), "GetValueCount");
    CHECK(kind == ONNX_TYPE_SEQUENCE && count == 2);
    for (size_t row = 0; row < count && row < 2; ++row) check_map(maps, row, p, allocator);
    OrtValue* past_end = NULL;
    /* Past the sequence's end fails (onyx: INVALID_ARGUMENT; ORT 1.30: RUNTIME_EXCEPTION). */
    CHECK(code_of(api->GetValue(maps, 2, allocator, &past_end)) != ORT_OK);
    api->ReleaseValue(maps);
  }
  api->ReleaseValue(input);
  api->ReleaseMemoryInfo(cpu);
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s ZIPMAP_MODEL\n", argv[0]);
    return 2;
  }
  api = OrtGetApiBase()->GetApi(ORT_API_VERSION);
  OrtEnv* env = NULL;
  if (!api || !ok(api->CreateEnv(ORT_LOGGING_LEVEL_WARNING, "c_api_zipmap_test", &env), "CreateEnv")) return 1;
  OrtAllocator* allocator = NULL;
  ok(api->GetAllocatorWithDefaultOptions(&allocator), "GetAllocatorWithDefaultOptions");
  OrtSessionOptions* options = NULL;
  OrtSession* session = NULL;
  ok(api->CreateSessionOptions(&options), "CreateSessionOptions");
  if (ok(api->CreateSession(env, argv[1], options, &session), "CreateSession")) {
    output_type(session);
    run(session, allocator);
    api->ReleaseSession(session);
  }
  api->ReleaseSessionOptions(options);
  api->ReleaseEnv(env);
  if (failures) fprintf(stderr, "%d checks failed\n", failures);
  else printf("c_api_zipmap_test: all checks passed\n");
  return failures ? 1 : 0;
}
