/* The C API's allocators, arena settings, memory info V2, session and value extras, env options,
 * the current GPU, the CUDA options' pointers and two custom-op accessors, in C against onyx's
 * libonnxruntime.so.1:
 *   CreateMemoryInfo_V2 and its getters (bad enums, ids and alignments refused);
 *   CreateArenaCfg(V2) (ORT's keys, an unknown key and bad values refused), its max_mem capping
 *   an environment's allocator; RegisterAllocator, CreateAndRegisterAllocator(V2),
 *   UnregisterAllocator, GetSharedAllocator, CreateAllocator with and without
 *   "session.use_env_allocators", AllocatorGetStats' counters;
 *   option getters, SetDeterministicCompute, SetUserLoggingFunction, the profiling start, the
 *   inputs' and outputs' memory, load cancellation (clones keep the flag's value), sessions
 *   with a prepacked-weights container;
 *   RunAsync (new and preallocated outputs, a failing run, refused calls), per-run profiling;
 *   IsSparseTensor, GetResizedStringTensorElementBuffer, CopyTensors, SetSymbolicDimensions;
 *   CreateEnvWithOptions (its threads and logging function used), Set/GetCurrentGpuDeviceId
 *   (ONYX_TEST_EXPECT_GPU=1 requires a usable device), the CUDA options' pointer values;
 *   KernelInfoGetAttributeArray_string and KernelContext_GetPreallocatedOutput from a custom op
 *   defined in the test (extras_custom_op.onnx, written by make_extras_model.py).
 * This file has the allocators, memory info, sessions and runs; c_api_extras_more.c the rest.
 * Usage: c_api_extras_test stripes.onnx extras_custom_op.onnx */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "c_api_extras.h"

/* A counter of AllocatorGetStats as a number; -1 when absent. */
static long long stat_of(const OrtAllocator* allocator, const char* key) {
  OrtKeyValuePairs* pairs = NULL;
  if (!ok(api->AllocatorGetStats(allocator, &pairs), "AllocatorGetStats")) return -2;
  const char* value = api->GetKeyValue(pairs, key);
  long long n = value ? atoll(value) : -1;
  api->ReleaseKeyValuePairs(pairs);
  return n;
}

static void memory_info_v2(void) {
  OrtMemoryInfo* gpu = NULL;
  if (ok(api->CreateMemoryInfo_V2("Cuda", OrtMemoryInfoDeviceType_GPU, 0x10DE, 1, OrtDeviceMemoryType_DEFAULT, 256,
                                  OrtDeviceAllocator, &gpu), "CreateMemoryInfo_V2")) {
    const char* name = NULL;
    int id = -1;
    OrtMemoryInfoDeviceType device = OrtMemoryInfoDeviceType_CPU;
    OrtMemType mem = OrtMemTypeCPU;
    ok(api->MemoryInfoGetName(gpu, &name), "MemoryInfoGetName");
    ok(api->MemoryInfoGetId(gpu, &id), "MemoryInfoGetId");
    ok(api->MemoryInfoGetMemType(gpu, &mem), "MemoryInfoGetMemType");
    api->MemoryInfoGetDeviceType(gpu, &device);
    CHECK(name && strcmp(name, "Cuda") == 0 && id == 1 && device == OrtMemoryInfoDeviceType_GPU);
    CHECK(mem == OrtMemTypeDefault && api->MemoryInfoGetVendorId(gpu) == 0x10DE);
    CHECK(api->MemoryInfoGetDeviceMemType(gpu) == OrtDeviceMemoryType_DEFAULT);
    api->ReleaseMemoryInfo(gpu);
  }
  OrtMemoryInfo* host = NULL;
  if (ok(api->CreateMemoryInfo_V2("pinned", OrtMemoryInfoDeviceType_GPU, 0x10DE, 0, OrtDeviceMemoryType_HOST_ACCESSIBLE,
                                  0, OrtArenaAllocator, &host), "CreateMemoryInfo_V2 (host accessible)")) {
    OrtMemType mem = OrtMemTypeDefault;
    OrtAllocatorType type = OrtDeviceAllocator;
    ok(api->MemoryInfoGetMemType(host, &mem), "MemoryInfoGetMemType");
    ok(api->MemoryInfoGetType(host, &type), "MemoryInfoGetType");
    CHECK(mem == OrtMemTypeCPU && type == OrtArenaAllocator);
    CHECK(api->MemoryInfoGetDeviceMemType(host) == OrtDeviceMemoryType_HOST_ACCESSIBLE);
    api->ReleaseMemoryInfo(host);
  }
  /* A V2 description of the host equals CreateCpuMemoryInfo's. */
  OrtMemoryInfo* v2_cpu = NULL;
  OrtMemoryInfo* cpu = NULL;
  ok(api->CreateCpuMemoryInfo(OrtDeviceAllocator, OrtMemTypeDefault, &cpu), "CreateCpuMemoryInfo");
  if (ok(api->CreateMemoryInfo_V2("Cpu", OrtMemoryInfoDeviceType_CPU, 0, 0, OrtDeviceMemoryType_DEFAULT, 0,
                                  OrtDeviceAllocator, &v2_cpu), "CreateMemoryInfo_V2 (cpu)") && cpu) {
    int differ = -5;
    ok(api->CompareMemoryInfo(v2_cpu, cpu, &differ), "CompareMemoryInfo");
    CHECK(differ == 0 && api->MemoryInfoGetVendorId(cpu) == 0);
  }
  api->ReleaseMemoryInfo(v2_cpu);
  api->ReleaseMemoryInfo(cpu);
  OrtMemoryInfo* legacy = NULL;
  if (ok(api->CreateMemoryInfo("Cuda", OrtDeviceAllocator, 0, OrtMemTypeDefault, &legacy), "CreateMemoryInfo")) {
    CHECK(api->MemoryInfoGetVendorId(legacy) == 0x10DE);
    api->ReleaseMemoryInfo(legacy);
  }
  CHECK(api->MemoryInfoGetVendorId(NULL) == 0 && api->MemoryInfoGetDeviceMemType(NULL) == OrtDeviceMemoryType_DEFAULT);
  OrtMemoryInfo* none = NULL;
  CHECK(failed_with(api->CreateMemoryInfo_V2(NULL, OrtMemoryInfoDeviceType_CPU, 0, 0, OrtDeviceMemoryType_DEFAULT, 0,
                                             OrtDeviceAllocator, &none), ORT_INVALID_ARGUMENT, "name"));
  CHECK(failed_with(api->CreateMemoryInfo_V2("x", (OrtMemoryInfoDeviceType)7, 0, 0, OrtDeviceMemoryType_DEFAULT, 0,
                                             OrtDeviceAllocator, &none), ORT_INVALID_ARGUMENT, "device type 7"));
  CHECK(failed_with(api->CreateMemoryInfo_V2("x", OrtMemoryInfoDeviceType_CPU, 0, 0, (OrtDeviceMemoryType)3, 0,
                                             OrtDeviceAllocator, &none), ORT_INVALID_ARGUMENT, "memory type 3"));
  CHECK(failed_with(api->CreateMemoryInfo_V2("x", OrtMemoryInfoDeviceType_CPU, 0, 0, OrtDeviceMemoryType_DEFAULT, 0,
                                             OrtInvalidAllocator, &none), ORT_INVALID_ARGUMENT, "allocator type"));
  CHECK(failed_with(api->CreateMemoryInfo_V2("x", OrtMemoryInfoDeviceType_CPU, 0, -1, OrtDeviceMemoryType_DEFAULT, 0,
                                             OrtDeviceAllocator, &none), ORT_INVALID_ARGUMENT, "negative"));
  CHECK(failed_with(api->CreateMemoryInfo_V2("x", OrtMemoryInfoDeviceType_CPU, 0, 0, OrtDeviceMemoryType_DEFAULT, 24,
                                             OrtDeviceAllocator, &none), ORT_INVALID_ARGUMENT, "power of two"));
  CHECK(none == NULL);
}

static void arena_cfg(void) {
  OrtArenaCfg* cfg = NULL;
  if (ok(api->CreateArenaCfg(1 << 20, 1, -1, -1, &cfg), "CreateArenaCfg")) api->ReleaseArenaCfg(cfg);
  cfg = NULL;
  CHECK(failed_with(api->CreateArenaCfg(0, 2, -1, -1, &cfg), ORT_INVALID_ARGUMENT, "arena_extend_strategy"));
  CHECK(failed_with(api->CreateArenaCfg(0, 0, -5, -1, &cfg), ORT_INVALID_ARGUMENT, NULL));
  CHECK(failed_with(api->CreateArenaCfg(0, 0, -1, -1, NULL), ORT_INVALID_ARGUMENT, NULL));
  const char* keys[6] = {"max_mem", "arena_extend_strategy", "initial_chunk_size_bytes", "max_dead_bytes_per_chunk",
                         "initial_growth_chunk_size_bytes", "max_power_of_two_extend_bytes"};
  size_t values[6] = {1 << 20, 0, 4096, 128, 8192, (size_t)1 << 33};
  if (ok(api->CreateArenaCfgV2(keys, values, 6, &cfg), "CreateArenaCfgV2")) api->ReleaseArenaCfg(cfg);
  cfg = NULL;
  const char* unknown[1] = {"max_memory"};
  CHECK(failed_with(api->CreateArenaCfgV2(unknown, values, 1, &cfg), ORT_INVALID_ARGUMENT, "unknown key 'max_memory'"));
  size_t bad_strategy[2] = {0, 5};
  CHECK(failed_with(api->CreateArenaCfgV2(keys, bad_strategy, 2, &cfg), ORT_INVALID_ARGUMENT, "arena_extend_strategy"));
  size_t too_big[3] = {0, 0, (size_t)2147483648u};
  CHECK(failed_with(api->CreateArenaCfgV2(keys, too_big, 3, &cfg), ORT_INVALID_ARGUMENT, "does not fit"));
  const char* null_key[1] = {NULL};
  CHECK(failed_with(api->CreateArenaCfgV2(null_key, values, 1, &cfg), ORT_INVALID_ARGUMENT, "null"));
  CHECK(cfg == NULL);
  if (ok(api->CreateArenaCfgV2(NULL, NULL, 0, &cfg), "CreateArenaCfgV2 (defaults)")) api->ReleaseArenaCfg(cfg);
  api->ReleaseArenaCfg(NULL);
}

/* A caller's allocator: host memory from malloc, with stats of its own. */
static OrtMemoryInfo* user_info = NULL;
static void* ORT_API_CALL user_alloc(OrtAllocator* self, size_t size) { (void)self; return malloc(size); }
static void ORT_API_CALL user_free(OrtAllocator* self, void* p) { (void)self; free(p); }
static const OrtMemoryInfo* ORT_API_CALL user_info_of(const OrtAllocator* self) { (void)self; return user_info; }
static OrtStatus* ORT_API_CALL user_stats(const OrtAllocator* self, OrtKeyValuePairs** out) {
  (void)self;
  api->CreateKeyValuePairs(out);
  api->AddKeyValuePair(*out, "Mine", "7");
  return NULL;
}

static OrtSession* session_on(OrtEnv* env, const char* model, int use_env_allocators) {
  OrtSessionOptions* options = NULL;
  OrtSession* session = NULL;
  ok(api->CreateSessionOptions(&options), "CreateSessionOptions");
  if (use_env_allocators) ok(api->AddSessionConfigEntry(options, "session.use_env_allocators", "1"), "AddSessionConfigEntry");
  ok(api->CreateSession(env, model, options, &session), "CreateSession");
  api->ReleaseSessionOptions(options);
  return session;
}

static void allocators(const char* model) {
  OrtEnv* env = NULL;
  OrtMemoryInfo* cpu = make_cpu_info();
  OrtMemoryInfo* cuda = NULL;
  OrtAllocator* shared = NULL;
  OrtAllocator* standard = NULL;
  OrtArenaCfg* cfg = NULL;
  void* block = NULL;
  if (!cpu || !ok(api->CreateEnv(ORT_LOGGING_LEVEL_WARNING, "allocators", &env), "CreateEnv")) return;
  ok(api->CreateMemoryInfo("Cuda", OrtDeviceAllocator, 0, OrtMemTypeDefault, &cuda), "CreateMemoryInfo");
  ok(api->GetAllocatorWithDefaultOptions(&standard), "GetAllocatorWithDefaultOptions");
  ok(api->GetSharedAllocator(env, cpu, &shared), "GetSharedAllocator");
  CHECK(shared == standard); /* nothing registered: the default allocator serves the host */
  ok(api->GetSharedAllocator(env, cuda, &shared), "GetSharedAllocator (cuda)");
  CHECK(shared == NULL);
  OrtKeyValuePairs* pairs = NULL;
  if (ok(api->AllocatorGetStats(standard, &pairs), "AllocatorGetStats (default)")) {
    const char* const* k = NULL;
    const char* const* v = NULL;
    size_t n = 99;
    api->GetKeyValuePairs(pairs, &k, &v, &n);
    CHECK(n == 0);
    api->ReleaseKeyValuePairs(pairs);
  }

  /* An environment allocator capped at 4096 bytes. */
  ok(api->CreateArenaCfg(4096, -1, -1, -1, &cfg), "CreateArenaCfg");
  ok(api->CreateAndRegisterAllocator(env, cpu, cfg), "CreateAndRegisterAllocator");
  CHECK(failed_with(api->CreateAndRegisterAllocator(env, cpu, NULL), ORT_INVALID_ARGUMENT, "already"));
  CHECK(failed_with(api->CreateAndRegisterAllocator(env, cuda, NULL), ORT_INVALID_ARGUMENT, "host"));
  api->ReleaseArenaCfg(cfg);
  shared = NULL;
  ok(api->GetSharedAllocator(env, cpu, &shared), "GetSharedAllocator");
  CHECK(shared != NULL && shared != standard);
  if (shared && shared != standard) {
    const OrtMemoryInfo* info = NULL;
    OrtAllocatorType type = OrtArenaAllocator;
    ok(api->AllocatorGetInfo(shared, &info), "AllocatorGetInfo");
    if (info) ok(api->MemoryInfoGetType(info, &type), "MemoryInfoGetType");
    CHECK(type == OrtDeviceAllocator); /* heap memory, not an arena, whatever was asked */
    ok(api->AllocatorAlloc(shared, 4000, &block), "AllocatorAlloc");
    void* past = NULL;
    CHECK(failed_with(api->AllocatorAlloc(shared, 200, &past), ORT_FAIL, NULL) && past == NULL);
    CHECK(stat_of(shared, "Limit") == 4096 && stat_of(shared, "InUse") == 4000);
    CHECK(stat_of(shared, "TotalAllocated") == 4032 && stat_of(shared, "NumAllocs") == 1);
    CHECK(stat_of(shared, "MaxAllocSize") == 4000);
    CHECK(block && ((uintptr_t)block % 64) == 0);
    ok(api->AllocatorFree(shared, block), "AllocatorFree");
    CHECK(stat_of(shared, "InUse") == 0 && stat_of(shared, "MaxInUse") == 4000);
  }

  /* Sessions: one takes the environment's allocators, one does not. */
  OrtSession* with = session_on(env, model, 1);
  OrtSession* without = session_on(env, model, 0);
  OrtAllocator* got = NULL;
  if (with && ok(api->CreateAllocator(with, cpu, &got), "CreateAllocator (env allocators)")) {
    CHECK(got == shared);
    api->ReleaseAllocator(got); /* the environment's: left be */
    block = NULL;
    ok(api->AllocatorAlloc(shared, 16, &block), "AllocatorAlloc after ReleaseAllocator");
    if (block) api->AllocatorFree(shared, block);
  }
  got = NULL;
  if (without && ok(api->CreateAllocator(without, cpu, &got), "CreateAllocator")) {
    void* a = NULL;
    void* b = NULL;
    CHECK(got != shared && got != standard && stat_of(got, "NumAllocs") == 0);
    ok(api->AllocatorAlloc(got, 100, &a), "AllocatorAlloc");
    ok(api->AllocatorAlloc(got, 28, &b), "AllocatorAlloc");
    CHECK(stat_of(got, "InUse") == 128 && stat_of(got, "NumAllocs") == 2 && stat_of(got, "MaxAllocSize") == 100);
    CHECK(stat_of(got, "Limit") == -1);
    api->AllocatorFree(got, a);
    api->AllocatorFree(got, b);
    CHECK(stat_of(got, "InUse") == 0 && stat_of(got, "MaxInUse") == 128);
    api->ReleaseAllocator(got);
  }
  got = NULL;
  if (without) {
    OrtMemoryInfo* webgpu = NULL;
    CHECK(failed_with(api->CreateAllocator(without, cuda, &got), ORT_INVALID_ARGUMENT, "no CUDA provider"));
    ok(api->CreateMemoryInfo("WebGPU_Buffer", OrtDeviceAllocator, 0, OrtMemTypeDefault, &webgpu), "CreateMemoryInfo");
    CHECK(failed_with(api->CreateAllocator(without, webgpu, &got), ORT_INVALID_ARGUMENT, "WebGPU_Buffer"));
    CHECK(failed_with(api->CreateAllocator(without, NULL, &got), ORT_INVALID_ARGUMENT, NULL) && got == NULL);
    api->ReleaseMemoryInfo(webgpu);
  }
  api->ReleaseSession(with);
  api->ReleaseSession(without);

  /* Unregistered, then a caller's allocator in its place. */
  ok(api->UnregisterAllocator(env, cpu), "UnregisterAllocator");
  CHECK(failed_with(api->UnregisterAllocator(env, cpu), ORT_INVALID_ARGUMENT, "no allocator"));
  ok(api->GetSharedAllocator(env, cpu, &shared), "GetSharedAllocator");
  CHECK(shared == standard);
  OrtAllocator user;
  memset(&user, 0, sizeof user);
  user.version = ORT_API_VERSION;
  user.Alloc = user_alloc;
  user.Free = user_free;
  CHECK(failed_with(api->RegisterAllocator(env, &user), ORT_INVALID_ARGUMENT, "Info"));
  user.Info = user_info_of;
  user_info = cpu;
  ok(api->RegisterAllocator(env, &user), "RegisterAllocator");
  CHECK(failed_with(api->RegisterAllocator(env, &user), ORT_INVALID_ARGUMENT, "already"));
  ok(api->GetSharedAllocator(env, cpu, &shared), "GetSharedAllocator");
  CHECK(shared == &user);
  CHECK(failed_with(api->AllocatorGetStats(&user, &pairs), ORT_NOT_IMPLEMENTED, "GetStats"));
  user.GetStats = user_stats;
  CHECK(stat_of(&user, "Mine") == 7);
  with = session_on(env, model, 1);
  got = NULL;
  if (with && ok(api->CreateAllocator(with, cpu, &got), "CreateAllocator (caller's)")) CHECK(got == &user);
  api->ReleaseSession(with);
  ok(api->UnregisterAllocator(env, cpu), "UnregisterAllocator (caller's)");

  /* V2: the CPU provider's allocator; the others refused. */
  ok(api->CreateAndRegisterAllocatorV2(env, "CPUExecutionProvider", cpu, NULL, NULL, NULL, 0),
     "CreateAndRegisterAllocatorV2");
  ok(api->UnregisterAllocator(env, cpu), "UnregisterAllocator (V2)");
  const char* key[1] = {"arena"};
  const char* value[1] = {"1"};
  CHECK(failed_with(api->CreateAndRegisterAllocatorV2(env, "CPU", cpu, NULL, key, value, 1), ORT_INVALID_ARGUMENT,
                    "no provider options"));
  CHECK(failed_with(api->CreateAndRegisterAllocatorV2(env, "CUDAExecutionProvider", cuda, NULL, NULL, NULL, 0),
                    ORT_NOT_IMPLEMENTED, NULL));
  CHECK(failed_with(api->CreateAndRegisterAllocatorV2(env, "NoSuchEP", cpu, NULL, NULL, NULL, 0), ORT_NOT_IMPLEMENTED,
                    "NoSuchEP"));
  CHECK(failed_with(api->RegisterAllocator(NULL, &user), ORT_INVALID_ARGUMENT, NULL));
  api->ReleaseMemoryInfo(cuda);
  api->ReleaseMemoryInfo(cpu);
  api->ReleaseEnv(env);
}

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void ORT_API_CALL quiet_logger(void* param, OrtLoggingLevel severity, const char* category, const char* logid,
                                      const char* where, const char* message) {
  (void)param; (void)severity; (void)category; (void)logid; (void)where; (void)message;
}

static void session_options_and_sessions(OrtEnv* env, const char* model) {
  OrtSessionOptions* options = NULL;
  OrtSessionOptions* clone = NULL;
  OrtSession* session = NULL;
  int flag = -1;
  ExecutionMode mode = ORT_PARALLEL;
  if (!ok(api->CreateSessionOptions(&options), "CreateSessionOptions")) return;
  ok(api->GetMemPatternEnabled(options, &flag), "GetMemPatternEnabled");
  CHECK(flag == 1);
  ok(api->DisableMemPattern(options), "DisableMemPattern");
  ok(api->GetMemPatternEnabled(options, &flag), "GetMemPatternEnabled");
  CHECK(flag == 0);
  CHECK(failed_with(api->GetMemPatternEnabled(NULL, &flag), ORT_INVALID_ARGUMENT, NULL));
  ok(api->GetSessionExecutionMode(options, &mode), "GetSessionExecutionMode");
  CHECK(mode == ORT_SEQUENTIAL);
  ok(api->SetSessionExecutionMode(options, ORT_PARALLEL), "SetSessionExecutionMode");
  ok(api->GetSessionExecutionMode(options, &mode), "GetSessionExecutionMode");
  CHECK(mode == ORT_PARALLEL);
  CHECK(failed_with(api->GetSessionExecutionMode(options, NULL), ORT_INVALID_ARGUMENT, NULL));
  ok(api->SetDeterministicCompute(options, 1), "SetDeterministicCompute");
  CHECK(failed_with(api->SetDeterministicCompute(NULL, 1), ORT_INVALID_ARGUMENT, NULL));
  ok(api->SetUserLoggingFunction(options, quiet_logger, NULL), "SetUserLoggingFunction");
  CHECK(failed_with(api->SetUserLoggingFunction(NULL, quiet_logger, NULL), ORT_INVALID_ARGUMENT, NULL));

  /* Without profiling the start is 0; with it, the wall clock as creation began. */
  uint64_t start = 99;
  if (ok(api->CreateSession(env, model, options, &session), "CreateSession")) {
    const OrtMemoryInfo* infos[2] = {NULL, NULL};
    const char* name = NULL;
    ok(api->SessionGetProfilingStartTimeNs(session, &start), "SessionGetProfilingStartTimeNs");
    CHECK(start == 0);
    ok(api->SessionGetMemoryInfoForInputs(session, infos, 1), "SessionGetMemoryInfoForInputs");
    CHECK(infos[0] && ok(api->MemoryInfoGetName(infos[0], &name), "MemoryInfoGetName") && strcmp(name, "Cpu") == 0);
    infos[0] = NULL;
    ok(api->SessionGetMemoryInfoForOutputs(session, infos, 1), "SessionGetMemoryInfoForOutputs");
    CHECK(infos[0] != NULL);
    CHECK(failed_with(api->SessionGetMemoryInfoForInputs(session, infos, 2), ORT_INVALID_ARGUMENT, "has 1"));
    CHECK(failed_with(api->SessionGetMemoryInfoForOutputs(session, NULL, 1), ORT_INVALID_ARGUMENT, NULL));
    CHECK(failed_with(api->SessionGetProfilingStartTimeNs(session, NULL), ORT_INVALID_ARGUMENT, NULL));
    api->ReleaseSession(session);
  }
  ok(api->EnableProfiling(options, "capi_extras_profile"), "EnableProfiling");
  session = NULL;
  const uint64_t before = now_ns();
  if (ok(api->CreateSession(env, model, options, &session), "CreateSession (profiling)")) {
    const uint64_t after = now_ns();
    OrtAllocator* allocator = NULL;
    char* file = NULL;
    ok(api->SessionGetProfilingStartTimeNs(session, &start), "SessionGetProfilingStartTimeNs");
    CHECK(start >= before && start <= after);
    ok(api->GetAllocatorWithDefaultOptions(&allocator), "GetAllocatorWithDefaultOptions");
    if (ok(api->SessionEndProfiling(session, allocator, &file), "SessionEndProfiling")) {
      CHECK(strstr(file, "capi_extras_profile") != NULL);
      remove(file);
      api->AllocatorFree(allocator, file);
    }
    api->ReleaseSession(session);
  }
  ok(api->DisableProfiling(options), "DisableProfiling");

  /* Load cancellation: refused while set, for clones made meanwhile too. */
  ok(api->SessionOptionsSetLoadCancellationFlag(options, 1), "SessionOptionsSetLoadCancellationFlag");
  ok(api->CloneSessionOptions(options, &clone), "CloneSessionOptions");
  session = NULL;
  CHECK(failed_with(api->CreateSession(env, model, options, &session), ORT_MODEL_LOAD_CANCELED, "canceled"));
  CHECK(session == NULL);
  FILE* f = fopen(model, "rb");
  char* bytes = NULL;
  long size = 0;
  if (f) {
    fseek(f, 0, SEEK_END);
    size = ftell(f);
    fseek(f, 0, SEEK_SET);
    bytes = malloc((size_t)size);
    if (bytes && fread(bytes, 1, (size_t)size, f) != (size_t)size) size = 0;
    fclose(f);
  }
  CHECK(bytes && size > 0);
  if (bytes)
    CHECK(failed_with(api->CreateSessionFromArray(env, bytes, (size_t)size, options, &session), ORT_MODEL_LOAD_CANCELED,
                      "SessionOptionsSetLoadCancellationFlag"));
  ok(api->SessionOptionsSetLoadCancellationFlag(options, 0), "SessionOptionsSetLoadCancellationFlag (clear)");
  if (clone) CHECK(failed_with(api->CreateSession(env, model, clone, &session), ORT_MODEL_LOAD_CANCELED, NULL));
  CHECK(failed_with(api->SessionOptionsSetLoadCancellationFlag(NULL, 1), ORT_INVALID_ARGUMENT, NULL));

  /* Prepacked weights containers: sessions made as usual. */
  OrtPrepackedWeightsContainer* container = NULL;
  if (ok(api->CreatePrepackedWeightsContainer(&container), "CreatePrepackedWeightsContainer")) {
    size_t inputs = 0;
    if (ok(api->CreateSessionWithPrepackedWeightsContainer(env, model, options, container, &session),
           "CreateSessionWithPrepackedWeightsContainer")) {
      ok(api->SessionGetInputCount(session, &inputs), "SessionGetInputCount");
      CHECK(inputs == 1);
      api->ReleaseSession(session);
    }
    session = NULL;
    if (bytes && ok(api->CreateSessionFromArrayWithPrepackedWeightsContainer(env, bytes, (size_t)size, options,
                                                                              container, &session),
                    "CreateSessionFromArrayWithPrepackedWeightsContainer"))
      api->ReleaseSession(session);
    session = NULL;
    CHECK(failed_with(api->CreateSessionWithPrepackedWeightsContainer(env, model, options, NULL, &session),
                      ORT_INVALID_ARGUMENT, "prepacked_weights_container"));
    CHECK(session == NULL);
    api->ReleasePrepackedWeightsContainer(container);
  }
  free(bytes);
  api->ReleaseSessionOptions(clone);
  api->ReleaseSessionOptions(options);
}

/* RunAsync's completions, waited for under a mutex. */
typedef struct {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int done;
  OrtValue** outputs;
  size_t count;
  OrtErrorCode code;
} Completion;

static void ORT_API_CALL completed(void* user_data, OrtValue** outputs, size_t num_outputs, OrtStatusPtr status) {
  Completion* c = (Completion*)user_data;
  pthread_mutex_lock(&c->mu);
  c->outputs = outputs;
  c->count = num_outputs;
  c->code = status ? api->GetErrorCode(status) : ORT_OK;
  if (status) api->ReleaseStatus(status); /* the callback's to release */
  c->done = 1;
  pthread_cond_signal(&c->cv);
  pthread_mutex_unlock(&c->mu);
}

static void wait_for(Completion* c) {
  pthread_mutex_lock(&c->mu);
  while (!c->done) pthread_cond_wait(&c->cv, &c->mu);
  pthread_mutex_unlock(&c->mu);
}

static void async_runs(OrtEnv* env, const char* model) {
  OrtSession* session = session_on(env, model, 0);
  OrtMemoryInfo* cpu = make_cpu_info();
  float images[2 * 64];
  for (int b = 0; b < 2; ++b) /* horizontal then vertical stripes, two pixels wide */
    for (int r = 0; r < 8; ++r)
      for (int col = 0; col < 8; ++col) images[b * 64 + r * 8 + col] = (float)(((b == 0 ? r : col) / 2) % 2);
  const int64_t shape[4] = {2, 1, 8, 8};
  OrtValue* input = NULL;
  OrtValue* expected = NULL;
  const float* want = NULL;
  if (!session || !cpu ||
      !ok(api->CreateTensorWithDataAsOrtValue(cpu, images, sizeof images, shape, 4, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT,
                                              &input), "CreateTensorWithDataAsOrtValue"))
    return;
  const char* in_names[1] = {"image"};
  const char* out_names[1] = {"probabilities"};
  const char* bad_names[1] = {"no_such_input"};
  const OrtValue* inputs[1] = {input};
  if (ok(api->Run(session, NULL, in_names, inputs, 1, out_names, 1, &expected), "Run"))
    ok(api->GetTensorData(expected, (const void**)&want), "GetTensorData");
  CHECK(want && want[1] > want[0] && want[3] > want[4]);

  Completion c = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, NULL, 99, ORT_FAIL};
  OrtValue* outputs[1] = {NULL};
  if (want && ok(api->RunAsync(session, NULL, in_names, inputs, 1, out_names, 1, outputs, completed, &c), "RunAsync")) {
    const float* got = NULL;
    wait_for(&c);
    CHECK(c.code == ORT_OK && c.outputs == outputs && c.count == 1 && outputs[0] != NULL);
    if (outputs[0] && ok(api->GetTensorData(outputs[0], (const void**)&got), "GetTensorData"))
      CHECK(memcmp(got, want, 6 * sizeof(float)) == 0);
    api->ReleaseValue(outputs[0]);
  }
  /* A preallocated output is written in place. */
  float written[6] = {0};
  const int64_t out_shape[2] = {2, 3};
  OrtValue* mine = NULL;
  c.done = 0;
  if (want && ok(api->CreateTensorWithDataAsOrtValue(cpu, written, sizeof written, out_shape, 2,
                                                     ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, &mine), "output tensor")) {
    outputs[0] = mine;
    ok(api->RunAsync(session, NULL, in_names, inputs, 1, out_names, 1, outputs, completed, &c), "RunAsync (preallocated)");
    wait_for(&c);
    CHECK(c.code == ORT_OK && outputs[0] == mine && memcmp(written, want, sizeof written) == 0);
    api->ReleaseValue(mine);
  }
  /* A run that fails reports through the callback: no outputs, the status. */
  outputs[0] = NULL;
  c.done = 0;
  if (ok(api->RunAsync(session, NULL, bad_names, inputs, 1, out_names, 1, outputs, completed, &c), "RunAsync (bad input)")) {
    wait_for(&c);
    CHECK(c.code != ORT_OK && c.outputs == NULL && c.count == 0 && outputs[0] == NULL);
  }
  CHECK(failed_with(api->RunAsync(session, NULL, in_names, inputs, 1, out_names, 1, outputs, NULL, &c),
                    ORT_INVALID_ARGUMENT, "run_async_callback"));
  CHECK(failed_with(api->RunAsync(NULL, NULL, in_names, inputs, 1, out_names, 1, outputs, completed, &c),
                    ORT_INVALID_ARGUMENT, NULL));
  CHECK(failed_with(api->RunAsync(session, NULL, in_names, inputs, 1, out_names, 1, NULL, completed, &c),
                    ORT_INVALID_ARGUMENT, "output"));

  OrtRunOptions* run = NULL;
  if (ok(api->CreateRunOptions(&run), "CreateRunOptions")) {
    CHECK(failed_with(api->RunOptionsEnableProfiling(run, "run_profile"), ORT_NOT_IMPLEMENTED, "whole sessions"));
    CHECK(failed_with(api->RunOptionsEnableProfiling(run, NULL), ORT_INVALID_ARGUMENT, NULL));
    ok(api->RunOptionsDisableProfiling(run), "RunOptionsDisableProfiling");
    CHECK(failed_with(api->RunOptionsDisableProfiling(NULL), ORT_INVALID_ARGUMENT, NULL));
    api->ReleaseRunOptions(run);
  }
  api->ReleaseValue(expected);
  api->ReleaseValue(input);
  api->ReleaseMemoryInfo(cpu);
  api->ReleaseSession(session);
}

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: c_api_extras_test stripes.onnx extras_custom_op.onnx\n");
    return 2;
  }
  api = OrtGetApiBase()->GetApi(ORT_API_VERSION);
  OrtEnv* env = NULL;
  if (!ok(api->CreateEnv(ORT_LOGGING_LEVEL_WARNING, "extras", &env), "CreateEnv")) return 1;
  memory_info_v2();
  arena_cfg();
  allocators(argv[1]);
  session_options_and_sessions(env, argv[1]);
  async_runs(env, argv[1]);
  failures += extras_more(api, env, argv[1], argv[2]);
  api->ReleaseEnv(env);
  if (failures) fprintf(stderr, "%d check(s) failed\n", failures);
  else printf("c_api_extras_test: all checks passed\n");
  return failures ? 1 : 0;
}
