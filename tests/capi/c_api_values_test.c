/* The C API members C# and Rust's ort call besides what c_api_test.c covers: string tensors
 * element by element, TensorAt, HasValue, CompareMemoryInfo, run options' getters and config
 * entries, verbosity levels, and an IoBinding whose output is bound to the caller's tensor
 * (BindOutput, GetBoundOutputNames, ClearBoundInputs / ClearBoundOutputs), and the narrow element
 * types: packed sizes, and ORT's codes past FLOAT4E2M1 (UINT2 24, INT2 25, FLOAT8E8M0 26).
 *
 *     c_api_values_test MODEL   (models/stripes.onnx: image [batch,1,8,8] -> probabilities [batch,3])
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capi_check.h"
#include "onnxruntime_c_api.h"

static void strings(OrtAllocator* allocator) {
  const int64_t shape[1] = {3};
  OrtValue* v = NULL;
  if (!ok(api->CreateTensorAsOrtValue(allocator, shape, 1, ONNX_TENSOR_ELEMENT_DATA_TYPE_STRING, &v), "CreateTensor")) return;
  ok(api->FillStringTensorElement(v, "alpha", 0), "FillStringTensorElement");
  ok(api->FillStringTensorElement(v, "", 1), "FillStringTensorElement");
  ok(api->FillStringTensorElement(v, "gamma ray", 2), "FillStringTensorElement");
  CHECK(code_of(api->FillStringTensorElement(v, "x", 3)) == ORT_INVALID_ARGUMENT);
  size_t len = 99;
  ok(api->GetStringTensorElementLength(v, 2, &len), "GetStringTensorElementLength");
  CHECK(len == 9);
  ok(api->GetStringTensorElementLength(v, 1, &len), "GetStringTensorElementLength");
  CHECK(len == 0);
  char buf[16];
  memset(buf, '#', sizeof buf);
  ok(api->GetStringTensorElement(v, sizeof buf, 0, buf), "GetStringTensorElement");
  CHECK(memcmp(buf, "alpha", 5) == 0 && buf[5] == '#'); /* not NUL-terminated */
  CHECK(code_of(api->GetStringTensorElement(v, 4, 2, buf)) == ORT_INVALID_ARGUMENT); /* too small */
  CHECK(code_of(api->GetStringTensorElementLength(v, 7, &len)) == ORT_INVALID_ARGUMENT);
  size_t total = 0;
  ok(api->GetStringTensorDataLength(v, &total), "GetStringTensorDataLength");
  CHECK(total == 14);
  int has = 0;
  ok(api->HasValue(v, &has), "HasValue");
  CHECK(has == 1);
  void* at = NULL;
  CHECK(code_of(api->TensorAt(v, (const int64_t[]){0}, 1, &at)) == ORT_INVALID_ARGUMENT); /* strings */
  api->ReleaseValue(v);
}

static void tensor_at(OrtAllocator* allocator) {
  const int64_t shape[2] = {2, 3};
  OrtValue* v = NULL;
  if (!ok(api->CreateTensorAsOrtValue(allocator, shape, 2, ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32, &v), "CreateTensor")) return;
  int32_t* data = NULL;
  ok(api->GetTensorMutableData(v, (void**)&data), "GetTensorMutableData");
  for (int i = 0; i < 6; ++i) data[i] = 10 * i;
  int32_t* at = NULL;
  const int64_t where[2] = {1, 2};
  ok(api->TensorAt(v, where, 2, (void**)&at), "TensorAt");
  CHECK(at == data + 5 && *at == 50);
  const int64_t outside[2] = {2, 0};
  CHECK(code_of(api->TensorAt(v, outside, 2, (void**)&at)) == ORT_INVALID_ARGUMENT);
  CHECK(code_of(api->TensorAt(v, where, 1, (void**)&at)) == ORT_INVALID_ARGUMENT); /* rank */
  api->ReleaseValue(v);
}

static void memory_infos(void) {
  OrtMemoryInfo *a = NULL, *b = NULL, *c = NULL;
  ok(api->CreateCpuMemoryInfo(OrtArenaAllocator, OrtMemTypeDefault, &a), "CreateCpuMemoryInfo");
  ok(api->CreateMemoryInfo("Cpu", OrtArenaAllocator, 0, OrtMemTypeDefault, &b), "CreateMemoryInfo");
  ok(api->CreateMemoryInfo("Cuda", OrtArenaAllocator, 0, OrtMemTypeDefault, &c), "CreateMemoryInfo");
  int same = 7;
  ok(api->CompareMemoryInfo(a, b, &same), "CompareMemoryInfo");
  CHECK(same == 0);
  ok(api->CompareMemoryInfo(a, c, &same), "CompareMemoryInfo");
  CHECK(same != 0);
  api->ReleaseMemoryInfo(a);
  api->ReleaseMemoryInfo(b);
  api->ReleaseMemoryInfo(c);
}

static void key_value_pairs(void) {
  OrtKeyValuePairs* kv = NULL;
  api->CreateKeyValuePairs(&kv);
  CHECK(kv != NULL);
  if (!kv) return;
  api->AddKeyValuePair(kv, "device", "cpu");
  api->AddKeyValuePair(kv, "threads", "2");
  api->AddKeyValuePair(kv, "device", "gpu"); /* an existing key takes the new value */
  CHECK(strcmp(api->GetKeyValue(kv, "device"), "gpu") == 0);
  CHECK(api->GetKeyValue(kv, "missing") == NULL);
  const char* const* keys = NULL;
  const char* const* values = NULL;
  size_t n = 0;
  api->GetKeyValuePairs(kv, &keys, &values, &n);
  CHECK(n == 2 && strcmp(keys[0], "device") == 0 && strcmp(values[1], "2") == 0);
  api->RemoveKeyValuePair(kv, "device");
  api->GetKeyValuePairs(kv, &keys, &values, &n);
  CHECK(n == 1 && strcmp(keys[0], "threads") == 0);
  api->ReleaseKeyValuePairs(kv);
}

static void run_options(void) {
  OrtRunOptions* r = NULL;
  if (!ok(api->CreateRunOptions(&r), "CreateRunOptions")) return;
  ok(api->RunOptionsSetRunTag(r, "tagged"), "RunOptionsSetRunTag");
  const char* tag = NULL;
  ok(api->RunOptionsGetRunTag(r, &tag), "RunOptionsGetRunTag");
  CHECK(tag && strcmp(tag, "tagged") == 0);
  int level = -1;
  ok(api->RunOptionsSetRunLogSeverityLevel(r, 3), "RunOptionsSetRunLogSeverityLevel");
  ok(api->RunOptionsGetRunLogSeverityLevel(r, &level), "RunOptionsGetRunLogSeverityLevel");
  CHECK(level == 3);
  ok(api->RunOptionsSetRunLogVerbosityLevel(r, 2), "RunOptionsSetRunLogVerbosityLevel");
  ok(api->RunOptionsGetRunLogVerbosityLevel(r, &level), "RunOptionsGetRunLogVerbosityLevel");
  CHECK(level == 2);
  ok(api->AddRunConfigEntry(r, "memory.enable_memory_arena_shrinkage", "cpu:0"), "AddRunConfigEntry");
  CHECK(code_of(api->AddRunConfigEntry(r, "", "x")) == ORT_INVALID_ARGUMENT);
  api->ReleaseRunOptions(r);
}

static void bound_output(OrtSession* session, OrtAllocator* allocator) {
  OrtIoBinding* binding = NULL;
  if (!ok(api->CreateIoBinding(session, &binding), "CreateIoBinding")) return;
  OrtMemoryInfo* cpu = NULL;
  ok(api->CreateCpuMemoryInfo(OrtArenaAllocator, OrtMemTypeDefault, &cpu), "CreateCpuMemoryInfo");
  float image[64], probabilities[3] = {-1, -1, -1};
  for (int r = 0; r < 8; ++r)
    for (int c = 0; c < 8; ++c) image[r * 8 + c] = (float)((r / 2) % 2); /* horizontal: class 1 */
  const int64_t in_shape[4] = {1, 1, 8, 8}, out_shape[2] = {1, 3};
  OrtValue *in = NULL, *out = NULL;
  ok(api->CreateTensorWithDataAsOrtValue(cpu, image, sizeof image, in_shape, 4, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, &in),
     "CreateTensorWithDataAsOrtValue");
  ok(api->CreateTensorWithDataAsOrtValue(cpu, probabilities, sizeof probabilities, out_shape, 2,
                                         ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, &out),
     "CreateTensorWithDataAsOrtValue");
  ok(api->BindInput(binding, "image", in), "BindInput");
  ok(api->BindOutput(binding, "probabilities", out), "BindOutput");
  CHECK(code_of(api->BindOutput(binding, "nothing_like_it", out)) != ORT_OK);
  char* names = NULL;
  size_t* lengths = NULL;
  size_t count = 0;
  ok(api->GetBoundOutputNames(binding, allocator, &names, &lengths, &count), "GetBoundOutputNames");
  CHECK(count == 1 && lengths && lengths[0] == 13 && names && memcmp(names, "probabilities", 13) == 0);
  if (names) allocator->Free(allocator, names);
  if (lengths) allocator->Free(allocator, lengths);
  if (ok(api->RunWithBinding(session, NULL, binding), "RunWithBinding")) {
    /* written into the caller's buffer */
    CHECK(probabilities[1] > probabilities[0] && probabilities[1] > probabilities[2]);
    CHECK(probabilities[0] + probabilities[1] + probabilities[2] > 0.999f);
  }
  api->ClearBoundOutputs(binding);
  ok(api->GetBoundOutputNames(binding, allocator, &names, &lengths, &count), "GetBoundOutputNames");
  CHECK(count == 0 && names == NULL);
  api->ClearBoundInputs(binding);
  CHECK(code_of(api->RunWithBinding(session, NULL, binding)) != ORT_OK); /* nothing bound: image missing */
  api->ReleaseValue(in);
  api->ReleaseValue(out);
  api->ReleaseMemoryInfo(cpu);
  api->ReleaseIoBinding(binding);
}

static ONNXTensorElementDataType element_type(const OrtValue* v) {
  OrtTensorTypeAndShapeInfo* info = NULL;
  ONNXTensorElementDataType type = ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
  if (ok(api->GetTensorTypeAndShape(v, &info), "GetTensorTypeAndShape")) {
    ok(api->GetTensorElementType(info, &type), "GetTensorElementType");
    api->ReleaseTensorTypeAndShapeInfo(info);
  }
  return type;
}

static void narrow_tensors(OrtAllocator* allocator) {
  const int64_t shape[1] = {5};
  const ONNXTensorElementDataType types[] = {
      ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT8E4M3FN, ONNX_TENSOR_ELEMENT_DATA_TYPE_INT4,
      ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT4E2M1,   ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT2,
      ONNX_TENSOR_ELEMENT_DATA_TYPE_INT2,         ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT8E8M0};
  const size_t bytes[] = {5, 3, 3, 2, 2, 5}; /* five elements: 8 bits, 4 bits (packed), 2 bits */
  for (int k = 0; k < 6; ++k) {
    OrtValue* v = NULL;
    if (!ok(api->CreateTensorAsOrtValue(allocator, shape, 1, types[k], &v), "CreateTensor (narrow)")) continue;
    CHECK(element_type(v) == types[k]); /* the code comes back as ORT numbers it */
    size_t size = 0;
    ok(api->GetTensorSizeInBytes(v, &size), "GetTensorSizeInBytes");
    CHECK(size == bytes[k]);
    api->ReleaseValue(v);
  }
  /* caller memory: three bytes hold five int4 values, two do not */
  uint8_t packed[3] = {0x21, 0x43, 0x05};
  OrtMemoryInfo* cpu = NULL;
  ok(api->CreateCpuMemoryInfo(OrtArenaAllocator, OrtMemTypeDefault, &cpu), "CreateCpuMemoryInfo");
  OrtValue* v = NULL;
  if (ok(api->CreateTensorWithDataAsOrtValue(cpu, packed, 3, shape, 1, ONNX_TENSOR_ELEMENT_DATA_TYPE_INT4, &v),
         "CreateTensorWithDataAsOrtValue (int4)")) {
    void* data = NULL;
    ok(api->GetTensorMutableData(v, &data), "GetTensorMutableData");
    CHECK(data == packed); /* not copied */
    void* at = NULL;
    CHECK(code_of(api->TensorAt(v, (const int64_t[]){1}, 1, &at)) == ORT_NOT_IMPLEMENTED); /* no byte of its own */
    api->ReleaseValue(v);
  }
  v = NULL;
  CHECK(code_of(api->CreateTensorWithDataAsOrtValue(cpu, packed, 2, shape, 1, ONNX_TENSOR_ELEMENT_DATA_TYPE_INT4, &v)) ==
        ORT_INVALID_ARGUMENT);
  api->ReleaseMemoryInfo(cpu);
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s MODEL\n", argv[0]);
    return 2;
  }
  api = OrtGetApiBase()->GetApi(ORT_API_VERSION);
  OrtEnv* env = NULL;
  if (!api || !ok(api->CreateEnv(ORT_LOGGING_LEVEL_WARNING, "c_api_values_test", &env), "CreateEnv")) return 1;
  OrtAllocator* allocator = NULL;
  ok(api->GetAllocatorWithDefaultOptions(&allocator), "GetAllocatorWithDefaultOptions");
  strings(allocator);
  tensor_at(allocator);
  narrow_tensors(allocator);
  memory_infos();
  key_value_pairs();
  run_options();
  OrtSessionOptions* options = NULL;
  ok(api->CreateSessionOptions(&options), "CreateSessionOptions");
  ok(api->SetSessionLogVerbosityLevel(options, 1), "SetSessionLogVerbosityLevel");
  ok(api->AddExternalInitializers(options, NULL, NULL, 0), "AddExternalInitializers");
  const char* no_name[1] = {NULL};
  const OrtValue* no_value[1] = {NULL};
  CHECK(code_of(api->AddExternalInitializers(options, no_name, no_value, 1)) == ORT_INVALID_ARGUMENT);
  OrtSession* session = NULL;
  if (ok(api->CreateSession(env, argv[1], options, &session), "CreateSession")) {
    bound_output(session, allocator);
    api->ReleaseSession(session);
  }
  api->ReleaseSessionOptions(options);
  api->ReleaseEnv(env);
  if (failures) fprintf(stderr, "%d checks failed\n", failures);
  else printf("c_api_values_test: all checks passed\n");
  return failures ? 1 : 0;
}
