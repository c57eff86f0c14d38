/* LoRA adapters through onyx's C API (src/capi/lora_adapters.cc), in C against
 * libonnxruntime.so.1: lora.onnx (y = x @ W + (x @ lora_A) @ lora_B, the LoRA weights inputs
 * with zero-size defaults; make_lora_model.py) run without an adapter, with lora.onnx_adapter
 * from its file and from its bytes, with the adapter released before the run options; errors:
 * a missing file, every truncation of the bytes, a corrupted offset, a wrong identifier, a
 * parameter name the model lacks, a caller feed colliding with a parameter, NULLs.
 * Usage: c_api_lora_test lora.onnx lora.onnx_adapter */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "capi_check.h"

static OrtSession* session;
static OrtMemoryInfo* cpu;
static float x_data[4] = {1, 2, 3, 4};

/* Runs the model on x (plus `extra`, fed as `extra_name`, when not NULL) into y; returns the status. */
static OrtStatus* run(const OrtRunOptions* options, const char* extra_name, OrtValue* extra, float y[4]) {
  int64_t dims[2] = {1, 4};
  OrtValue* x = NULL;
  if (!ok(api->CreateTensorWithDataAsOrtValue(cpu, x_data, sizeof x_data, dims, 2, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT,
                                              &x),
          "CreateTensorWithDataAsOrtValue"))
    return api->CreateStatus(ORT_FAIL, "no input");
  const char* names[2] = {"x", extra_name};
  const OrtValue* inputs[2] = {x, extra};
  const char* out_names[1] = {"y"};
  OrtValue* out = NULL;
  OrtStatus* st = api->Run(session, options, names, inputs, extra ? 2 : 1, out_names, 1, &out);
  if (!st) {
    float* data = NULL;
    if (ok(api->GetTensorMutableData(out, (void**)&data), "GetTensorMutableData")) memcpy(y, data, 4 * sizeof(float));
    api->ReleaseValue(out);
  }
  api->ReleaseValue(x);
  return st;
}

static int same(const float* a, const float* b) {
  for (int i = 0; i < 4; ++i)
    if (a[i] != b[i]) {
      fprintf(stderr, "got {%g, %g, %g, %g}, want {%g, %g, %g, %g}\n", a[0], a[1], a[2], a[3], b[0], b[1], b[2], b[3]);
      return 0;
    }
  return 1;
}

/* W[i][j] = 4i + j + 1, x = {1, 2, 3, 4}: x @ W = {90, 100, 110, 120}.
 * x @ lora_A = {1 + 3, 2 + 4} = {4, 6}; {4, 6} @ lora_B = {4 + 3, 8 + 0, 12 - 6, 16 + 6}. */
static const float kBase[4] = {90, 100, 110, 120};
static const float kAdapted[4] = {97, 108, 116, 142};

/* Runs with `adapter` active in fresh run options; checks the result is kAdapted. */
static void check_adapted(OrtLoraAdapter* adapter, int release_adapter_first) {
  OrtRunOptions* options = NULL;
  if (!ok(api->CreateRunOptions(&options), "CreateRunOptions")) return;
  CHECK(ok(api->RunOptionsAddActiveLoraAdapter(options, adapter), "RunOptionsAddActiveLoraAdapter"));
  CHECK(ok(api->RunOptionsAddActiveLoraAdapter(options, adapter), "RunOptionsAddActiveLoraAdapter (again)"));
  if (release_adapter_first) api->ReleaseLoraAdapter(adapter);
  float y[4] = {0};
  if (ok(run(options, NULL, NULL, y), "Run with adapter")) CHECK(same(y, kAdapted));
  if (ok(run(options, NULL, NULL, y), "Run with adapter (twice)")) CHECK(same(y, kAdapted));
  api->ReleaseRunOptions(options);
}

static unsigned char* read_file(const char* path, size_t* size) {
  FILE* f = fopen(path, "rb");
  if (!f) return NULL;
  unsigned char* data = malloc(1 << 16);
  *size = fread(data, 1, 1 << 16, f);
  fclose(f);
  return data;
}

/* Bytes from the adapter with one change made; the adapter made of them must fail with `code`. */
static void check_bad(const unsigned char* bytes, size_t size, size_t at, const void* patch, size_t n,
                      OrtErrorCode code, const char* text) {
  unsigned char* copy = malloc(size);
  memcpy(copy, bytes, size);
  memcpy(copy + at, patch, n);
  OrtLoraAdapter* adapter = NULL;
  CHECK(failed_with(api->CreateLoraAdapterFromArray(copy, size, NULL, &adapter), code, text));
  CHECK(adapter == NULL);
  free(copy);
}

static size_t find(const unsigned char* bytes, size_t size, const char* s) {
  size_t n = strlen(s);
  for (size_t i = 0; i + n <= size; ++i)
    if (memcmp(bytes + i, s, n) == 0) return i;
  return 0;
}

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s lora.onnx lora.onnx_adapter\n", argv[0]);
    return 2;
  }
  api = OrtGetApiBase()->GetApi(ORT_API_VERSION);
  OrtEnv* env = NULL;
  if (!ok(api->CreateEnv(ORT_LOGGING_LEVEL_WARNING, "lora", &env), "CreateEnv")) return 1;
  if (!ok(api->CreateSession(env, argv[1], NULL, &session), "CreateSession")) return 1;
  ok(api->CreateCpuMemoryInfo(OrtArenaAllocator, OrtMemTypeDefault, &cpu), "CreateCpuMemoryInfo");
  float y[4] = {0};

  /* No adapter: the zero-size defaults add nothing. */
  if (ok(run(NULL, NULL, NULL, y), "Run without adapter")) CHECK(same(y, kBase));
  OrtRunOptions* plain = NULL;
  ok(api->CreateRunOptions(&plain), "CreateRunOptions");
  if (ok(run(plain, NULL, NULL, y), "Run with plain options")) CHECK(same(y, kBase));

  /* From the file, with the default allocator (a CPU one). */
  OrtAllocator* allocator = NULL;
  ok(api->GetAllocatorWithDefaultOptions(&allocator), "GetAllocatorWithDefaultOptions");
  OrtLoraAdapter* from_file = NULL;
  if (ok(api->CreateLoraAdapter(argv[2], allocator, &from_file), "CreateLoraAdapter")) {
    check_adapted(from_file, 0);
    api->ReleaseLoraAdapter(from_file);
  }
  /* From bytes, released before the run options; the caller's bytes freed right away. */
  size_t size = 0;
  unsigned char* bytes = read_file(argv[2], &size);
  CHECK(bytes != NULL && size > 8);
  if (!bytes) return 1;
  unsigned char* copy = malloc(size);
  memcpy(copy, bytes, size);
  OrtLoraAdapter* from_bytes = NULL;
  if (ok(api->CreateLoraAdapterFromArray(copy, size, NULL, &from_bytes), "CreateLoraAdapterFromArray")) {
    memset(copy, 0xAB, size);
    check_adapted(from_bytes, 1);
  }
  free(copy);
  /* The plain options still run the base model. */
  if (ok(run(plain, NULL, NULL, y), "Run with plain options after")) CHECK(same(y, kBase));

  /* Errors while loading. */
  OrtLoraAdapter* bad = NULL;
  CHECK(failed_with(api->CreateLoraAdapter("no/such/file.onnx_adapter", NULL, &bad), ORT_NO_SUCHFILE, "cannot open"));
  CHECK(failed_with(api->CreateLoraAdapter(NULL, NULL, &bad), ORT_INVALID_ARGUMENT, "null"));
  CHECK(failed_with(api->CreateLoraAdapter(argv[2], NULL, NULL), ORT_INVALID_ARGUMENT, "null"));
  CHECK(failed_with(api->CreateLoraAdapterFromArray(NULL, 10, NULL, &bad), ORT_INVALID_ARGUMENT, "null"));
  CHECK(failed_with(api->CreateLoraAdapterFromArray(bytes, size, NULL, NULL), ORT_INVALID_ARGUMENT, "null"));
  CHECK(failed_with(api->CreateLoraAdapterFromArray(NULL, 0, NULL, &bad), ORT_INVALID_ARGUMENT, "too few"));
  /* Every truncation fails cleanly. */
  int truncations_failed = 0;
  for (size_t n = 0; n < size; ++n) {
    unsigned char* prefix = malloc(n ? n : 1);
    memcpy(prefix, bytes, n);
    OrtStatus* st = api->CreateLoraAdapterFromArray(prefix, n, NULL, &bad);
    truncations_failed += st && api->GetErrorCode(st) == ORT_INVALID_ARGUMENT;
    if (st) api->ReleaseStatus(st);
    else api->ReleaseLoraAdapter(bad);
    free(prefix);
  }
  CHECK(truncations_failed == (int)size);
  /* A wrong identifier, corrupted offsets, a bad format version, a wrong data size. */
  check_bad(bytes, size, 4, "TORX", 4, ORT_INVALID_ARGUMENT, "identifier");
  const uint32_t huge = 0xFFFFFFF0u, past = (uint32_t)size;
  check_bad(bytes, size, 0, &huge, 4, ORT_INVALID_ARGUMENT, NULL);
  check_bad(bytes, size, 0, &past, 4, ORT_INVALID_ARGUMENT, NULL);
  uint32_t root = 0;
  memcpy(&root, bytes, 4);
  const int32_t far_vtable = -0x7FFFFFF0;
  check_bad(bytes, size, root, &far_vtable, 4, ORT_INVALID_ARGUMENT, "vtable");
  /* The root table's fields: format_version at +4, the parameters' offset at +16. */
  const int32_t version = 2;
  check_bad(bytes, size, root + 4, &version, 4, ORT_INVALID_ARGUMENT, "format version");
  check_bad(bytes, size, root + 16, &huge, 4, ORT_INVALID_ARGUMENT, NULL);
  uint32_t vec = 0;
  memcpy(&vec, bytes + root + 16, 4);
  vec += root + 16;
  const uint32_t many = 1000000;
  check_bad(bytes, size, vec, &many, 4, ORT_INVALID_ARGUMENT, "past the end");
  check_bad(bytes, size, vec + 4, &huge, 4, ORT_INVALID_ARGUMENT, NULL);
  /* A name the model lacks: lora_A renamed lora_Z; loads, then Run refuses it. */
  size_t name_at = find(bytes, size, "lora_A");
  CHECK(name_at != 0);
  memcpy(copy = malloc(size), bytes, size);
  copy[name_at + 5] = 'Z';
  OrtLoraAdapter* renamed = NULL;
  if (ok(api->CreateLoraAdapterFromArray(copy, size, NULL, &renamed), "CreateLoraAdapterFromArray (renamed)")) {
    OrtRunOptions* options = NULL;
    ok(api->CreateRunOptions(&options), "CreateRunOptions");
    ok(api->RunOptionsAddActiveLoraAdapter(options, renamed), "RunOptionsAddActiveLoraAdapter");
    CHECK(failed_with(run(options, NULL, NULL, y), ORT_INVALID_ARGUMENT, "lora_Z"));
    api->ReleaseRunOptions(options);
    api->ReleaseLoraAdapter(renamed);
  }
  /* Both names lora_B: the duplicate is refused at load. */
  copy[name_at + 5] = 'B';
  CHECK(failed_with(api->CreateLoraAdapterFromArray(copy, size, NULL, &bad), ORT_INVALID_ARGUMENT, "twice"));
  free(copy);

  /* A caller feed colliding with an adapter parameter; NULLs for RunOptionsAddActiveLoraAdapter. */
  OrtLoraAdapter* adapter = NULL;
  if (ok(api->CreateLoraAdapterFromArray(bytes, size, NULL, &adapter), "CreateLoraAdapterFromArray")) {
    OrtRunOptions* options = NULL;
    ok(api->CreateRunOptions(&options), "CreateRunOptions");
    ok(api->RunOptionsAddActiveLoraAdapter(options, adapter), "RunOptionsAddActiveLoraAdapter");
    float a[8] = {0};
    int64_t a_dims[2] = {4, 2};
    OrtValue* a_value = NULL;
    if (ok(api->CreateTensorWithDataAsOrtValue(cpu, a, sizeof a, a_dims, 2, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, &a_value),
           "CreateTensorWithDataAsOrtValue")) {
      CHECK(failed_with(run(options, "lora_A", a_value, y), ORT_INVALID_ARGUMENT, "lora_A"));
      api->ReleaseValue(a_value);
    }
    CHECK(failed_with(api->RunOptionsAddActiveLoraAdapter(NULL, adapter), ORT_INVALID_ARGUMENT, "null"));
    CHECK(failed_with(api->RunOptionsAddActiveLoraAdapter(options, NULL), ORT_INVALID_ARGUMENT, "null"));
    api->ReleaseRunOptions(options);
    api->ReleaseLoraAdapter(adapter);
  }
  api->ReleaseLoraAdapter(NULL);

  free(bytes);
  api->ReleaseRunOptions(plain);
  api->ReleaseMemoryInfo(cpu);
  api->ReleaseSession(session);
  api->ReleaseEnv(env);
  if (failures) {
    fprintf(stderr, "%d check(s) failed\n", failures);
    return 1;
  }
  printf("c_api_lora_test: all checks passed\n");
  return 0;
}
