/* The second half of c_api_extras_test (c_api_extras_test.c has the first and main): values
 * (IsSparseTensor, GetResizedStringTensorElementBuffer, CopyTensors, SetSymbolicDimensions),
 * CreateEnvWithOptions, Set/GetCurrentGpuDeviceId, the CUDA options' pointer values, and a custom
 * op defined here for KernelInfoGetAttributeArray_string and KernelContext_GetPreallocatedOutput. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "c_api_extras.h"

static void value_extras(OrtEnv* env) {
  OrtAllocator* allocator = NULL;
  OrtValue* strings = NULL;
  OrtValue* floats = NULL;
  OrtValue* copy = NULL;
  OrtValue* ints = NULL;
  OrtValue* int_copy = NULL;
  int sparse = -1;
  const int64_t three[1] = {3};
  const int64_t two_by_three[2] = {2, 3};
  ok(api->GetAllocatorWithDefaultOptions(&allocator), "GetAllocatorWithDefaultOptions");
  if (!ok(api->CreateTensorAsOrtValue(allocator, three, 1, ONNX_TENSOR_ELEMENT_DATA_TYPE_STRING, &strings), "strings") ||
      !ok(api->CreateTensorAsOrtValue(allocator, two_by_three, 2, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, &floats), "floats") ||
      !ok(api->CreateTensorAsOrtValue(allocator, two_by_three, 2, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, &copy), "copy") ||
      !ok(api->CreateTensorAsOrtValue(allocator, three, 1, ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64, &ints), "ints") ||
      !ok(api->CreateTensorAsOrtValue(allocator, three, 1, ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64, &int_copy), "int copy"))
    return;
  ok(api->IsSparseTensor(floats, &sparse), "IsSparseTensor");
  CHECK(sparse == 0);
  CHECK(failed_with(api->IsSparseTensor(NULL, &sparse), ORT_INVALID_ARGUMENT, NULL));

  /* String elements resized in place. */
  const char* words[3] = {"a", "bb", "ccc"};
  char* buffer = NULL;
  char text[8] = {0};
  size_t length = 0;
  ok(api->FillStringTensor(strings, words, 3), "FillStringTensor");
  if (ok(api->GetResizedStringTensorElementBuffer(strings, 1, 5, &buffer), "GetResizedStringTensorElementBuffer"))
    memcpy(buffer, "hello", 5);
  ok(api->GetStringTensorElementLength(strings, 1, &length), "GetStringTensorElementLength");
  ok(api->GetStringTensorElement(strings, sizeof text, 1, text), "GetStringTensorElement");
  CHECK(length == 5 && memcmp(text, "hello", 5) == 0);
  if (ok(api->GetResizedStringTensorElementBuffer(strings, 2, 1, &buffer), "GetResizedStringTensorElementBuffer"))
    CHECK(buffer[0] == 'c'); /* the bytes up to the new length are kept */
  ok(api->GetStringTensorElementLength(strings, 2, &length), "GetStringTensorElementLength");
  CHECK(length == 1);
  CHECK(failed_with(api->GetResizedStringTensorElementBuffer(strings, 3, 1, &buffer), ORT_INVALID_ARGUMENT, "out of range"));
  CHECK(failed_with(api->GetResizedStringTensorElementBuffer(floats, 0, 1, &buffer), ORT_INVALID_ARGUMENT, "string"));
  CHECK(failed_with(api->GetResizedStringTensorElementBuffer(strings, 0, 1, NULL), ORT_INVALID_ARGUMENT, NULL));

  /* CopyTensors: all pairs or none. */
  float* src = NULL;
  float* dst = NULL;
  int64_t* isrc = NULL;
  int64_t* idst = NULL;
  api->GetTensorMutableData(floats, (void**)&src);
  api->GetTensorMutableData(copy, (void**)&dst);
  api->GetTensorMutableData(ints, (void**)&isrc);
  api->GetTensorMutableData(int_copy, (void**)&idst);
  for (int i = 0; i < 6; ++i) src[i] = (float)i + 0.5f;
  for (int i = 0; i < 3; ++i) isrc[i] = 10 + i;
  const OrtValue* from[2] = {floats, ints};
  OrtValue* to[2] = {copy, int_copy};
  OrtValue* mismatched[2] = {copy, copy};
  CHECK(failed_with(api->CopyTensors(env, from, mismatched, NULL, 2), ORT_INVALID_ARGUMENT, "pair 1"));
  CHECK(dst[5] == 0.0f); /* the first pair was not copied either */
  OrtValue* wrong_shape[1] = {int_copy};
  const OrtValue* floats_only[1] = {floats};
  CHECK(failed_with(api->CopyTensors(env, floats_only, wrong_shape, NULL, 1), ORT_INVALID_ARGUMENT, "must match"));
  CHECK(failed_with(api->CopyTensors(NULL, from, to, NULL, 2), ORT_INVALID_ARGUMENT, "env"));
  CHECK(failed_with(api->CopyTensors(env, from, to, (OrtSyncStream*)1, 2), ORT_INVALID_ARGUMENT, "OrtSyncStream"));
  CHECK(failed_with(api->CopyTensors(env, NULL, to, NULL, 2), ORT_INVALID_ARGUMENT, NULL));
  ok(api->CopyTensors(env, NULL, NULL, NULL, 0), "CopyTensors (none)");
  if (ok(api->CopyTensors(env, from, to, NULL, 2), "CopyTensors")) {
    CHECK(memcmp(src, dst, 6 * sizeof(float)) == 0 && dst != src);
    CHECK(idst[0] == 10 && idst[2] == 12);
  }
  OrtValue* strings_copy = NULL;
  if (ok(api->CreateTensorAsOrtValue(allocator, three, 1, ONNX_TENSOR_ELEMENT_DATA_TYPE_STRING, &strings_copy), "strings")) {
    const OrtValue* s_from[1] = {strings};
    OrtValue* s_to[1] = {strings_copy};
    memset(text, 0, sizeof text);
    ok(api->CopyTensors(env, s_from, s_to, NULL, 1), "CopyTensors (strings)");
    ok(api->GetStringTensorElement(strings_copy, sizeof text, 1, text), "GetStringTensorElement");
    CHECK(memcmp(text, "hello", 5) == 0);
    api->ReleaseValue(strings_copy);
  }

  /* Symbolic dims set by the caller. */
  OrtTensorTypeAndShapeInfo* info = NULL;
  if (ok(api->CreateTensorTypeAndShapeInfo(&info), "CreateTensorTypeAndShapeInfo")) {
    const int64_t dims[2] = {-1, 3};
    const int64_t more[3] = {-1, 3, 4};
    const char* names[2] = {"batch", ""};
    const char* with_null[1] = {NULL};
    const char* got[3] = {NULL, NULL, NULL};
    ok(api->SetDimensions(info, dims, 2), "SetDimensions");
    ok(api->SetSymbolicDimensions(info, names, 2), "SetSymbolicDimensions");
    ok(api->GetSymbolicDimensions(info, got, 2), "GetSymbolicDimensions");
    CHECK(got[0] && strcmp(got[0], "batch") == 0 && got[1] && strcmp(got[1], "") == 0);
    ok(api->SetDimensions(info, more, 3), "SetDimensions (3 dims)");
    ok(api->GetSymbolicDimensions(info, got, 3), "GetSymbolicDimensions");
    CHECK(got[0] && strcmp(got[0], "batch") == 0 && got[2] && strcmp(got[2], "") == 0);
    CHECK(failed_with(api->SetSymbolicDimensions(info, with_null, 1), ORT_INVALID_ARGUMENT, "null"));
    CHECK(failed_with(api->SetSymbolicDimensions(NULL, names, 2), ORT_INVALID_ARGUMENT, NULL));
    api->ReleaseTensorTypeAndShapeInfo(info);
  }
  api->ReleaseValue(strings);
  api->ReleaseValue(floats);
  api->ReleaseValue(copy);
  api->ReleaseValue(ints);
  api->ReleaseValue(int_copy);
}

static int logged = 0;
static void ORT_API_CALL counting_logger(void* param, OrtLoggingLevel severity, const char* category,
                                         const char* logid, const char* where, const char* message) {
  (void)severity; (void)category; (void)where;
  if (strstr(message, "extras.unknown_key") && strcmp(logid, "extras") == 0) ++*(int*)param;
}

static void env_options(const char* model) {
  OrtThreadingOptions* threads = NULL;
  OrtKeyValuePairs* config = NULL;
  OrtEnv* env = NULL;
  OrtEnvCreationOptions o;
  memset(&o, 0, sizeof o);
  o.version = ORT_API_VERSION;
  o.logging_severity_level = ORT_LOGGING_LEVEL_WARNING;
  o.log_id = "extras";
  o.custom_logging_function = counting_logger;
  o.custom_logging_param = &logged;
  ok(api->CreateThreadingOptions(&threads), "CreateThreadingOptions");
  ok(api->SetGlobalIntraOpNumThreads(threads, 1), "SetGlobalIntraOpNumThreads");
  o.threading_options = threads;
  api->CreateKeyValuePairs(&config);
  api->AddKeyValuePair(config, "some.env.key", "1");
  o.config_entries = config;
  if (ok(api->CreateEnvWithOptions(&o, &env), "CreateEnvWithOptions")) {
    OrtSessionOptions* options = NULL;
    OrtSession* session = NULL;
    ok(api->CreateSessionOptions(&options), "CreateSessionOptions");
    ok(api->AddSessionConfigEntry(options, "extras.unknown_key", "1"), "AddSessionConfigEntry");
    CHECK(logged == 1); /* the warning went to the environment's function */
    ok(api->DisablePerSessionThreads(options), "DisablePerSessionThreads");
    if (ok(api->CreateSession(env, model, options, &session), "CreateSession (the environment's threads)"))
      api->ReleaseSession(session);
    api->ReleaseSessionOptions(options);
    api->ReleaseEnv(env);
  }
  api->ReleaseThreadingOptions(threads); /* the environment kept a copy */
  api->ReleaseKeyValuePairs(config);
  env = NULL;
  o.custom_logging_function = NULL;
  o.version = 0;
  CHECK(failed_with(api->CreateEnvWithOptions(&o, &env), ORT_INVALID_ARGUMENT, "version"));
  o.version = ORT_API_VERSION + 1;
  CHECK(failed_with(api->CreateEnvWithOptions(&o, &env), ORT_INVALID_ARGUMENT, "version"));
  o.version = ORT_API_VERSION;
  o.logging_severity_level = 7;
  CHECK(failed_with(api->CreateEnvWithOptions(&o, &env), ORT_INVALID_ARGUMENT, "logging_severity_level"));
  CHECK(failed_with(api->CreateEnvWithOptions(NULL, &env), ORT_INVALID_ARGUMENT, NULL));
  CHECK(env == NULL);
}

/* OK, or an error naming CUDA (a build without it, a machine without a usable device). */
static int ok_or_no_cuda(OrtStatus* status) {
  if (!status) return 1;
  const char* m = api->GetErrorMessage(status);
  const OrtErrorCode code = api->GetErrorCode(status);
  int expected = (code == ORT_NOT_IMPLEMENTED || code == ORT_FAIL) && (strstr(m, "CUDA") || strstr(m, "cuda"));
  if (!expected || getenv("ONYX_TEST_EXPECT_GPU")) {
    fprintf(stderr, "GPU call: %s\n", m);
    expected = 0;
  }
  api->ReleaseStatus(status);
  return expected ? 2 : 0;
}

/* With a usable GPU: a session on the CUDA provider hands out no device allocator. */
static void cuda_session_allocator(OrtEnv* env, const char* model) {
  OrtSessionOptions* options = NULL;
  OrtSession* session = NULL;
  OrtMemoryInfo* cuda = NULL;
  OrtAllocator* allocator = NULL;
  ok(api->CreateSessionOptions(&options), "CreateSessionOptions");
  ok(api->SessionOptionsAppendExecutionProvider(options, "CUDA", NULL, NULL, 0), "SessionOptionsAppendExecutionProvider");
  ok(api->CreateMemoryInfo("Cuda", OrtDeviceAllocator, 0, OrtMemTypeDefault, &cuda), "CreateMemoryInfo");
  if (cuda && ok(api->CreateSession(env, model, options, &session), "CreateSession (CUDA)")) {
    CHECK(failed_with(api->CreateAllocator(session, cuda, &allocator), ORT_NOT_IMPLEMENTED, "IoBinding"));
    CHECK(allocator == NULL);
    api->ReleaseSession(session);
  }
  api->ReleaseMemoryInfo(cuda);
  api->ReleaseSessionOptions(options);
}

static void gpu_and_cuda_options(OrtEnv* env, const char* model) {
  int device = -1;
  CHECK(failed_with(api->SetCurrentGpuDeviceId(-1), ORT_INVALID_ARGUMENT, "negative"));
  CHECK(failed_with(api->GetCurrentGpuDeviceId(NULL), ORT_INVALID_ARGUMENT, NULL));
  const int set = ok_or_no_cuda(api->SetCurrentGpuDeviceId(0));
  CHECK(set != 0);
  if (set == 1) {
    CHECK(ok(api->GetCurrentGpuDeviceId(&device), "GetCurrentGpuDeviceId") && device == 0);
    cuda_session_allocator(env, model);
  }
  OrtStatus* far = api->SetCurrentGpuDeviceId(100000); /* no such device, or no CUDA */
  CHECK(far != NULL);
  if (far) api->ReleaseStatus(far);

  OrtCUDAProviderOptionsV2* cuda = NULL;
  OrtArenaCfg* cfg = NULL;
  void* got = (void*)1;
  OrtStatus* created = api->CreateCUDAProviderOptions(&cuda);
  if (created) { /* a build without CUDA refuses it, as ORT's does */
    CHECK(api->GetErrorCode(created) == ORT_FAIL && strstr(api->GetErrorMessage(created), "CUDA"));
    api->ReleaseStatus(created);
    return;
  }
  ok(api->GetCUDAProviderOptionsByName(cuda, "default_memory_arena_cfg", &got), "GetCUDAProviderOptionsByName");
  CHECK(got == NULL);
  ok(api->CreateArenaCfg(1 << 20, 0, -1, -1, &cfg), "CreateArenaCfg");
  ok(api->UpdateCUDAProviderOptionsWithValue(cuda, "default_memory_arena_cfg", cfg), "UpdateCUDAProviderOptionsWithValue");
  ok(api->GetCUDAProviderOptionsByName(cuda, "default_memory_arena_cfg", &got), "GetCUDAProviderOptionsByName");
  CHECK(got == cfg);
  ok(api->UpdateCUDAProviderOptionsWithValue(cuda, "user_compute_stream", NULL), "user_compute_stream = NULL");
  CHECK(failed_with(api->UpdateCUDAProviderOptionsWithValue(cuda, "user_compute_stream", &device), ORT_NOT_IMPLEMENTED,
                    "stream"));
  got = (void*)1;
  ok(api->GetCUDAProviderOptionsByName(cuda, "user_compute_stream", &got), "GetCUDAProviderOptionsByName (stream)");
  CHECK(got == NULL);
  CHECK(failed_with(api->UpdateCUDAProviderOptionsWithValue(cuda, "device_id", &device), ORT_INVALID_ARGUMENT, "device_id"));
  CHECK(failed_with(api->GetCUDAProviderOptionsByName(cuda, "device_id", &got), ORT_INVALID_ARGUMENT, "device_id"));
  CHECK(failed_with(api->GetCUDAProviderOptionsByName(cuda, NULL, &got), ORT_INVALID_ARGUMENT, NULL));
  OrtSessionOptions* options = NULL;
  ok(api->CreateSessionOptions(&options), "CreateSessionOptions");
  CHECK(ok_or_no_cuda(api->SessionOptionsAppendExecutionProvider_CUDA_V2(options, cuda)) != 0);
  api->ReleaseSessionOptions(options);
  api->ReleaseCUDAProviderOptions(cuda);
  api->ReleaseArenaCfg(cfg);
}

/* A custom op defined here, Labels(x) -> y = x * scale, reading its strings attribute and
 * looking for its output before and after making it. What it saw is checked by main. */
static struct {
  int created, labels_ok, errors_ok, computed, before_null, after_same, bad_index_refused;
} seen;

static OrtStatus* ORT_API_CALL labels_create(const OrtCustomOp* op, const OrtApi* a, const OrtKernelInfo* info,
                                             void** kernel) {
  (void)op;
  OrtAllocator* allocator = NULL;
  char** labels = NULL;
  size_t count = 0;
  int64_t* scale = (int64_t*)malloc(sizeof(int64_t));
  a->GetAllocatorWithDefaultOptions(&allocator);
  OrtStatus* st = a->KernelInfoGetAttribute_int64(info, "scale", scale);
  if (!st) st = a->KernelInfoGetAttributeArray_string(info, "labels", allocator, &labels, &count);
  if (st) {
    free(scale);
    return st;
  }
  seen.labels_ok = count == 3 && strcmp(labels[0], "alpha") == 0 && strcmp(labels[1], "") == 0 &&
                   strcmp(labels[2], "gamma") == 0;
  for (size_t i = 0; i < count; ++i) allocator->Free(allocator, labels[i]);
  allocator->Free(allocator, labels);
  seen.errors_ok = failed_with(a->KernelInfoGetAttributeArray_string(info, "scale", allocator, &labels, &count),
                               ORT_INVALID_ARGUMENT, "another type") &&
                   failed_with(a->KernelInfoGetAttributeArray_string(info, "missing", allocator, &labels, &count),
                               ORT_FAIL, "missing") &&
                   failed_with(a->KernelInfoGetAttributeArray_string(info, "labels", NULL, &labels, &count),
                               ORT_INVALID_ARGUMENT, "allocator") &&
                   failed_with(a->KernelInfoGetAttributeArray_string(info, "labels", allocator, &labels, NULL),
                               ORT_INVALID_ARGUMENT, "size");
  seen.created = 1;
  *kernel = scale;
  return NULL;
}

static OrtStatus* ORT_API_CALL labels_compute(void* kernel, OrtKernelContext* context) {
  const OrtValue* x = NULL;
  OrtValue* before = (OrtValue*)1;
  OrtValue* y = NULL;
  OrtValue* after = NULL;
  const float* px = NULL;
  float* py = NULL;
  const int64_t dims[1] = {3};
  OrtStatus* st = api->KernelContext_GetInput(context, 0, &x);
  if (!st) st = api->KernelContext_GetPreallocatedOutput(context, 0, &before);
  if (!st) st = api->KernelContext_GetOutput(context, 0, dims, 1, &y);
  if (!st) st = api->KernelContext_GetPreallocatedOutput(context, 0, &after);
  if (st) return st;
  seen.before_null = before == NULL;
  seen.after_same = after == y && y != NULL;
  seen.bad_index_refused = failed_with(api->KernelContext_GetPreallocatedOutput(context, 1, &after),
                                       ORT_INVALID_ARGUMENT, "out of range") &&
                           failed_with(api->KernelContext_GetPreallocatedOutput(context, 0, NULL),
                                       ORT_INVALID_ARGUMENT, NULL);
  api->GetTensorData(x, (const void**)&px);
  api->GetTensorMutableData(y, (void**)&py);
  for (int i = 0; i < 3; ++i) py[i] = px[i] * (float)*(const int64_t*)kernel;
  seen.computed = 1;
  return NULL;
}

static void ORT_API_CALL labels_destroy(void* kernel) { free(kernel); }
static const char* ORT_API_CALL labels_name(const OrtCustomOp* op) { (void)op; return "Labels"; }
static const char* ORT_API_CALL on_cpu(const OrtCustomOp* op) { (void)op; return "CPUExecutionProvider"; }
static ONNXTensorElementDataType ORT_API_CALL float_type(const OrtCustomOp* op, size_t i) {
  (void)op; (void)i;
  return ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT;
}
static size_t ORT_API_CALL one(const OrtCustomOp* op) { (void)op; return 1; }
static OrtCustomOpInputOutputCharacteristic ORT_API_CALL required(const OrtCustomOp* op, size_t i) {
  (void)op; (void)i;
  return INPUT_OUTPUT_REQUIRED;
}
static int ORT_API_CALL first_version(const OrtCustomOp* op) { (void)op; return 1; }
static int ORT_API_CALL no_end(const OrtCustomOp* op) { (void)op; return 2147483647; }

static void custom_op(OrtEnv* env, const char* model) {
  static OrtCustomOp op;
  memset(&op, 0, sizeof op);
  op.version = ORT_API_VERSION;
  op.GetName = labels_name;
  op.GetExecutionProviderType = on_cpu;
  op.GetInputType = float_type;
  op.GetInputTypeCount = one;
  op.GetOutputType = float_type;
  op.GetOutputTypeCount = one;
  op.KernelDestroy = labels_destroy;
  op.GetInputCharacteristic = required;
  op.GetOutputCharacteristic = required;
  op.CreateKernelV2 = labels_create;
  op.KernelComputeV2 = labels_compute;
  op.GetStartVersion = first_version;
  op.GetEndVersion = no_end;
  OrtCustomOpDomain* domain = NULL;
  OrtSessionOptions* options = NULL;
  OrtSession* session = NULL;
  OrtMemoryInfo* cpu = make_cpu_info();
  ok(api->CreateCustomOpDomain("onyx.extras", &domain), "CreateCustomOpDomain");
  ok(api->CustomOpDomain_Add(domain, &op), "CustomOpDomain_Add");
  ok(api->CreateSessionOptions(&options), "CreateSessionOptions");
  ok(api->AddCustomOpDomain(options, domain), "AddCustomOpDomain");
  if (cpu && ok(api->CreateSession(env, model, options, &session), "CreateSession (custom op)")) {
    float x[3] = {1.0f, -2.0f, 3.5f};
    const int64_t shape[1] = {3};
    OrtValue* input = NULL;
    OrtValue* output = NULL;
    const char* in_names[1] = {"x"};
    const char* out_names[1] = {"y"};
    CHECK(seen.created && seen.labels_ok && seen.errors_ok);
    if (ok(api->CreateTensorWithDataAsOrtValue(cpu, x, sizeof x, shape, 1, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, &input),
           "CreateTensorWithDataAsOrtValue")) {
      const OrtValue* inputs[1] = {input};
      const float* y = NULL;
      if (ok(api->Run(session, NULL, in_names, inputs, 1, out_names, 1, &output), "Run (custom op)") &&
          ok(api->GetTensorData(output, (const void**)&y), "GetTensorData"))
        CHECK(y[0] == 2.0f && y[1] == -4.0f && y[2] == 7.0f);
      CHECK(seen.computed && seen.before_null && seen.after_same && seen.bad_index_refused);
      api->ReleaseValue(output);
      api->ReleaseValue(input);
    }
    api->ReleaseSession(session);
  }
  api->ReleaseSessionOptions(options);
  api->ReleaseCustomOpDomain(domain);
  api->ReleaseMemoryInfo(cpu);
}

int extras_more(const OrtApi* the_api, OrtEnv* env, const char* stripes_model, const char* custom_op_model) {
  api = the_api;
  value_extras(env);
  env_options(stripes_model);
  gpu_and_cuda_options(env, stripes_model);
  custom_op(env, custom_op_model);
  return failures;
}
