/* onyx's C API: operator attributes, built-in ops invoked from a custom op (CreateOp,
 * InvokeOp), binding syncs, the intra-op affinity string, kernel resources and streams,
 * captured graphs and experimental functions.
 *
 *   c_api_ops_test <ops_custom_op.onnx>
 *
 * The custom op AddLeaky(a, b) -> (y, z), defined here, computes y = LeakyRelu(a + b, 0.5)
 * and z = Transpose(a, perm=[1,0]) by invoking onyx's Add, LeakyRelu and Transpose. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "capi_check.h"

/* Attributes: made, read back, and refused. */
static void op_attributes(void) {
  OrtOpAttr* attr = NULL;
  size_t size = 0;
  int64_t i64 = -7;
  const int64_t ints[3] = {4, -5, 6};
  const float floats[2] = {1.5f, -2.25f};
  const char* strings[3] = {"ab", "", "cde"};
  float f = 0.75f;

  if (ok(api->CreateOpAttr("i", &i64, 1, ORT_OP_ATTR_INT, &attr), "CreateOpAttr INT")) {
    int64_t got = 0;
    CHECK(api->ReadOpAttr(attr, ORT_OP_ATTR_INT, &got, sizeof got, &size) == NULL);
    CHECK(got == -7 && size == sizeof(int64_t));
    /* Too small a buffer: refused, with the size needed. */
    size = 0;
    CHECK(failed_with(api->ReadOpAttr(attr, ORT_OP_ATTR_INT, &got, 4, &size), ORT_INVALID_ARGUMENT, "8 bytes"));
    CHECK(size == 8);
    /* Another type than the attribute's. */
    CHECK(failed_with(api->ReadOpAttr(attr, ORT_OP_ATTR_FLOAT, &f, sizeof f, &size), ORT_INVALID_ARGUMENT, "not FLOAT"));
    CHECK(failed_with(api->ReadOpAttr(attr, ORT_OP_ATTR_INT, &got, sizeof got, NULL), ORT_INVALID_ARGUMENT, NULL));
    CHECK(failed_with(api->ReadOpAttr(attr, ORT_OP_ATTR_GRAPH, &got, sizeof got, &size), ORT_INVALID_ARGUMENT, NULL));
    api->ReleaseOpAttr(attr);
  }
  if (ok(api->CreateOpAttr("f", &f, 1, ORT_OP_ATTR_FLOAT, &attr), "CreateOpAttr FLOAT")) {
    float got = 0;
    CHECK(api->ReadOpAttr(attr, ORT_OP_ATTR_FLOAT, &got, sizeof got, &size) == NULL);
    CHECK(got == 0.75f && size == sizeof(float));
    api->ReleaseOpAttr(attr);
  }
  if (ok(api->CreateOpAttr("ints", ints, 3, ORT_OP_ATTR_INTS, &attr), "CreateOpAttr INTS")) {
    int64_t got[3] = {0, 0, 0};
    /* The size query ORT's users make: a null buffer is too small, and *out says how big. */
    CHECK(failed_with(api->ReadOpAttr(attr, ORT_OP_ATTR_INTS, NULL, 0, &size), ORT_INVALID_ARGUMENT, NULL));
    CHECK(size == 3 * sizeof(int64_t));
    CHECK(api->ReadOpAttr(attr, ORT_OP_ATTR_INTS, got, sizeof got, &size) == NULL);
    CHECK(got[0] == 4 && got[1] == -5 && got[2] == 6 && size == sizeof got);
    api->ReleaseOpAttr(attr);
  }
  if (ok(api->CreateOpAttr("none", NULL, 0, ORT_OP_ATTR_INTS, &attr), "CreateOpAttr empty INTS")) {
    CHECK(api->ReadOpAttr(attr, ORT_OP_ATTR_INTS, NULL, 0, &size) == NULL && size == 0);
    api->ReleaseOpAttr(attr);
  }
  if (ok(api->CreateOpAttr("floats", floats, 2, ORT_OP_ATTR_FLOATS, &attr), "CreateOpAttr FLOATS")) {
    float got[2] = {0, 0};
    CHECK(api->ReadOpAttr(attr, ORT_OP_ATTR_FLOATS, got, sizeof got, &size) == NULL);
    CHECK(got[0] == 1.5f && got[1] == -2.25f && size == sizeof got);
    api->ReleaseOpAttr(attr);
  }
  /* STRING: exactly len bytes in (here "hell" of "hello!"), and out, with no NUL (ORT 1.30) */
  if (ok(api->CreateOpAttr("s", "hello!", 4, ORT_OP_ATTR_STRING, &attr), "CreateOpAttr STRING")) {
    char got[8];
    memset(got, 'x', sizeof got);
    CHECK(failed_with(api->ReadOpAttr(attr, ORT_OP_ATTR_STRING, got, 3, &size), ORT_INVALID_ARGUMENT, NULL));
    CHECK(size == 4 && got[0] == 'x');  /* nothing written when it does not fit */
    CHECK(api->ReadOpAttr(attr, ORT_OP_ATTR_STRING, got, 4, &size) == NULL);
    CHECK(size == 4 && memcmp(got, "hellxxxx", 8) == 0);
    api->ReleaseOpAttr(attr);
  }
  if (ok(api->CreateOpAttr("s", NULL, 0, ORT_OP_ATTR_STRING, &attr), "CreateOpAttr empty STRING")) {
    CHECK(api->ReadOpAttr(attr, ORT_OP_ATTR_STRING, NULL, 0, &size) == NULL && size == 0);
    api->ReleaseOpAttr(attr);
  }
  if (ok(api->CreateOpAttr("ss", strings, 3, ORT_OP_ATTR_STRINGS, &attr), "CreateOpAttr STRINGS")) {
    char got[16];
    CHECK(api->ReadOpAttr(attr, ORT_OP_ATTR_STRINGS, got, sizeof got, &size) == NULL);
    /* Each string followed by a NUL, back to back. */
    CHECK(size == 8 && memcmp(got, "ab\0\0cde", 8) == 0);
    api->ReleaseOpAttr(attr);
  }
  /* Refusals. */
  {
    const char* with_null[2] = {"a", NULL};
    int bad_type = 42;
    OrtOpAttrType bad;
    memcpy(&bad, &bad_type, sizeof bad);
    attr = (OrtOpAttr*)1;
    CHECK(failed_with(api->CreateOpAttr(NULL, &i64, 1, ORT_OP_ATTR_INT, &attr), ORT_INVALID_ARGUMENT, "name"));
    CHECK(attr == NULL);
    CHECK(failed_with(api->CreateOpAttr("i", &i64, 1, ORT_OP_ATTR_INT, NULL), ORT_INVALID_ARGUMENT, NULL));
    CHECK(failed_with(api->CreateOpAttr("i", NULL, 1, ORT_OP_ATTR_INT, &attr), ORT_INVALID_ARGUMENT, "data"));
    CHECK(failed_with(api->CreateOpAttr("s", NULL, 2, ORT_OP_ATTR_STRING, &attr), ORT_INVALID_ARGUMENT, "data"));
    CHECK(failed_with(api->CreateOpAttr("ints", ints, -1, ORT_OP_ATTR_INTS, &attr), ORT_INVALID_ARGUMENT, "len"));
    CHECK(failed_with(api->CreateOpAttr("ss", with_null, 2, ORT_OP_ATTR_STRINGS, &attr), ORT_INVALID_ARGUMENT,
                      "string 1"));
    CHECK(failed_with(api->CreateOpAttr("g", &i64, 1, ORT_OP_ATTR_GRAPH, &attr), ORT_NOT_IMPLEMENTED, "GRAPH"));
    CHECK(failed_with(api->CreateOpAttr("u", &i64, 1, ORT_OP_ATTR_UNDEFINED, &attr), ORT_INVALID_ARGUMENT, NULL));
    CHECK(failed_with(api->CreateOpAttr("x", &i64, 1, bad, &attr), ORT_INVALID_ARGUMENT, "42"));
    CHECK(failed_with(api->ReadOpAttr(NULL, ORT_OP_ATTR_INT, &i64, sizeof i64, &size), ORT_INVALID_ARGUMENT, NULL));
    api->ReleaseOpAttr(NULL);
  }
}

/* The custom op. Its kernel holds the built-in ops; what compute saw is checked by main. */
typedef struct {
  OrtOp* add;
  OrtOp* leaky;
  OrtOp* transpose;
} Kernel;

static struct {
  int create_refusals_ok, computed, resource_null, stream_null, refusals_ok, second_signature_ok;
} seen;

static OrtStatus* ORT_API_CALL add_leaky_create(const OrtCustomOp* op, const OrtApi* a, const OrtKernelInfo* info,
                                                void** out) {
  (void)op;
  const char* names[1] = {"T"};
  ONNXTensorElementDataType types[1] = {ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT};
  float alpha = 0.5f;
  const int64_t perm[2] = {1, 0};
  OrtOpAttr* alpha_attr = NULL;
  OrtOpAttr* perm_attr = NULL;
  OrtOp* scratch = NULL;
  Kernel* k = (Kernel*)calloc(1, sizeof(Kernel));
  OrtStatus* st = a->CreateOpAttr("alpha", &alpha, 1, ORT_OP_ATTR_FLOAT, &alpha_attr);
  if (!st) st = a->CreateOpAttr("perm", perm, 2, ORT_OP_ATTR_INTS, &perm_attr);
  if (!st) st = a->CreateOp(info, "Add", "", 14, names, types, 1, NULL, 0, 2, 1, &k->add);
  if (!st) {
    const OrtOpAttr* attrs[1] = {alpha_attr};
    st = a->CreateOp(info, "LeakyRelu", "", 16, names, types, 1, attrs, 1, 1, 1, &k->leaky);
  }
  if (!st) {
    const OrtOpAttr* attrs[1] = {perm_attr};
    st = a->CreateOp(info, "Transpose", "ai.onnx", 13, NULL, NULL, 0, attrs, 1, 1, 1, &k->transpose);
  }
  /* The attributes were copied: releasing them now is fine. */
  a->ReleaseOpAttr(alpha_attr);
  a->ReleaseOpAttr(perm_attr);
  if (st) {
    free(k);
    return st;
  }
  {
    const OrtOpAttr* twice[2] = {NULL, NULL};
    const OrtOpAttr* null_attr[1] = {NULL};
    const char* null_name[1] = {NULL};
    OrtOpAttr* again = NULL;
    int refusals = 1;
    a->CreateOpAttr("perm", perm, 2, ORT_OP_ATTR_INTS, &again);
    twice[0] = twice[1] = again;
    refusals &= failed_with(a->CreateOp(info, "NoSuchOp", "", 14, NULL, NULL, 0, NULL, 0, 1, 1, &scratch),
                            ORT_INVALID_ARGUMENT, "no CPU kernel");
    refusals &= scratch == NULL;
    refusals &= failed_with(a->CreateOp(info, "Add", "", 0, NULL, NULL, 0, NULL, 0, 2, 1, &scratch),
                            ORT_INVALID_ARGUMENT, "version");
    refusals &= failed_with(a->CreateOp(info, "Add", "", 14, NULL, NULL, 0, NULL, 0, 2, 0, &scratch),
                            ORT_INVALID_ARGUMENT, "outputs");
    refusals &= failed_with(a->CreateOp(info, "Add", "", 14, NULL, NULL, 0, null_attr, 1, 2, 1, &scratch),
                            ORT_INVALID_ARGUMENT, "is null");
    refusals &= failed_with(a->CreateOp(info, "Transpose", "", 13, NULL, NULL, 0, twice, 2, 1, 1, &scratch),
                            ORT_INVALID_ARGUMENT, "twice");
    refusals &= failed_with(a->CreateOp(info, "Add", "", 14, null_name, types, 1, NULL, 0, 2, 1, &scratch),
                            ORT_INVALID_ARGUMENT, "type constraint");
    refusals &= failed_with(a->CreateOp(NULL, "Add", "", 14, NULL, NULL, 0, NULL, 0, 2, 1, &scratch),
                            ORT_INVALID_ARGUMENT, "info");
    refusals &= failed_with(a->CreateOp(info, NULL, "", 14, NULL, NULL, 0, NULL, 0, 2, 1, &scratch),
                            ORT_INVALID_ARGUMENT, "op_name");
    a->ReleaseOpAttr(again);
    seen.create_refusals_ok = refusals;
  }
  *out = k;
  return NULL;
}

static OrtStatus* ORT_API_CALL add_leaky_compute(void* kernel, OrtKernelContext* context) {
  const Kernel* k = (const Kernel*)kernel;
  const OrtValue* a = NULL;
  const OrtValue* b = NULL;
  OrtValue* y = NULL;
  OrtValue* z = NULL;
  OrtValue* sum = NULL;
  OrtAllocator* allocator = NULL;
  const int64_t y_dims[2] = {2, 3};
  const int64_t z_dims[2] = {3, 2};
  OrtStatus* st = api->KernelContext_GetInput(context, 0, &a);
  if (!st) st = api->KernelContext_GetInput(context, 1, &b);
  if (!st) st = api->KernelContext_GetOutput(context, 0, y_dims, 2, &y);
  if (!st) st = api->KernelContext_GetOutput(context, 1, z_dims, 2, &z);
  if (!st) st = api->GetAllocatorWithDefaultOptions(&allocator);
  if (!st) st = api->CreateTensorAsOrtValue(allocator, y_dims, 2, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, &sum);
  if (st) return st;
  {
    const OrtValue* ab[2] = {a, b};
    OrtValue* sum_out[1] = {sum};
    const OrtValue* leaky_in[1] = {sum};
    OrtValue* y_out[1] = {y};
    const OrtValue* t_in[1] = {a};
    OrtValue* z_out[1] = {z};
    st = api->InvokeOp(context, k->add, ab, 2, sum_out, 1);
    if (!st) st = api->InvokeOp(context, k->leaky, leaky_in, 1, y_out, 1);
    if (!st) st = api->InvokeOp(context, k->transpose, t_in, 1, z_out, 1);
    if (st) {
      api->ReleaseValue(sum);
      return st;
    }
  }
  {
    void* resource = (void*)1;
    OrtSyncStream* stream = (OrtSyncStream*)1;
    seen.resource_null = api->KernelContext_GetResource(context, 1, 2, &resource) == NULL && resource == NULL;
    seen.stream_null = api->KernelContext_GetSyncStream(context, &stream) == NULL && stream == NULL;
  }
  {
    /* Refusals: counts, a null output slot, an output of the wrong shape or type, a null context. */
    const OrtValue* ab[2] = {a, b};
    const OrtValue* one_in[1] = {a};
    OrtValue* null_out[1] = {NULL};
    OrtValue* wrong_shape[1] = {z}; /* [3,2] where Add makes [2,3] */
    OrtValue* sum_out[1] = {sum};
    OrtValue* ints = NULL;
    int refusals = 1;
    refusals &= failed_with(api->InvokeOp(context, k->add, one_in, 1, sum_out, 1), ORT_INVALID_ARGUMENT, "2 inputs");
    refusals &= failed_with(api->InvokeOp(context, k->add, ab, 2, null_out, 1), ORT_INVALID_ARGUMENT, "null");
    refusals &= failed_with(api->InvokeOp(context, k->add, ab, 2, wrong_shape, 1), ORT_INVALID_ARGUMENT, NULL);
    refusals &= failed_with(api->InvokeOp(NULL, k->add, ab, 2, sum_out, 1), ORT_INVALID_ARGUMENT, "context");
    refusals &= failed_with(api->InvokeOp(context, NULL, ab, 2, sum_out, 1), ORT_INVALID_ARGUMENT, "ort_op");
    if (!api->CreateTensorAsOrtValue(allocator, y_dims, 2, ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64, &ints)) {
      const OrtValue* mixed[2] = {a, ints};
      refusals &= code_of(api->InvokeOp(context, k->add, mixed, 2, sum_out, 1)) != ORT_OK;
      api->ReleaseValue(ints);
    }
    seen.refusals_ok = refusals;
  }
  {
    /* Another signature (1-D inputs) for the same op: a second cached session. */
    float x1[3] = {1, 2, 3}, x2[3] = {10, 20, 30}, r[3] = {0, 0, 0};
    const int64_t dims1[1] = {3};
    OrtMemoryInfo* cpu = NULL;
    OrtValue *v1 = NULL, *v2 = NULL, *vr = NULL;
    int good = 0;
    if (!api->CreateCpuMemoryInfo(OrtArenaAllocator, OrtMemTypeDefault, &cpu) &&
        !api->CreateTensorWithDataAsOrtValue(cpu, x1, sizeof x1, dims1, 1, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, &v1) &&
        !api->CreateTensorWithDataAsOrtValue(cpu, x2, sizeof x2, dims1, 1, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, &v2) &&
        !api->CreateTensorWithDataAsOrtValue(cpu, r, sizeof r, dims1, 1, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, &vr)) {
      const OrtValue* in[2] = {v1, v2};
      OrtValue* outs[1] = {vr};
      OrtStatus* s = api->InvokeOp(context, k->add, in, 2, outs, 1);
      good = s == NULL && r[0] == 11 && r[1] == 22 && r[2] == 33;
      if (s) {
        fprintf(stderr, "InvokeOp (1-D): %s\n", api->GetErrorMessage(s));
        api->ReleaseStatus(s);
      }
    }
    seen.second_signature_ok = good;
    api->ReleaseValue(v1);
    api->ReleaseValue(v2);
    api->ReleaseValue(vr);
    api->ReleaseMemoryInfo(cpu);
  }
  api->ReleaseValue(sum);
  ++seen.computed;
  return NULL;
}

static void ORT_API_CALL add_leaky_destroy(void* kernel) {
  Kernel* k = (Kernel*)kernel;
  api->ReleaseOp(k->add);
  api->ReleaseOp(k->leaky);
  api->ReleaseOp(k->transpose);
  free(k);
}
static const char* ORT_API_CALL add_leaky_name(const OrtCustomOp* op) { (void)op; return "AddLeaky"; }
static const char* ORT_API_CALL on_cpu(const OrtCustomOp* op) { (void)op; return "CPUExecutionProvider"; }
static ONNXTensorElementDataType ORT_API_CALL float_type(const OrtCustomOp* op, size_t i) {
  (void)op; (void)i;
  return ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT;
}
static size_t ORT_API_CALL two(const OrtCustomOp* op) { (void)op; return 2; }
static OrtCustomOpInputOutputCharacteristic ORT_API_CALL required(const OrtCustomOp* op, size_t i) {
  (void)op; (void)i;
  return INPUT_OUTPUT_REQUIRED;
}
static int ORT_API_CALL first_version(const OrtCustomOp* op) { (void)op; return 1; }
static int ORT_API_CALL no_end(const OrtCustomOp* op) { (void)op; return 2147483647; }

static float leaky(float x) { return x >= 0 ? x : 0.5f * x; }

/* Runs the model with the custom op twice (the second run reuses the cached sessions). */
static void invoke_ops(OrtEnv* env, const char* model) {
  static OrtCustomOp op;
  OrtCustomOpDomain* domain = NULL;
  OrtSessionOptions* options = NULL;
  OrtSession* session = NULL;
  OrtMemoryInfo* cpu = NULL;
  memset(&op, 0, sizeof op);
  op.version = ORT_API_VERSION;
  op.GetName = add_leaky_name;
  op.GetExecutionProviderType = on_cpu;
  op.GetInputType = float_type;
  op.GetInputTypeCount = two;
  op.GetOutputType = float_type;
  op.GetOutputTypeCount = two;
  op.KernelDestroy = add_leaky_destroy;
  op.GetInputCharacteristic = required;
  op.GetOutputCharacteristic = required;
  op.CreateKernelV2 = add_leaky_create;
  op.KernelComputeV2 = add_leaky_compute;
  op.GetStartVersion = first_version;
  op.GetEndVersion = no_end;
  ok(api->CreateCpuMemoryInfo(OrtArenaAllocator, OrtMemTypeDefault, &cpu), "CreateCpuMemoryInfo");
  ok(api->CreateCustomOpDomain("onyx.ops", &domain), "CreateCustomOpDomain");
  ok(api->CustomOpDomain_Add(domain, &op), "CustomOpDomain_Add");
  ok(api->CreateSessionOptions(&options), "CreateSessionOptions");
  ok(api->AddCustomOpDomain(options, domain), "AddCustomOpDomain");
  if (cpu && ok(api->CreateSession(env, model, options, &session), "CreateSession (AddLeaky)")) {
    float a[6] = {1, -2, 3, -4, 5, -6};
    float b[6] = {0.5f, 1, -4, 2, -5, 3};
    const int64_t shape[2] = {2, 3};
    const char* in_names[2] = {"a", "b"};
    const char* out_names[2] = {"y", "z"};
    OrtValue* va = NULL;
    OrtValue* vb = NULL;
    CHECK(seen.create_refusals_ok);
    if (ok(api->CreateTensorWithDataAsOrtValue(cpu, a, sizeof a, shape, 2, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, &va),
           "CreateTensorWithDataAsOrtValue") &&
        ok(api->CreateTensorWithDataAsOrtValue(cpu, b, sizeof b, shape, 2, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, &vb),
           "CreateTensorWithDataAsOrtValue")) {
      const OrtValue* inputs[2] = {va, vb};
      for (int run = 0; run < 2; ++run) {
        OrtValue* outputs[2] = {NULL, NULL};
        const float* y = NULL;
        const float* z = NULL;
        if (run == 1)
          for (int i = 0; i < 6; ++i) b[i] = -b[i]; /* the second run sees other values */
        if (ok(api->Run(session, NULL, in_names, inputs, 2, out_names, 2, outputs), "Run (AddLeaky)") &&
            ok(api->GetTensorData(outputs[0], (const void**)&y), "GetTensorData y") &&
            ok(api->GetTensorData(outputs[1], (const void**)&z), "GetTensorData z")) {
          int y_ok = 1, z_ok = 1;
          for (int i = 0; i < 6; ++i) y_ok &= fabsf(y[i] - leaky(a[i] + b[i])) < 1e-6f;
          for (int r = 0; r < 3; ++r)
            for (int c = 0; c < 2; ++c) z_ok &= z[r * 2 + c] == a[c * 3 + r];
          CHECK(y_ok);
          CHECK(z_ok);
        }
        api->ReleaseValue(outputs[0]);
        api->ReleaseValue(outputs[1]);
      }
      CHECK(seen.computed == 2);
      CHECK(seen.resource_null && seen.stream_null);
      CHECK(seen.refusals_ok);
      CHECK(seen.second_signature_ok);
    }
    api->ReleaseValue(va);
    api->ReleaseValue(vb);

    /* Binding syncs on a CPU session: checked no-ops. */
    {
      OrtIoBinding* binding = NULL;
      if (ok(api->CreateIoBinding(session, &binding), "CreateIoBinding")) {
        CHECK(api->SynchronizeBoundInputs(binding) == NULL);
        CHECK(api->SynchronizeBoundOutputs(binding) == NULL);
        if (ok(api->BindOutputToDevice(binding, "y", cpu), "BindOutputToDevice"))
          CHECK(api->SynchronizeBoundOutputs(binding) == NULL);
        api->ReleaseIoBinding(binding);
      }
      CHECK(failed_with(api->SynchronizeBoundInputs(NULL), ORT_INVALID_ARGUMENT, NULL));
      CHECK(failed_with(api->SynchronizeBoundOutputs(NULL), ORT_INVALID_ARGUMENT, NULL));
    }
    /* No recorded runs on the CPU: nothing to release, for any id. */
    CHECK(api->SessionReleaseCapturedGraph(session, 0) == NULL);
    CHECK(api->SessionReleaseCapturedGraph(session, -3) == NULL);
    api->ReleaseSession(session);
  }
  CHECK(failed_with(api->SessionReleaseCapturedGraph(NULL, 0), ORT_INVALID_ARGUMENT, NULL));
  api->ReleaseSessionOptions(options);
  api->ReleaseCustomOpDomain(domain);
  api->ReleaseMemoryInfo(cpu);
}

static void affinity(void) {
  OrtThreadingOptions* threads = NULL;
  OrtEnv* env = NULL;
  const char* good[] = {"1", "1,2,3;4,5", "1-8;9-16;17-24", "2,4-6;1", ""};
  const char* bad[] = {"0", "1;", ";1", "1,,2", "2-1", "a", "1-", "-3", "1 ,2", "1;2;", "99999999999"};
  if (!ok(api->CreateThreadingOptions(&threads), "CreateThreadingOptions")) return;
  for (size_t i = 0; i < sizeof good / sizeof *good; ++i) {
    OrtStatus* st = api->SetGlobalIntraOpThreadAffinity(threads, good[i]);
    if (st) fprintf(stderr, "affinity '%s' refused: %s\n", good[i], api->GetErrorMessage(st));
    CHECK(st == NULL);
    if (st) api->ReleaseStatus(st);
  }
  for (size_t i = 0; i < sizeof bad / sizeof *bad; ++i) {
    OrtStatus* st = api->SetGlobalIntraOpThreadAffinity(threads, bad[i]);
    if (!st) fprintf(stderr, "affinity '%s' accepted\n", bad[i]);
    CHECK(failed_with(st, ORT_INVALID_ARGUMENT, "SetGlobalIntraOpThreadAffinity"));
  }
  CHECK(failed_with(api->SetGlobalIntraOpThreadAffinity(threads, NULL), ORT_INVALID_ARGUMENT, NULL));
  CHECK(failed_with(api->SetGlobalIntraOpThreadAffinity(NULL, "1"), ORT_INVALID_ARGUMENT, NULL));
  CHECK(api->SetGlobalIntraOpNumThreads(threads, 3) == NULL);
  CHECK(api->SetGlobalIntraOpThreadAffinity(threads, "1;2") == NULL);
  if (ok(api->CreateEnvWithGlobalThreadPools(ORT_LOGGING_LEVEL_WARNING, "ops", threads, &env),
         "CreateEnvWithGlobalThreadPools"))
    api->ReleaseEnv(env);
  api->ReleaseThreadingOptions(threads);
}

int main(int argc, char** argv) {
  OrtEnv* env = NULL;
  if (argc < 2) {
    fprintf(stderr, "usage: %s ops_custom_op.onnx\n", argv[0]);
    return 2;
  }
  api = OrtGetApiBase()->GetApi(ORT_API_VERSION);
  if (!api || !ok(api->CreateEnv(ORT_LOGGING_LEVEL_WARNING, "ops", &env), "CreateEnv")) return 1;
  op_attributes();
  invoke_ops(env, argv[1]);
  affinity();
  /* No experimental functions, whatever the name. */
  CHECK(api->GetExperimentalFunction("anything") == NULL);
  CHECK(api->GetExperimentalFunction(NULL) == NULL);
  /* Opaque values stay unimplemented. */
  {
    OrtValue* v = NULL;
    int data = 1;
    CHECK(failed_with(api->CreateOpaqueValue("d", "t", &data, sizeof data, &v), ORT_NOT_IMPLEMENTED, NULL));
  }
  /* InvokeOp and CreateOp outside a kernel: refused. */
  {
    OrtOp* op = NULL;
    CHECK(failed_with(api->InvokeOp(NULL, NULL, NULL, 0, NULL, 0), ORT_INVALID_ARGUMENT, NULL));
    CHECK(failed_with(api->CreateOp(NULL, "Add", "", 14, NULL, NULL, 0, NULL, 0, 2, 1, &op), ORT_INVALID_ARGUMENT, NULL));
    CHECK(op == NULL);
    api->ReleaseOp(NULL);
  }
  api->ReleaseEnv(env);
  if (failures) {
    fprintf(stderr, "%d check(s) failed\n", failures);
    return 1;
  }
  printf("c_api_ops_test: all checks passed\n");
  return 0;
}
