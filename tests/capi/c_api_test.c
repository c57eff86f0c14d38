/* onyx's libonnxruntime.so.1 from a C program, as ONNX Runtime's users call it: the API
 * table for every version up to 30 (NULL above), every slot filled, a session from a file and
 * from bytes, input and output names and types (a symbolic dim included), a run on caller
 * memory with the expected answers, the same through an IoBinding (as onnxruntime-node runs),
 * string tensors, config entries, 8 threads x 1,000 runs on one session, clear error codes
 * for bad calls, and ORT_NOT_IMPLEMENTED naming a member onyx does not serve yet.
 *
 *     c_api_test MODEL   (models/stripes.onnx: image [batch,1,8,8] -> probabilities [batch,3])
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capi_check.h"
#include "onnxruntime_c_api.h"

/* image[b] = stripes across rows (horizontal) or columns (vertical), two pixels wide. */
static void stripes(float* image, int horizontal) {
  for (int r = 0; r < 8; ++r)
    for (int c = 0; c < 8; ++c) image[r * 8 + c] = (float)(((horizontal ? r : c) / 2) % 2);
}

static void run_stripes(OrtSession* session) {
  float images[2 * 64];
  stripes(images, 1);      /* batch item 0: horizontal stripes -> class 1 */
  stripes(images + 64, 0); /* batch item 1: vertical stripes -> class 0 */
  const int64_t shape[4] = {2, 1, 8, 8};
  OrtMemoryInfo* cpu = NULL;
  OrtValue* input = NULL;
  OrtValue* output = NULL;
  if (!ok(api->CreateCpuMemoryInfo(OrtArenaAllocator, OrtMemTypeDefault, &cpu), "CreateCpuMemoryInfo")) return;
  if (ok(api->CreateTensorWithDataAsOrtValue(cpu, images, sizeof(images), shape, 4, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT,
                                             &input),
         "CreateTensorWithDataAsOrtValue")) {
    const char* in_names[] = {"image"};
    const char* out_names[] = {"probabilities"};
    const OrtValue* inputs[] = {input};
    if (ok(api->Run(session, NULL, in_names, inputs, 1, out_names, 1, &output), "Run")) {
      OrtTensorTypeAndShapeInfo* info = NULL;
      size_t count = 0, rank = 0;
      int64_t dims[2] = {0, 0};
      const float* p = NULL;
      if (ok(api->GetTensorTypeAndShape(output, &info), "GetTensorTypeAndShape")) {
        ok(api->GetDimensionsCount(info, &rank), "GetDimensionsCount");
        ok(api->GetDimensions(info, dims, 2), "GetDimensions");
        ok(api->GetTensorShapeElementCount(info, &count), "GetTensorShapeElementCount");
        api->ReleaseTensorTypeAndShapeInfo(info);
      }
      CHECK(rank == 2 && dims[0] == 2 && dims[1] == 3 && count == 6);
      if (ok(api->GetTensorData(output, (const void**)&p), "GetTensorData") && count == 6) {
        for (int b = 0; b < 2; ++b) {
          float sum = p[b * 3] + p[b * 3 + 1] + p[b * 3 + 2];
          CHECK(fabsf(sum - 1.0f) < 1e-5f);
        }
        CHECK(p[1] > p[0] && p[1] > p[2]); /* horizontal */
        CHECK(p[3] > p[4] && p[3] > p[5]); /* vertical */
      }
      api->ReleaseValue(output);
    }
    /* An output value the caller made over its own memory is written in place. */
    float mine[6] = {-1, -1, -1, -1, -1, -1};
    const int64_t out_shape[2] = {2, 3};
    OrtValue* preallocated = NULL;
    if (ok(api->CreateTensorWithDataAsOrtValue(cpu, mine, sizeof(mine), out_shape, 2, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT,
                                               &preallocated),
           "CreateTensorWithDataAsOrtValue (output)")) {
      if (ok(api->Run(session, NULL, in_names, inputs, 1, out_names, 1, &preallocated), "Run (preallocated)")) {
        CHECK(fabsf(mine[0] + mine[1] + mine[2] - 1.0f) < 1e-5f && mine[1] > mine[0]);
        CHECK(mine[3] > mine[4]);
      }
      api->ReleaseValue(preallocated);
    }
    const int64_t wrong_shape[2] = {3, 2};
    if (ok(api->CreateTensorWithDataAsOrtValue(cpu, mine, sizeof(mine), wrong_shape, 2,
                                               ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, &preallocated),
           "CreateTensorWithDataAsOrtValue (wrong output)")) {
      CHECK(code_of(api->Run(session, NULL, in_names, inputs, 1, out_names, 1, &preallocated)) == ORT_INVALID_ARGUMENT);
      api->ReleaseValue(preallocated);
    }
    /* A feed of the wrong rank is the caller's error, said as such. */
    const int64_t bad_shape[2] = {2, 64};
    OrtValue* bad = NULL;
    if (ok(api->CreateTensorWithDataAsOrtValue(cpu, images, sizeof(images), bad_shape, 2,
                                               ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, &bad),
           "CreateTensorWithDataAsOrtValue (rank 2)")) {
      const OrtValue* bad_inputs[] = {bad};
      OrtValue* none = NULL;
      OrtStatus* status = api->Run(session, NULL, in_names, bad_inputs, 1, out_names, 1, &none);
      CHECK(status != NULL);
      if (status) {
        CHECK(api->GetErrorCode(status) == ORT_INVALID_ARGUMENT);
        CHECK(strstr(api->GetErrorMessage(status), "image") != NULL);
        api->ReleaseStatus(status);
      }
      CHECK(none == NULL);
      api->ReleaseValue(bad);
    }
    /* Too few bytes for the shape. */
    OrtValue* short_value = NULL;
    CHECK(code_of(api->CreateTensorWithDataAsOrtValue(cpu, images, 16, shape, 4, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT,
                                                      &short_value)) == ORT_INVALID_ARGUMENT);
    api->ReleaseValue(input);
  }
  api->ReleaseMemoryInfo(cpu);
}

/* The stripes run again through an IoBinding, the output allocated by the run on the CPU. */
static void run_bound(OrtSession* session) {
  float images[64];
  stripes(images, 0); /* vertical -> class 0 */
  const int64_t shape[4] = {1, 1, 8, 8};
  OrtMemoryInfo* cpu = NULL;
  OrtValue* input = NULL;
  OrtIoBinding* binding = NULL;
  OrtAllocator* allocator = NULL;
  ok(api->GetAllocatorWithDefaultOptions(&allocator), "GetAllocatorWithDefaultOptions");
  if (!ok(api->CreateCpuMemoryInfo(OrtDeviceAllocator, OrtMemTypeDefault, &cpu), "CreateCpuMemoryInfo")) return;
  if (ok(api->CreateTensorWithDataAsOrtValue(cpu, images, sizeof(images), shape, 4, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT,
                                             &input),
         "CreateTensorWithDataAsOrtValue") &&
      ok(api->CreateIoBinding(session, &binding), "CreateIoBinding")) {
    ok(api->BindInput(binding, "image", input), "BindInput");
    ok(api->BindOutputToDevice(binding, "probabilities", cpu), "BindOutputToDevice");
    CHECK(code_of(api->BindInput(binding, "no_such_input", input)) != ORT_OK);
    if (ok(api->RunWithBinding(session, NULL, binding), "RunWithBinding")) {
      OrtValue** outputs = NULL;
      size_t count = 0;
      if (ok(api->GetBoundOutputValues(binding, allocator, &outputs, &count), "GetBoundOutputValues")) {
        CHECK(count == 1);
        const float* p = NULL;
        if (count == 1 && ok(api->GetTensorData(outputs[0], (const void**)&p), "GetTensorData"))
          CHECK(p[0] > p[1] && p[0] > p[2]);
        for (size_t i = 0; i < count; ++i) api->ReleaseValue(outputs[i]);
        allocator->Free(allocator, outputs);
      }
    }
    api->ReleaseIoBinding(binding);
  }
  api->ReleaseValue(input);
  api->ReleaseMemoryInfo(cpu);
}

/* String tensors: filled, measured and read back. */
static void strings(void) {
  OrtAllocator* allocator = NULL;
  OrtValue* value = NULL;
  const int64_t shape[1] = {3};
  const char* words[3] = {"onyx", "", "runs"};
  ok(api->GetAllocatorWithDefaultOptions(&allocator), "GetAllocatorWithDefaultOptions");
  if (!ok(api->CreateTensorAsOrtValue(allocator, shape, 1, ONNX_TENSOR_ELEMENT_DATA_TYPE_STRING, &value),
          "CreateTensorAsOrtValue (string)"))
    return;
  CHECK(code_of(api->FillStringTensor(value, words, 2)) == ORT_INVALID_ARGUMENT);
  ok(api->FillStringTensor(value, words, 3), "FillStringTensor");
  size_t length = 0;
  ok(api->GetStringTensorDataLength(value, &length), "GetStringTensorDataLength");
  CHECK(length == 8);
  char bytes[8];
  size_t offsets[3] = {9, 9, 9};
  CHECK(code_of(api->GetStringTensorContent(value, bytes, 4, offsets, 3)) == ORT_INVALID_ARGUMENT);
  ok(api->GetStringTensorContent(value, bytes, sizeof(bytes), offsets, 3), "GetStringTensorContent");
  CHECK(memcmp(bytes, "onyxruns", 8) == 0 && offsets[0] == 0 && offsets[1] == 4 && offsets[2] == 4);
  void* raw = NULL;
  CHECK(code_of(api->GetTensorMutableData(value, &raw)) == ORT_INVALID_ARGUMENT);
  api->ReleaseValue(value);
}

/* One thread's runs on the shared session: each with its own input, each answer checked. */
typedef struct {
  OrtSession* session;
  int index;
  int wrong;
} RunnerArgs;

static void* runner(void* p) {
  RunnerArgs* args = (RunnerArgs*)p;
  float image[64];
  const int horizontal = args->index % 2;
  stripes(image, horizontal);
  const int64_t shape[4] = {1, 1, 8, 8};
  const char* in_names[] = {"image"};
  const char* out_names[] = {"probabilities"};
  OrtMemoryInfo* cpu = NULL;
  OrtStatus* status = api->CreateCpuMemoryInfo(OrtDeviceAllocator, OrtMemTypeDefault, &cpu);
  if (status) {
    api->ReleaseStatus(status);
    args->wrong = 1000;
    return NULL;
  }
  for (int i = 0; i < 1000; ++i) {
    OrtValue* input = NULL;
    OrtValue* output = NULL;
    const float* p = NULL;
    status = api->CreateTensorWithDataAsOrtValue(cpu, image, sizeof(image), shape, 4, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT,
                                                 &input);
    if (!status) {
      const OrtValue* inputs[] = {input};
      status = api->Run(args->session, NULL, in_names, inputs, 1, out_names, 1, &output);
    }
    if (!status) status = api->GetTensorData(output, (const void**)&p);
    if (status || !(horizontal ? (p[1] > p[0] && p[1] > p[2]) : (p[0] > p[1] && p[0] > p[2]))) ++args->wrong;
    if (status) api->ReleaseStatus(status);
    api->ReleaseValue(output);
    api->ReleaseValue(input);
  }
  api->ReleaseMemoryInfo(cpu);
  return NULL;
}

static void run_from_threads(OrtSession* session) {
  pthread_t threads[8];
  RunnerArgs args[8];
  for (int t = 0; t < 8; ++t) {
    args[t].session = session;
    args[t].index = t;
    args[t].wrong = 0;
    CHECK(pthread_create(&threads[t], NULL, runner, &args[t]) == 0);
  }
  for (int t = 0; t < 8; ++t) {
    pthread_join(threads[t], NULL);
    CHECK(args[t].wrong == 0);
  }
}

/* Model metadata, providers, caller-made type-and-shape objects. */
static void metadata(OrtSession* session) {
  OrtAllocator* allocator = NULL;
  OrtModelMetadata* meta = NULL;
  ok(api->GetAllocatorWithDefaultOptions(&allocator), "GetAllocatorWithDefaultOptions");
  if (ok(api->SessionGetModelMetadata(session, &meta), "SessionGetModelMetadata")) {
    char* text = NULL;
    if (ok(api->ModelMetadataGetGraphName(meta, allocator, &text), "ModelMetadataGetGraphName")) {
      CHECK(strcmp(text, "stripes") == 0);
      allocator->Free(allocator, text);
    }
    if (ok(api->ModelMetadataGetProducerName(meta, allocator, &text), "ModelMetadataGetProducerName")) {
      CHECK(strstr(text, "make_stripes") != NULL);
      allocator->Free(allocator, text);
    }
    text = (char*)1;
    ok(api->ModelMetadataLookupCustomMetadataMap(meta, allocator, "absent", &text), "ModelMetadataLookupCustomMetadataMap");
    CHECK(text == NULL);
    char** keys = NULL;
    int64_t count = -1;
    ok(api->ModelMetadataGetCustomMetadataMapKeys(meta, allocator, &keys, &count), "ModelMetadataGetCustomMetadataMapKeys");
    CHECK(count == 0 && keys == NULL);
    api->ReleaseModelMetadata(meta);
  }
  size_t overridable = 9;
  ok(api->SessionGetOverridableInitializerCount(session, &overridable), "SessionGetOverridableInitializerCount");
  CHECK(overridable == 0);
  char** providers = NULL;
  int n = 0;
  if (ok(api->GetAvailableProviders(&providers, &n), "GetAvailableProviders")) {
    CHECK(n >= 1 && strcmp(providers[n - 1], "CPUExecutionProvider") == 0);
    ok(api->ReleaseAvailableProviders(providers, n), "ReleaseAvailableProviders");
  }
  OrtTensorTypeAndShapeInfo* info = NULL;
  if (ok(api->CreateTensorTypeAndShapeInfo(&info), "CreateTensorTypeAndShapeInfo")) {
    const int64_t dims[3] = {2, 5, 7};
    int64_t back[3] = {0, 0, 0};
    size_t count = 0;
    ok(api->SetTensorElementType(info, ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64), "SetTensorElementType");
    ok(api->SetDimensions(info, dims, 3), "SetDimensions");
    ok(api->GetDimensions(info, back, 3), "GetDimensions");
    ok(api->GetTensorShapeElementCount(info, &count), "GetTensorShapeElementCount");
    CHECK(back[0] == 2 && back[1] == 5 && back[2] == 7 && count == 70);
    api->ReleaseTensorTypeAndShapeInfo(info);
  }
}

/* A free dim fixed by name shows in the input's type, and a run of another batch is refused. */
static void free_dim_override(OrtEnv* env, const OrtSessionOptions* base, const char* model) {
  OrtSessionOptions* options = NULL;
  OrtSession* session = NULL;
  if (!ok(api->CloneSessionOptions(base, &options), "CloneSessionOptions")) return;
  ok(api->AddFreeDimensionOverrideByName(options, "batch", 1), "AddFreeDimensionOverrideByName");
  if (ok(api->CreateSession(env, model, options, &session), "CreateSession (batch 1)")) {
    OrtTypeInfo* type = NULL;
    if (ok(api->SessionGetInputTypeInfo(session, 0, &type), "SessionGetInputTypeInfo")) {
      const OrtTensorTypeAndShapeInfo* tensor = NULL;
      int64_t dims[4] = {0, 0, 0, 0};
      ok(api->CastTypeInfoToTensorInfo(type, &tensor), "CastTypeInfoToTensorInfo");
      if (tensor) ok(api->GetDimensions(tensor, dims, 4), "GetDimensions");
      CHECK(dims[0] == 1);
      api->ReleaseTypeInfo(type);
    }
    api->ReleaseSession(session);
  }
  api->ReleaseSessionOptions(options);
}

/* A sequence and a map made from tensors and taken apart again. */
static void containers(void) {
  OrtAllocator* allocator = NULL;
  OrtValue* a = NULL;
  OrtValue* b = NULL;
  ok(api->GetAllocatorWithDefaultOptions(&allocator), "GetAllocatorWithDefaultOptions");
  const int64_t shape[1] = {3};
  if (!ok(api->CreateTensorAsOrtValue(allocator, shape, 1, ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64, &a), "CreateTensorAsOrtValue") ||
      !ok(api->CreateTensorAsOrtValue(allocator, shape, 1, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, &b), "CreateTensorAsOrtValue"))
    return;
  int64_t* keys = NULL;
  float* values = NULL;
  ok(api->GetTensorMutableData(a, (void**)&keys), "GetTensorMutableData");
  ok(api->GetTensorMutableData(b, (void**)&values), "GetTensorMutableData");
  for (int i = 0; i < 3; ++i) {
    keys[i] = 10 + i;
    values[i] = 0.5f * (float)i;
  }
  const OrtValue* pair[2] = {a, b};
  OrtValue* map = NULL;
  if (ok(api->CreateValue(pair, 2, ONNX_TYPE_MAP, &map), "CreateValue (map)")) {
    size_t count = 0;
    enum ONNXType kind = ONNX_TYPE_UNKNOWN;
    OrtValue* got = NULL;
    const float* p = NULL;
    ok(api->GetValueCount(map, &count), "GetValueCount");
    ok(api->GetValueType(map, &kind), "GetValueType");
    CHECK(count == 2 && kind == ONNX_TYPE_MAP);
    if (ok(api->GetValue(map, 1, allocator, &got), "GetValue")) {
      ok(api->GetTensorData(got, (const void**)&p), "GetTensorData");
      CHECK(p && p[2] == 1.0f);
      api->ReleaseValue(got);
    }
    CHECK(code_of(api->GetValue(map, 2, allocator, &got)) == ORT_INVALID_ARGUMENT);
    api->ReleaseValue(map);
  }
  /* Map keys are strings or integers: float keys are refused. */
  const OrtValue* float_keys[2] = {b, b};
  CHECK(code_of(api->CreateValue(float_keys, 2, ONNX_TYPE_MAP, &map)) == ORT_INVALID_ARGUMENT);
  const OrtValue* mixed[2] = {a, b};
  OrtValue* seq = NULL;
  CHECK(code_of(api->CreateValue(mixed, 2, ONNX_TYPE_SEQUENCE, &seq)) == ORT_INVALID_ARGUMENT);
  const OrtValue* same[2] = {b, b};
  if (ok(api->CreateValue(same, 2, ONNX_TYPE_SEQUENCE, &seq), "CreateValue (sequence)")) {
    size_t count = 0;
    ok(api->GetValueCount(seq, &count), "GetValueCount");
    CHECK(count == 2);
    api->ReleaseValue(seq);
  }
  api->ReleaseValue(a);
  api->ReleaseValue(b);
}

/* A caller's logger receives onyx's messages while its environment lives. */
static char logged[512];
static void ORT_API_CALL capture(void* param, OrtLoggingLevel severity, const char* category, const char* logid,
                                 const char* code_location, const char* message) {
  (void)param;
  (void)category;
  (void)code_location;
  if (severity == ORT_LOGGING_LEVEL_WARNING && strcmp(logid, "mine") == 0)
    snprintf(logged, sizeof(logged), "%s", message);
}

static void custom_logger(void) {
  OrtEnv* env = NULL;
  OrtSessionOptions* options = NULL;
  if (!ok(api->CreateEnvWithCustomLogger(capture, NULL, ORT_LOGGING_LEVEL_WARNING, "mine", &env),
          "CreateEnvWithCustomLogger"))
    return;
  ok(api->CreateSessionOptions(&options), "CreateSessionOptions");
  ok(api->AddSessionConfigEntry(options, "custom.unknown_key", "1"), "AddSessionConfigEntry");
  CHECK(strstr(logged, "custom.unknown_key") != NULL);
  ok(api->SessionOptionsAppendExecutionProvider(options, "CPU", NULL, NULL, 0), "SessionOptionsAppendExecutionProvider");
  CHECK(code_of(api->SessionOptionsAppendExecutionProvider(options, "NoSuchProvider", NULL, NULL, 0)) ==
        ORT_NOT_IMPLEMENTED);
  api->ReleaseSessionOptions(options);
  api->ReleaseEnv(env);
}

static void inspect(OrtSession* session) {
  size_t inputs = 0, outputs = 0;
  ok(api->SessionGetInputCount(session, &inputs), "SessionGetInputCount");
  ok(api->SessionGetOutputCount(session, &outputs), "SessionGetOutputCount");
  CHECK(inputs == 1 && outputs == 1);
  OrtAllocator* allocator = NULL;
  ok(api->GetAllocatorWithDefaultOptions(&allocator), "GetAllocatorWithDefaultOptions");
  char* name = NULL;
  if (ok(api->SessionGetInputName(session, 0, allocator, &name), "SessionGetInputName")) {
    CHECK(strcmp(name, "image") == 0);
    allocator->Free(allocator, name); /* as onnxruntime-node frees it */
  }
  if (ok(api->SessionGetOutputName(session, 0, allocator, &name), "SessionGetOutputName")) {
    CHECK(strcmp(name, "probabilities") == 0);
    ok(api->AllocatorFree(allocator, name), "AllocatorFree");
  }
  CHECK(code_of(api->SessionGetInputName(session, 1, allocator, &name)) == ORT_INVALID_ARGUMENT);
  OrtTypeInfo* type = NULL;
  if (ok(api->SessionGetInputTypeInfo(session, 0, &type), "SessionGetInputTypeInfo")) {
    const OrtTensorTypeAndShapeInfo* tensor = NULL;
    enum ONNXType kind = ONNX_TYPE_UNKNOWN;
    enum ONNXTensorElementDataType element = ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
    size_t rank = 0;
    int64_t dims[4] = {0, 0, 0, 0};
    const char* symbols[4] = {NULL, NULL, NULL, NULL};
    ok(api->GetOnnxTypeFromTypeInfo(type, &kind), "GetOnnxTypeFromTypeInfo");
    CHECK(kind == ONNX_TYPE_TENSOR);
    if (ok(api->CastTypeInfoToTensorInfo(type, &tensor), "CastTypeInfoToTensorInfo") && tensor) {
      ok(api->GetTensorElementType(tensor, &element), "GetTensorElementType");
      ok(api->GetDimensionsCount(tensor, &rank), "GetDimensionsCount");
      ok(api->GetDimensions(tensor, dims, 4), "GetDimensions");
      ok(api->GetSymbolicDimensions(tensor, symbols, 4), "GetSymbolicDimensions");
      CHECK(element == ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT);
      CHECK(rank == 4 && dims[0] == -1 && dims[1] == 1 && dims[2] == 8 && dims[3] == 8);
      CHECK(symbols[0] && strcmp(symbols[0], "batch") == 0 && symbols[1] && symbols[1][0] == '\0');
    }
    api->ReleaseTypeInfo(type);
  }
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s MODEL\n", argv[0]);
    return 2;
  }
  const OrtApiBase* base = OrtGetApiBase();
  CHECK(strcmp(base->GetVersionString(), "1.30.0") == 0);
  for (uint32_t v = 1; v <= ORT_API_VERSION; ++v) CHECK(base->GetApi(v) != NULL);
  CHECK(base->GetApi(ORT_API_VERSION + 1) == NULL);
  api = base->GetApi(ORT_API_VERSION);
  if (!api) return 1;
  /* Every member is a function: a real one or a stub, never NULL. */
  typedef void (*AnyFunction)(void);
  const AnyFunction* slots = (const AnyFunction*)api;
  const size_t members = sizeof(OrtApi) / sizeof(AnyFunction);
  CHECK(members == 426);
  for (size_t i = 0; i < members; ++i) CHECK(slots[i] != NULL);
  /* A member onyx does not serve yet says so, naming the call. */
  OrtStatus* missing = api->CreateOpaqueValue("onyx", "none", NULL, 0, NULL);
  CHECK(missing && api->GetErrorCode(missing) == ORT_NOT_IMPLEMENTED);
  CHECK(missing && strstr(api->GetErrorMessage(missing), "CreateOpaqueValue") != NULL);
  if (missing) api->ReleaseStatus(missing);
  OrtStatus* made = api->CreateStatus(ORT_INVALID_GRAPH, "made by the caller");
  CHECK(api->GetErrorCode(made) == ORT_INVALID_GRAPH && strcmp(api->GetErrorMessage(made), "made by the caller") == 0);
  api->ReleaseStatus(made);

  OrtEnv* env = NULL;
  OrtSessionOptions* options = NULL;
  OrtSession* session = NULL;
  if (!ok(api->CreateEnv(ORT_LOGGING_LEVEL_WARNING, "c_api_test", &env), "CreateEnv")) return 1;
  ok(api->CreateSessionOptions(&options), "CreateSessionOptions");
  ok(api->SetIntraOpNumThreads(options, 1), "SetIntraOpNumThreads");
  ok(api->SetSessionGraphOptimizationLevel(options, ORT_ENABLE_ALL), "SetSessionGraphOptimizationLevel");
  CHECK(code_of(api->SetIntraOpNumThreads(options, -1)) == ORT_INVALID_ARGUMENT);
  ok(api->AddSessionConfigEntry(options, "session.set_denormal_as_zero", "1"), "AddSessionConfigEntry");
  CHECK(code_of(api->AddSessionConfigEntry(options, "onyx.cpu.gemm_bf16", "2")) == ORT_INVALID_ARGUMENT);
  ok(api->SetSessionLogSeverityLevel(options, 3), "SetSessionLogSeverityLevel");
  CHECK(code_of(api->SetSessionLogSeverityLevel(options, 7)) == ORT_INVALID_ARGUMENT);
  ok(api->SetLanguageProjection(env, ORT_PROJECTION_C), "SetLanguageProjection");
  strings();
  containers();
  OrtStatus* missing_file = api->CreateSession(env, "/nonexistent/model.onnx", options, &session);
  CHECK(missing_file != NULL); /* in ORT's words first ("Load model from ... failed"), bindings match them */
  if (missing_file) {
    CHECK(strstr(api->GetErrorMessage(missing_file), "Load model from /nonexistent/model.onnx failed") != NULL);
    api->ReleaseStatus(missing_file);
  }
  CHECK(session == NULL);
  CHECK(code_of(api->CreateSession(env, NULL, options, &session)) == ORT_INVALID_ARGUMENT);

  if (ok(api->CreateSession(env, argv[1], options, &session), "CreateSession")) {
    inspect(session);
    run_stripes(session);
    run_bound(session);
    run_from_threads(session);
    metadata(session);
    api->ReleaseSession(session);
  }
  free_dim_override(env, options, argv[1]);
  /* The same model from bytes. */
  FILE* f = fopen(argv[1], "rb");
  CHECK(f != NULL);
  if (f) {
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    char* bytes = malloc((size_t)size);
    CHECK(bytes && fread(bytes, 1, (size_t)size, f) == (size_t)size);
    fclose(f);
    session = NULL;
    if (bytes && ok(api->CreateSessionFromArray(env, bytes, (size_t)size, options, &session), "CreateSessionFromArray")) {
      free(bytes); /* the session keeps nothing of the caller's buffer */
      bytes = NULL;
      run_stripes(session);
      api->ReleaseSession(session);
    }
    free(bytes);
    /* Truncated bytes: a clear error, no session. */
    session = NULL;
    CHECK(code_of(api->CreateSessionFromArray(env, "\x08\x07\x12", 3, options, &session)) != ORT_OK);
    CHECK(session == NULL);
  }
  api->ReleaseSessionOptions(options);
  api->ReleaseEnv(env);
  custom_logger();
  if (failures) fprintf(stderr, "%d checks failed\n", failures);
  else printf("c_api_test: all checks passed\n");
  return failures ? 1 : 0;
}
