/* A custom-operator library written in C against ONNX Runtime's C API only, as third parties
 * write them for ORT: its RegisterCustomOps adds the domain "onyx.test" with
 *
 *   ScaledAdd(X, Y) -> Z = X + alpha * Y      float32, same shapes; attribute alpha (float).
 *       An op of the oldest kind (version 1: CreateKernel / KernelCompute, no input
 *       characteristics), so the loader must not read the members later versions added.
 *   Join(X...) -> Y = the elements of every input, one after another, 1-D
 *       Current kind (CreateKernelV2 / KernelComputeV2): variadic inputs of one type (min 1),
 *       the type left open (float32 or int64 alike); copies through KernelContext_ParallelFor.
 *       Attributes: fail (int, default 0; 1 makes the compute return an error status),
 *       tag (string, optional; read with the size protocol and checked against the node name).
 *
 * Built as libonyx_test_custom_ops.so; loaded by tests/capi/c_api_test.c and
 * tests/python/test_custom_ops.py. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "onnxruntime_c_api.h"

static const OrtApi* api;

/* ---- ScaledAdd ---- */

typedef struct {
  float alpha;
} ScaledAddKernel;

static void* ORT_API_CALL scaled_add_create(const OrtCustomOp* op, const OrtApi* a, const OrtKernelInfo* info) {
  (void)op;
  ScaledAddKernel* k = (ScaledAddKernel*)calloc(1, sizeof(ScaledAddKernel));
  OrtStatus* st = a->KernelInfoGetAttribute_float(info, "alpha", &k->alpha);
  if (st) { /* no alpha: 1, as a default */
    a->ReleaseStatus(st);
    k->alpha = 1.0f;
  }
  return k;
}

static void ORT_API_CALL scaled_add_compute(void* kernel, OrtKernelContext* context) {
  const ScaledAddKernel* k = (const ScaledAddKernel*)kernel;
  const OrtValue* x = NULL;
  const OrtValue* y = NULL;
  api->KernelContext_GetInput(context, 0, &x);
  api->KernelContext_GetInput(context, 1, &y);
  OrtTensorTypeAndShapeInfo* info = NULL;
  api->GetTensorTypeAndShape(x, &info);
  size_t rank = 0, count = 0;
  api->GetDimensionsCount(info, &rank);
  int64_t dims[8] = {0};
  if (rank > 8) rank = 8;
  api->GetDimensions(info, dims, rank);
  api->GetTensorShapeElementCount(info, &count);
  api->ReleaseTensorTypeAndShapeInfo(info);
  const float* px = NULL;
  const float* py = NULL;
  api->GetTensorData(x, (const void**)&px);
  api->GetTensorData(y, (const void**)&py);
  OrtValue* z = NULL;
  api->KernelContext_GetOutput(context, 0, dims, rank, &z);
  float* pz = NULL;
  api->GetTensorMutableData(z, (void**)&pz);
  for (size_t i = 0; i < count; ++i) pz[i] = px[i] + k->alpha * py[i];
}

static void ORT_API_CALL scaled_add_destroy(void* kernel) { free(kernel); }
static const char* ORT_API_CALL scaled_add_name(const OrtCustomOp* op) { (void)op; return "ScaledAdd"; }
static const char* ORT_API_CALL cpu(const OrtCustomOp* op) { (void)op; return "CPUExecutionProvider"; }
static ONNXTensorElementDataType ORT_API_CALL float_type(const OrtCustomOp* op, size_t i) {
  (void)op; (void)i;
  return ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT;
}
static size_t ORT_API_CALL two(const OrtCustomOp* op) { (void)op; return 2; }
static size_t ORT_API_CALL one(const OrtCustomOp* op) { (void)op; return 1; }

/* ---- Join ---- */

typedef struct {
  int64_t fail;
} JoinKernel;

typedef struct {
  const char* sources[16];
  char* target;
  size_t offsets[16];
  size_t bytes[16];
} JoinWork;

static void copy_one(void* p, size_t i) {
  JoinWork* w = (JoinWork*)p;
  memcpy(w->target + w->offsets[i], w->sources[i], w->bytes[i]);
}

static OrtStatus* ORT_API_CALL join_create(const OrtCustomOp* op, const OrtApi* a, const OrtKernelInfo* info,
                                           void** kernel) {
  (void)op;
  /* The session's config entry onyx.test.refuse_join = "1" refuses the op (KernelInfo_GetConfigEntries). */
  OrtKeyValuePairs* config = NULL;
  OrtStatus* st = a->KernelInfo_GetConfigEntries(info, &config);
  if (st) return st;
  const char* refuse = a->GetKeyValue(config, "onyx.test.refuse_join");
  const int refused = refuse && strcmp(refuse, "1") == 0;
  a->ReleaseKeyValuePairs(config);
  if (refused) return a->CreateStatus(ORT_FAIL, "Join refused by the session config");
  JoinKernel* k = (JoinKernel*)calloc(1, sizeof(JoinKernel));
  st = a->KernelInfoGetAttribute_int64(info, "fail", &k->fail);
  if (st) {
    a->ReleaseStatus(st);
    k->fail = 0;
  }
  size_t size = 0;
  st = a->KernelInfoGetAttribute_string(info, "tag", NULL, &size);
  if (!st) { /* a tag, when given, must equal the node's name */
    char* tag = (char*)malloc(size);
    char* name = NULL;
    size_t name_size = 0;
    st = a->KernelInfoGetAttribute_string(info, "tag", tag, &size);
    if (!st) st = a->KernelInfo_GetNodeName(info, NULL, &name_size);
    if (!st) {
      name = (char*)malloc(name_size);
      st = a->KernelInfo_GetNodeName(info, name, &name_size);
    }
    if (!st && strcmp(tag, name) != 0) st = a->CreateStatus(ORT_INVALID_ARGUMENT, "Join: tag differs from the node name");
    free(tag);
    free(name);
    if (st) {
      free(k);
      return st;
    }
  } else {
    a->ReleaseStatus(st);
  }
  *kernel = k;
  return NULL;
}

static OrtStatus* ORT_API_CALL join_compute(void* kernel, OrtKernelContext* context) {
  const JoinKernel* k = (const JoinKernel*)kernel;
  if (k->fail) return api->CreateStatus(ORT_INVALID_ARGUMENT, "Join was asked to fail");
  size_t inputs = 0;
  OrtStatus* st = api->KernelContext_GetInputCount(context, &inputs);
  if (st) return st;
  if (inputs > 16) return api->CreateStatus(ORT_INVALID_ARGUMENT, "Join takes 16 inputs at most");
  JoinWork w;
  size_t total = 0, item = 0;
  ONNXTensorElementDataType type = ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
  for (size_t i = 0; i < inputs; ++i) {
    const OrtValue* v = NULL;
    if ((st = api->KernelContext_GetInput(context, i, &v))) return st;
    OrtTensorTypeAndShapeInfo* info = NULL;
    if ((st = api->GetTensorTypeAndShape(v, &info))) return st;
    size_t count = 0;
    ONNXTensorElementDataType t;
    api->GetTensorShapeElementCount(info, &count);
    api->GetTensorElementType(info, &t);
    api->ReleaseTensorTypeAndShapeInfo(info);
    if (i == 0) type = t;
    if (t != type) return api->CreateStatus(ORT_INVALID_ARGUMENT, "Join: inputs of different types");
    item = t == ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64 ? 8 : 4;
    if ((st = api->GetTensorData(v, (const void**)&w.sources[i]))) return st;
    w.offsets[i] = total * item;
    w.bytes[i] = count * item;
    total += count;
  }
  /* A scratch buffer, freed through the context's allocator, as ORT's contract says. */
  void* scratch = NULL;
  OrtAllocator* allocator = NULL;
  if ((st = api->KernelContext_GetScratchBuffer(context, NULL, 64, &scratch))) return st;
  if ((st = api->KernelContext_GetAllocator(context, NULL, &allocator))) return st;
  memset(scratch, 0, 64);
  allocator->Free(allocator, scratch);
  api->ReleaseAllocator(allocator);
  int64_t dims[1] = {(int64_t)total};
  OrtValue* y = NULL;
  if ((st = api->KernelContext_GetOutput(context, 0, dims, 1, &y))) return st;
  if ((st = api->GetTensorMutableData(y, (void**)&w.target))) return st;
  return api->KernelContext_ParallelFor(context, copy_one, inputs, 0, &w);
}

static void ORT_API_CALL join_destroy(void* kernel) { free(kernel); }
static const char* ORT_API_CALL join_name(const OrtCustomOp* op) { (void)op; return "Join"; }
static ONNXTensorElementDataType ORT_API_CALL open_type(const OrtCustomOp* op, size_t i) {
  (void)op; (void)i;
  return ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
}
static OrtCustomOpInputOutputCharacteristic ORT_API_CALL variadic(const OrtCustomOp* op, size_t i) {
  (void)op; (void)i;
  return INPUT_OUTPUT_VARIADIC;
}
static OrtCustomOpInputOutputCharacteristic ORT_API_CALL required(const OrtCustomOp* op, size_t i) {
  (void)op; (void)i;
  return INPUT_OUTPUT_REQUIRED;
}
static OrtMemType ORT_API_CALL default_memory(const OrtCustomOp* op, size_t i) {
  (void)op; (void)i;
  return OrtMemTypeDefault;
}
static int ORT_API_CALL min_one(const OrtCustomOp* op) { (void)op; return 1; }
static int ORT_API_CALL homogeneous(const OrtCustomOp* op) { (void)op; return 1; }
static int ORT_API_CALL first_version(const OrtCustomOp* op) { (void)op; return 1; }
static int ORT_API_CALL no_end(const OrtCustomOp* op) { (void)op; return 2147483647; }

static OrtCustomOp scaled_add;
static OrtCustomOp join;

/* ORT keeps a pointer to the domain: it lives until the library is unloaded, which happens only
 * once no session uses its ops. */
static OrtCustomOpDomain* domain = NULL;

__attribute__((destructor)) static void release_domain(void) {
  if (domain && api) api->ReleaseCustomOpDomain(domain);
  domain = NULL;
}

ORT_EXPORT OrtStatus* ORT_API_CALL RegisterCustomOps(OrtSessionOptions* options, const OrtApiBase* base) {
  api = base->GetApi(ORT_API_VERSION);
  if (!api) return NULL;

  OrtStatus* st = NULL;
  if (!domain) { /* the first call sets the ops up; later ones (more options) reuse them */
    /* An op of version 1: only the members up to KernelDestroy are read. The later ones are
     * filled with a value that would crash if called, to prove they are not. */
    memset(&scaled_add, 0xAB, sizeof(scaled_add));
    scaled_add.version = 1;
    scaled_add.CreateKernel = scaled_add_create;
    scaled_add.GetName = scaled_add_name;
    scaled_add.GetExecutionProviderType = cpu;
    scaled_add.GetInputType = float_type;
    scaled_add.GetInputTypeCount = two;
    scaled_add.GetOutputType = float_type;
    scaled_add.GetOutputTypeCount = one;
    scaled_add.KernelCompute = scaled_add_compute;
    scaled_add.KernelDestroy = scaled_add_destroy;

    memset(&join, 0, sizeof(join));
    join.version = ORT_API_VERSION;
    join.GetName = join_name;
    join.GetExecutionProviderType = cpu;
    join.GetInputType = open_type;
    join.GetInputTypeCount = one;
    join.GetOutputType = open_type;
    join.GetOutputTypeCount = one;
    join.KernelDestroy = join_destroy;
    join.GetInputCharacteristic = variadic;
    join.GetOutputCharacteristic = required;
    join.GetInputMemoryType = default_memory;
    join.GetVariadicInputMinArity = min_one;
    join.GetVariadicInputHomogeneity = homogeneous;
    join.GetVariadicOutputMinArity = min_one;
    join.GetVariadicOutputHomogeneity = homogeneous;
    join.CreateKernelV2 = join_create;
    join.KernelComputeV2 = join_compute;
    join.GetStartVersion = first_version;
    join.GetEndVersion = no_end;
    st = api->CreateCustomOpDomain("onyx.test", &domain);
    if (!st) st = api->CustomOpDomain_Add(domain, &scaled_add);
    if (!st) st = api->CustomOpDomain_Add(domain, &join);
    if (st) return st;
  }
  return api->AddCustomOpDomain(options, domain);
}
