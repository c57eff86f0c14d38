/* Custom operators through onyx's libonnxruntime.so.1, as ORT's users load them: a library
 * written against ORT's C API alone (custom_op_library.c) registered by RegisterCustomOpsLibrary_V2,
 * RegisterCustomOpsLibrary (the caller's handle) and RegisterCustomOpsUsingFunction; a model of
 * its ops run with the expected answers (an op of the oldest OrtCustomOp version next to a
 * current one with variadic inputs, an open type and ParallelFor); the op's own error status
 * reaching the caller with its message; a wrong input type refused before the op sees it;
 * the same model without the library failing with the op named; runs from 4 threads.
 *
 *     custom_ops_test LIBRARY MODEL FAILING_MODEL
 *         (libonyx_test_custom_ops.so, tests/capi/custom_ops.onnx, tests/capi/custom_op_fails.onnx)
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capi_check.h"
#include "onnxruntime_c_api.h"

static OrtMemoryInfo* cpu;
static OrtValue* tensor(void* data, size_t bytes, const int64_t* shape, size_t rank, ONNXTensorElementDataType type) {
  OrtValue* v = NULL;
  ok(api->CreateTensorWithDataAsOrtValue(cpu, data, bytes, shape, rank, type, &v), "CreateTensorWithDataAsOrtValue");
  return v;
}

/* Runs the model once on fixed inputs and checks z, joined and ints; 1 when all agree. */
static int run_model(OrtSession* session, float y_scale) {
  float x[6] = {1, 2, 3, 4, 5, 6};
  float y[6];
  for (int i = 0; i < 6; ++i) y[i] = y_scale * (float)(i + 1);
  int64_t n[2] = {7, -8};
  const int64_t shape23[2] = {2, 3}, shape2[1] = {2};
  const char* in_names[3] = {"x", "y", "n"};
  const char* out_names[3] = {"z", "joined", "ints"};
  OrtValue* inputs[3] = {tensor(x, sizeof x, shape23, 2, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT),
                         tensor(y, sizeof y, shape23, 2, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT),
                         tensor(n, sizeof n, shape2, 1, ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64)};
  OrtValue* outputs[3] = {NULL, NULL, NULL};
  int good = ok(api->Run(session, NULL, in_names, (const OrtValue* const*)inputs, 3, out_names, 3, outputs), "Run");
  if (good) {
    const float* z = NULL;
    const float* joined = NULL;
    const int64_t* ints = NULL;
    api->GetTensorData(outputs[0], (const void**)&z);
    api->GetTensorData(outputs[1], (const void**)&joined);
    api->GetTensorData(outputs[2], (const void**)&ints);
    for (int i = 0; i < 6; ++i) {
      const float want = x[i] + 0.5f * y[i];
      good &= z[i] == want && joined[i] == want && joined[6 + i] == x[i];
    }
    for (int i = 0; i < 6; ++i) good &= ints[i] == n[i % 2];
    OrtTensorTypeAndShapeInfo* info = NULL;
    size_t count = 0;
    api->GetTensorTypeAndShape(outputs[1], &info);
    api->GetTensorShapeElementCount(info, &count);
    api->ReleaseTensorTypeAndShapeInfo(info);
    good &= count == 12;
  }
  for (int i = 0; i < 3; ++i) {
    api->ReleaseValue(inputs[i]);
    if (outputs[i]) api->ReleaseValue(outputs[i]);
  }
  return good;
}

static void* runner(void* session) {
  int good = 1;
  for (int i = 0; i < 200; ++i) good &= run_model((OrtSession*)session, (float)(i % 5));
  return good ? session : NULL;
}

static OrtSession* session_with(OrtEnv* env, OrtSessionOptions* options, const char* model) {
  OrtSession* session = NULL;
  return ok(api->CreateSession(env, model, options, &session), "CreateSession") ? session : NULL;
}

int main(int argc, char** argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: %s LIBRARY MODEL FAILING_MODEL\n", argv[0]);
    return 2;
  }
  const char* library = argv[1];
  const char* model = argv[2];
  const char* failing_model = argv[3];
  api = OrtGetApiBase()->GetApi(ORT_API_VERSION);
  OrtEnv* env = NULL;
  if (!api || !ok(api->CreateEnv(ORT_LOGGING_LEVEL_WARNING, "custom_ops_test", &env), "CreateEnv")) return 1;
  ok(api->CreateCpuMemoryInfo(OrtArenaAllocator, OrtMemTypeDefault, &cpu), "CreateCpuMemoryInfo");

  /* Without the library: the op is named. */
  OrtSessionOptions* plain = NULL;
  ok(api->CreateSessionOptions(&plain), "CreateSessionOptions");
  OrtSession* session = NULL;
  OrtStatus* st = api->CreateSession(env, model, plain, &session);
  CHECK(st && api->GetErrorCode(st) == ORT_NOT_IMPLEMENTED);
  CHECK(st && strstr(api->GetErrorMessage(st), "onyx.test:ScaledAdd") != NULL);
  if (st) api->ReleaseStatus(st);
  /* A library that is not there; one without RegisterCustomOps. */
  st = api->RegisterCustomOpsLibrary_V2(plain, "/nonexistent/libnothing.so");
  CHECK(st && api->GetErrorCode(st) == ORT_NO_SUCHFILE);
  if (st) api->ReleaseStatus(st);
  st = api->RegisterCustomOpsUsingFunction(plain, "NoSuchRegistrationFunction");
  CHECK(st && api->GetErrorCode(st) == ORT_FAIL && strstr(api->GetErrorMessage(st), "NoSuchRegistrationFunction"));
  if (st) api->ReleaseStatus(st);
  api->ReleaseSessionOptions(plain);

  /* RegisterCustomOpsLibrary_V2: the options own the library. */
  OrtSessionOptions* options = NULL;
  ok(api->CreateSessionOptions(&options), "CreateSessionOptions");
  ok(api->SetIntraOpNumThreads(options, 2), "SetIntraOpNumThreads");
  ok(api->RegisterCustomOpsLibrary_V2(options, library), "RegisterCustomOpsLibrary_V2");
  session = session_with(env, options, model);
  api->ReleaseSessionOptions(options); /* the session keeps the library open */
  if (session) {
    CHECK(run_model(session, 1.0f));
    pthread_t threads[4];
    for (int t = 0; t < 4; ++t) pthread_create(&threads[t], NULL, runner, session);
    for (int t = 0; t < 4; ++t) {
      void* result = NULL;
      pthread_join(threads[t], &result);
      CHECK(result == session);
    }
    /* A wrong input type for ScaledAdd: refused, naming the op. */
    int64_t bad[6] = {0};
    float y[6] = {0};
    int64_t n[2] = {0};
    const int64_t shape23[2] = {2, 3}, shape2[1] = {2};
    const char* in_names[3] = {"x", "y", "n"};
    const char* out_names[1] = {"z"};
    OrtValue* inputs[3] = {tensor(bad, sizeof bad, shape23, 2, ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64),
                           tensor(y, sizeof y, shape23, 2, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT),
                           tensor(n, sizeof n, shape2, 1, ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64)};
    OrtValue* out = NULL;
    st = api->Run(session, NULL, in_names, (const OrtValue* const*)inputs, 3, out_names, 1, &out);
    CHECK(st != NULL && (strstr(api->GetErrorMessage(st), "ScaledAdd") || strstr(api->GetErrorMessage(st), "int64")));
    if (st) api->ReleaseStatus(st);
    for (int i = 0; i < 3; ++i) api->ReleaseValue(inputs[i]);
    api->ReleaseSession(session);
  }

  /* The session's config entries reach the op (KernelInfo_GetConfigEntries): Join refuses. */
  ok(api->CreateSessionOptions(&options), "CreateSessionOptions");
  ok(api->RegisterCustomOpsLibrary_V2(options, library), "RegisterCustomOpsLibrary_V2");
  ok(api->AddSessionConfigEntry(options, "onyx.test.refuse_join", "1"), "AddSessionConfigEntry");
  session = NULL;
  st = api->CreateSession(env, model, options, &session);
  CHECK(st != NULL && strstr(api->GetErrorMessage(st), "Join refused by the session config") != NULL);
  if (st) api->ReleaseStatus(st);
  if (session) api->ReleaseSession(session);
  api->ReleaseSessionOptions(options);

  /* RegisterCustomOpsLibrary: the caller's handle, closed by the caller after its sessions. */
  ok(api->CreateSessionOptions(&options), "CreateSessionOptions");
  void* handle = NULL;
  if (ok(api->RegisterCustomOpsLibrary(options, library, &handle), "RegisterCustomOpsLibrary")) {
    CHECK(handle != NULL);
    session = session_with(env, options, model);
    if (session) {
      CHECK(run_model(session, 2.0f));
      api->ReleaseSession(session);
    }
  }
  /* The op's own error status at run (Join with fail=1): its code and message reach the caller. */
  session = session_with(env, options, failing_model);
  if (session) {
    float x[2] = {1, 2};
    const int64_t shape[1] = {2};
    const char* in_names[1] = {"x"};
    const char* out_names[1] = {"y"};
    OrtValue* input = tensor(x, sizeof x, shape, 1, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT);
    OrtValue* out = NULL;
    st = api->Run(session, NULL, in_names, (const OrtValue* const*)&input, 1, out_names, 1, &out);
    CHECK(st != NULL && api->GetErrorCode(st) == ORT_INVALID_ARGUMENT);
    CHECK(st != NULL && strstr(api->GetErrorMessage(st), "Join was asked to fail") != NULL);
    if (st) api->ReleaseStatus(st);
    CHECK(out == NULL);
    api->ReleaseValue(input);
    api->ReleaseSession(session);
  }
  api->ReleaseSessionOptions(options);
  if (handle) dlclose(handle);

  /* RegisterCustomOpsUsingFunction: RegisterCustomOps is in the process once the library is
   * loaded globally. */
  void* global = dlopen(library, RTLD_NOW | RTLD_GLOBAL);
  CHECK(global != NULL);
  ok(api->CreateSessionOptions(&options), "CreateSessionOptions");
  if (ok(api->RegisterCustomOpsUsingFunction(options, "RegisterCustomOps"), "RegisterCustomOpsUsingFunction")) {
    session = session_with(env, options, model);
    if (session) {
      CHECK(run_model(session, 3.0f));
      api->ReleaseSession(session);
    }
  }
  api->ReleaseSessionOptions(options);
  if (global) dlclose(global);

  api->ReleaseMemoryInfo(cpu);
  api->ReleaseEnv(env);
  if (failures) fprintf(stderr, "%d checks failed\n", failures);
  else printf("custom_ops_test: all checks passed\n");
  return failures ? 1 : 0;
}
