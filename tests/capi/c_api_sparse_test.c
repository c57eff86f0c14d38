/* Sparse tensors through onyx's C API (src/capi/sparse_values.cc), in C against
 * libonnxruntime.so.1:
 *   CreateSparseTensorAsOrtValue + FillSparseTensorCoo (linear and 2-D indices), Csr and
 *   BlockSparse, read back through GetSparseTensorFormat, GetSparseTensorValuesTypeAndShape,
 *   GetSparseTensorValues, GetSparseTensorIndicesTypeShape and GetSparseTensorIndices (copies:
 *   the caller's buffers changed afterwards do not show);
 *   CreateSparseTensorWithValuesAsOrtValue + UseCooIndices / UseCsrIndices /
 *   UseBlockSparseIndices (borrowed: the value reads the caller's memory);
 *   IsSparseTensor, GetValueType, GetTypeInfo, GetTensorTypeAndShape and the dense getters on a
 *   sparse value; error paths (bad indices, a second fill, the wrong indices format, a device
 *   memory info, string values, NULLs); Run and BindInput refusing a sparse feed.
 * Usage: c_api_sparse_test stripes.onnx */
#include <stdint.h>
#include <string.h>

#include "capi_check.h"

static OrtAllocator* allocator;
static OrtMemoryInfo* cpu;

/* The shape info's type and dims equal `type` and dims[0..rank). */
static int info_is(OrtTensorTypeAndShapeInfo* info, ONNXTensorElementDataType type, const int64_t* dims, size_t rank) {
  ONNXTensorElementDataType got = ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
  size_t n = 99;
  int64_t d[8] = {0};
  int good = info && !api->GetTensorElementType(info, &got) && !api->GetDimensionsCount(info, &n) && n == rank &&
             n <= 8 && !api->GetDimensions(info, d, n) && got == type && (rank == 0 || memcmp(d, dims, rank * 8) == 0);
  if (info) api->ReleaseTensorTypeAndShapeInfo(info);
  return good;
}

static int values_shape_is(const OrtValue* v, ONNXTensorElementDataType type, const int64_t* dims, size_t rank) {
  OrtTensorTypeAndShapeInfo* info = NULL;
  if (!ok(api->GetSparseTensorValuesTypeAndShape(v, &info), "GetSparseTensorValuesTypeAndShape")) return 0;
  return info_is(info, type, dims, rank);
}

static int indices_shape_is(const OrtValue* v, OrtSparseIndicesFormat f, ONNXTensorElementDataType type,
                            const int64_t* dims, size_t rank) {
  OrtTensorTypeAndShapeInfo* info = NULL;
  if (!ok(api->GetSparseTensorIndicesTypeShape(v, f, &info), "GetSparseTensorIndicesTypeShape")) return 0;
  return info_is(info, type, dims, rank);
}

static OrtSparseFormat format_of(const OrtValue* v) {
  OrtSparseFormat f = (OrtSparseFormat)99;
  ok(api->GetSparseTensorFormat(v, &f), "GetSparseTensorFormat");
  return f;
}

static OrtValue* empty_sparse(const int64_t* dense, size_t rank, ONNXTensorElementDataType type) {
  OrtValue* v = NULL;
  ok(api->CreateSparseTensorAsOrtValue(allocator, dense, rank, type, &v), "CreateSparseTensorAsOrtValue");
  return v;
}

static void coo(void) {
  const int64_t dense[2] = {3, 4};
  float values[3] = {1.5f, -2.0f, 7.0f};
  int64_t linear[3] = {1, 6, 11};
  const int64_t vshape[1] = {3};
  OrtValue* v = empty_sparse(dense, 2, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT);
  if (!v) return;
  CHECK(format_of(v) == ORT_SPARSE_UNDEFINED);
  const void* p = NULL;
  CHECK(failed_with(api->GetSparseTensorValues(v, &p), ORT_INVALID_ARGUMENT, "no data"));
  /* Bad linear index: out of the dense shape's 12 elements; the value stays empty. */
  int64_t bad[3] = {1, 6, 12};
  CHECK(failed_with(api->FillSparseTensorCoo(v, cpu, vshape, 1, values, bad, 3), ORT_INVALID_ARGUMENT, "out of range"));
  int64_t negative[3] = {1, -1, 2};
  CHECK(failed_with(api->FillSparseTensorCoo(v, cpu, vshape, 1, values, negative, 3), ORT_INVALID_ARGUMENT, NULL));
  CHECK(failed_with(api->FillSparseTensorCoo(v, cpu, vshape, 1, values, linear, 2), ORT_INVALID_ARGUMENT, "COO indices"));
  CHECK(failed_with(api->FillSparseTensorCoo(v, NULL, vshape, 1, values, linear, 3), ORT_INVALID_ARGUMENT, NULL));
  CHECK(failed_with(api->FillSparseTensorCoo(v, cpu, vshape, 1, NULL, linear, 3), ORT_INVALID_ARGUMENT, NULL));
  CHECK(format_of(v) == ORT_SPARSE_UNDEFINED);
  ok(api->FillSparseTensorCoo(v, cpu, vshape, 1, values, linear, 3), "FillSparseTensorCoo");
  values[0] = 100.0f; /* copied: later changes do not show */
  linear[0] = 0;
  CHECK(format_of(v) == ORT_SPARSE_COO);
  CHECK(failed_with(api->FillSparseTensorCoo(v, cpu, vshape, 1, values, linear, 3), ORT_INVALID_ARGUMENT, "already"));
  const float* got = NULL;
  if (ok(api->GetSparseTensorValues(v, (const void**)&got), "GetSparseTensorValues"))
    CHECK(got && got[0] == 1.5f && got[1] == -2.0f && got[2] == 7.0f);
  CHECK(values_shape_is(v, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, vshape, 1));
  const int64_t ishape[1] = {3};
  CHECK(indices_shape_is(v, ORT_SPARSE_COO_INDICES, ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64, ishape, 1));
  size_t n = 0;
  const int64_t* idx = NULL;
  if (ok(api->GetSparseTensorIndices(v, ORT_SPARSE_COO_INDICES, &n, (const void**)&idx), "GetSparseTensorIndices"))
    CHECK(n == 3 && idx[0] == 1 && idx[1] == 6 && idx[2] == 11);
  /* The wrong format's indices. */
  CHECK(failed_with(api->GetSparseTensorIndices(v, ORT_SPARSE_CSR_INNER_INDICES, &n, (const void**)&idx),
                    ORT_INVALID_ARGUMENT, "does not match"));
  OrtTensorTypeAndShapeInfo* info = NULL;
  CHECK(failed_with(api->GetSparseTensorIndicesTypeShape(v, ORT_SPARSE_BLOCK_SPARSE_INDICES, &info),
                    ORT_INVALID_ARGUMENT, NULL));
  CHECK(failed_with(api->GetSparseTensorIndices(v, ORT_SPARSE_COO_INDICES, NULL, (const void**)&idx),
                    ORT_INVALID_ARGUMENT, NULL));

  /* What the value getters say about it. */
  int is = 0;
  ok(api->IsSparseTensor(v, &is), "IsSparseTensor");
  CHECK(is == 1);
  ok(api->IsTensor(v, &is), "IsTensor");
  CHECK(is == 0);
  ok(api->HasValue(v, &is), "HasValue");
  CHECK(is == 1);
  enum ONNXType type = ONNX_TYPE_UNKNOWN;
  ok(api->GetValueType(v, &type), "GetValueType");
  CHECK(type == ONNX_TYPE_SPARSETENSOR);
  if (ok(api->GetTensorTypeAndShape(v, &info), "GetTensorTypeAndShape"))
    CHECK(info_is(info, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, dense, 2));
  OrtTypeInfo* type_info = NULL;
  if (ok(api->GetTypeInfo(v, &type_info), "GetTypeInfo")) {
    const OrtTensorTypeAndShapeInfo* tinfo = NULL;
    ok(api->GetOnnxTypeFromTypeInfo(type_info, &type), "GetOnnxTypeFromTypeInfo");
    ok(api->CastTypeInfoToTensorInfo(type_info, &tinfo), "CastTypeInfoToTensorInfo");
    CHECK(type == ONNX_TYPE_SPARSETENSOR && tinfo != NULL);
    api->ReleaseTypeInfo(type_info);
  }
  void* data = NULL;
  CHECK(failed_with(api->GetTensorMutableData(v, &data), ORT_INVALID_ARGUMENT, "sparse"));
  CHECK(failed_with(api->GetTensorData(v, (const void**)&data), ORT_INVALID_ARGUMENT, "sparse"));
  size_t bytes = 0;
  CHECK(failed_with(api->GetTensorSizeInBytes(v, &bytes), ORT_INVALID_ARGUMENT, "sparse"));
  api->ReleaseValue(v);

  /* 2-D coordinates: (row, col) pairs. */
  int32_t ivalues[2] = {5, 9};
  const int64_t two[1] = {2};
  int64_t coords[4] = {0, 3, 2, 1};
  v = empty_sparse(dense, 2, ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32);
  if (!v) return;
  int64_t bad_coords[4] = {0, 3, 2, 4}; /* col 4 of 4 */
  CHECK(failed_with(api->FillSparseTensorCoo(v, cpu, two, 1, ivalues, bad_coords, 4), ORT_INVALID_ARGUMENT,
                    "out of range"));
  ok(api->FillSparseTensorCoo(v, cpu, two, 1, ivalues, coords, 4), "FillSparseTensorCoo 2-D");
  const int64_t cshape[2] = {2, 2};
  CHECK(indices_shape_is(v, ORT_SPARSE_COO_INDICES, ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64, cshape, 2));
  if (ok(api->GetSparseTensorIndices(v, ORT_SPARSE_COO_INDICES, &n, (const void**)&idx), "GetSparseTensorIndices 2-D"))
    CHECK(n == 4 && idx[0] == 0 && idx[1] == 3 && idx[2] == 2 && idx[3] == 1);
  const int32_t* gi = NULL;
  if (ok(api->GetSparseTensorValues(v, (const void**)&gi), "GetSparseTensorValues 2-D")) CHECK(gi[0] == 5 && gi[1] == 9);
  api->ReleaseValue(v);

  /* 2-D coordinates need a 2-D dense shape. */
  const int64_t dense3[3] = {2, 2, 2};
  v = empty_sparse(dense3, 3, ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32);
  if (v) {
    CHECK(failed_with(api->FillSparseTensorCoo(v, cpu, two, 1, ivalues, coords, 4), ORT_INVALID_ARGUMENT, "2-D"));
    api->ReleaseValue(v);
  }
  /* Fully sparse: no values, no indices. */
  const int64_t zero[1] = {0};
  v = empty_sparse(dense, 2, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT);
  if (v) {
    ok(api->FillSparseTensorCoo(v, cpu, zero, 1, NULL, NULL, 0), "FillSparseTensorCoo (fully sparse)");
    CHECK(format_of(v) == ORT_SPARSE_COO);
    CHECK(values_shape_is(v, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, zero, 1));
    api->ReleaseValue(v);
  }
}

static void csr(void) {
  /* [[1 0 2] [0 0 0] [0 3 0]] */
  const int64_t dense[2] = {3, 3};
  double values[3] = {1, 2, 3};
  const int64_t vshape[1] = {3};
  int64_t inner[3] = {0, 2, 1};
  int64_t outer[4] = {0, 2, 2, 3};
  OrtValue* v = empty_sparse(dense, 2, ONNX_TENSOR_ELEMENT_DATA_TYPE_DOUBLE);
  if (!v) return;
  int64_t bad_inner[3] = {0, 3, 1};
  int64_t not_monotone[4] = {0, 2, 1, 3};
  int64_t bad_end[4] = {0, 2, 2, 2};
  CHECK(failed_with(api->FillSparseTensorCsr(v, cpu, vshape, 1, values, bad_inner, 3, outer, 4), ORT_INVALID_ARGUMENT,
                    "inner"));
  CHECK(failed_with(api->FillSparseTensorCsr(v, cpu, vshape, 1, values, inner, 3, not_monotone, 4),
                    ORT_INVALID_ARGUMENT, "non-decreasing"));
  CHECK(failed_with(api->FillSparseTensorCsr(v, cpu, vshape, 1, values, inner, 3, bad_end, 4), ORT_INVALID_ARGUMENT,
                    "last"));
  CHECK(failed_with(api->FillSparseTensorCsr(v, cpu, vshape, 1, values, inner, 3, outer, 3), ORT_INVALID_ARGUMENT,
                    "rows+1"));
  CHECK(failed_with(api->FillSparseTensorCsr(v, cpu, vshape, 1, values, inner, 2, outer, 4), ORT_INVALID_ARGUMENT, NULL));
  ok(api->FillSparseTensorCsr(v, cpu, vshape, 1, values, inner, 3, outer, 4), "FillSparseTensorCsr");
  CHECK(format_of(v) == ORT_SPARSE_CSRC);
  size_t n = 0;
  const int64_t* idx = NULL;
  if (ok(api->GetSparseTensorIndices(v, ORT_SPARSE_CSR_INNER_INDICES, &n, (const void**)&idx), "inner"))
    CHECK(n == 3 && idx[0] == 0 && idx[1] == 2 && idx[2] == 1);
  if (ok(api->GetSparseTensorIndices(v, ORT_SPARSE_CSR_OUTER_INDICES, &n, (const void**)&idx), "outer"))
    CHECK(n == 4 && idx[0] == 0 && idx[1] == 2 && idx[2] == 2 && idx[3] == 3);
  const int64_t four[1] = {4};
  CHECK(indices_shape_is(v, ORT_SPARSE_CSR_OUTER_INDICES, ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64, four, 1));
  CHECK(failed_with(api->GetSparseTensorIndices(v, ORT_SPARSE_COO_INDICES, &n, (const void**)&idx), ORT_INVALID_ARGUMENT,
                    NULL));
  const double* got = NULL;
  if (ok(api->GetSparseTensorValues(v, (const void**)&got), "GetSparseTensorValues")) CHECK(got[2] == 3.0);
  api->ReleaseValue(v);
  /* CSR needs a 2-D dense shape. */
  const int64_t flat[1] = {9};
  v = empty_sparse(flat, 1, ONNX_TENSOR_ELEMENT_DATA_TYPE_DOUBLE);
  if (v) {
    CHECK(failed_with(api->FillSparseTensorCsr(v, cpu, vshape, 1, values, inner, 3, outer, 4), ORT_INVALID_ARGUMENT,
                      "2-D"));
    api->ReleaseValue(v);
  }
}

static void block_sparse(void) {
  /* A 4x4 matrix of 2x2 blocks; blocks at (0, 1) and (1, 0). */
  const int64_t dense[2] = {4, 4};
  float values[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  const int64_t vshape[3] = {2, 2, 2};
  const int64_t ishape[2] = {2, 2};
  int32_t indices[4] = {0, 1, 1, 0}; /* rows {0, 1}, cols {1, 0} */
  OrtValue* v = empty_sparse(dense, 2, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT);
  if (!v) return;
  int32_t bad[4] = {0, 2, 1, 0}; /* block row 2 of 2 */
  CHECK(failed_with(api->FillSparseTensorBlockSparse(v, cpu, vshape, 3, values, ishape, 2, bad), ORT_INVALID_ARGUMENT,
                    "out of range"));
  const int64_t bad_ishape[2] = {3, 2};
  CHECK(failed_with(api->FillSparseTensorBlockSparse(v, cpu, vshape, 3, values, bad_ishape, 2, indices),
                    ORT_INVALID_ARGUMENT, "[2, num_blocks]"));
  const int64_t flat_vshape[1] = {8};
  CHECK(failed_with(api->FillSparseTensorBlockSparse(v, cpu, flat_vshape, 1, values, ishape, 2, indices),
                    ORT_INVALID_ARGUMENT, "num_blocks"));
  ok(api->FillSparseTensorBlockSparse(v, cpu, vshape, 3, values, ishape, 2, indices), "FillSparseTensorBlockSparse");
  indices[0] = 7;
  CHECK(format_of(v) == ORT_SPARSE_BLOCK_SPARSE);
  CHECK(indices_shape_is(v, ORT_SPARSE_BLOCK_SPARSE_INDICES, ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32, ishape, 2));
  CHECK(values_shape_is(v, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, vshape, 3));
  size_t n = 0;
  const int32_t* idx = NULL;
  if (ok(api->GetSparseTensorIndices(v, ORT_SPARSE_BLOCK_SPARSE_INDICES, &n, (const void**)&idx), "block indices"))
    CHECK(n == 4 && idx[0] == 0 && idx[1] == 1 && idx[2] == 1 && idx[3] == 0);
  const float* got = NULL;
  if (ok(api->GetSparseTensorValues(v, (const void**)&got), "GetSparseTensorValues")) CHECK(got[7] == 8.0f);
  api->ReleaseValue(v);
}

static void borrowed(void) {
  const int64_t dense[2] = {2, 3};
  float values[2] = {4.0f, 5.0f};
  const int64_t vshape[1] = {2};
  OrtValue* v = NULL;
  if (!ok(api->CreateSparseTensorWithValuesAsOrtValue(cpu, values, dense, 2, vshape, 1, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT,
                                                      &v), "CreateSparseTensorWithValuesAsOrtValue"))
    return;
  CHECK(format_of(v) == ORT_SPARSE_UNDEFINED);
  /* Fill* is for values CreateSparseTensorAsOrtValue made. */
  int64_t coo_idx[2] = {0, 5};
  CHECK(failed_with(api->FillSparseTensorCoo(v, cpu, vshape, 1, values, coo_idx, 2), ORT_INVALID_ARGUMENT, NULL));
  int64_t bad_idx[2] = {0, 6};
  CHECK(failed_with(api->UseCooIndices(v, bad_idx, 2), ORT_INVALID_ARGUMENT, "out of range"));
  ok(api->UseCooIndices(v, coo_idx, 2), "UseCooIndices");
  CHECK(failed_with(api->UseCooIndices(v, coo_idx, 2), ORT_INVALID_ARGUMENT, "already"));
  values[1] = 6.0f; /* borrowed: the value reads the caller's memory */
  coo_idx[1] = 4;
  const float* got = NULL;
  if (ok(api->GetSparseTensorValues(v, (const void**)&got), "GetSparseTensorValues")) CHECK(got == values && got[1] == 6.0f);
  size_t n = 0;
  const int64_t* idx = NULL;
  if (ok(api->GetSparseTensorIndices(v, ORT_SPARSE_COO_INDICES, &n, (const void**)&idx), "indices"))
    CHECK(n == 2 && idx == coo_idx && idx[1] == 4);
  api->ReleaseValue(v);

  /* CSR, borrowed. */
  int64_t inner[2] = {1, 2};
  int64_t outer[3] = {0, 1, 2};
  if (ok(api->CreateSparseTensorWithValuesAsOrtValue(cpu, values, dense, 2, vshape, 1, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT,
                                                     &v), "CreateSparseTensorWithValuesAsOrtValue (CSR)")) {
    int64_t bad_outer[3] = {1, 1, 2};
    CHECK(failed_with(api->UseCsrIndices(v, inner, 2, bad_outer, 3), ORT_INVALID_ARGUMENT, "first"));
    ok(api->UseCsrIndices(v, inner, 2, outer, 3), "UseCsrIndices");
    CHECK(format_of(v) == ORT_SPARSE_CSRC);
    if (ok(api->GetSparseTensorIndices(v, ORT_SPARSE_CSR_OUTER_INDICES, &n, (const void**)&idx), "outer"))
      CHECK(n == 3 && idx == outer);
    api->ReleaseValue(v);
  }
  /* Block sparse, borrowed: one 1x3 block at block (1, 0) of a 2x3 matrix. */
  float block[3] = {1, 2, 3};
  const int64_t bshape[3] = {1, 1, 3};
  const int64_t ishape[2] = {2, 1};
  int32_t bidx[2] = {1, 0};
  if (ok(api->CreateSparseTensorWithValuesAsOrtValue(cpu, block, dense, 2, bshape, 3, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT,
                                                     &v), "CreateSparseTensorWithValuesAsOrtValue (block)")) {
    ok(api->UseBlockSparseIndices(v, ishape, 2, bidx), "UseBlockSparseIndices");
    const int32_t* bi = NULL;
    if (ok(api->GetSparseTensorIndices(v, ORT_SPARSE_BLOCK_SPARSE_INDICES, &n, (const void**)&bi), "block"))
      CHECK(n == 2 && bi == bidx);
    api->ReleaseValue(v);
  }
  /* Use* is for values CreateSparseTensorWithValuesAsOrtValue made. */
  OrtValue* empty = empty_sparse(dense, 2, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT);
  if (empty) {
    CHECK(failed_with(api->UseCooIndices(empty, coo_idx, 2), ORT_INVALID_ARGUMENT, "CreateSparseTensorWithValues"));
    api->ReleaseValue(empty);
  }
}

static void refusals(void) {
  const int64_t dense[1] = {4};
  const int64_t vshape[1] = {1};
  float values[1] = {1};
  int64_t idx[1] = {2};
  OrtValue* v = NULL;
  /* NULLs. */
  CHECK(failed_with(api->CreateSparseTensorAsOrtValue(NULL, dense, 1, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, &v),
                    ORT_INVALID_ARGUMENT, NULL));
  CHECK(failed_with(api->CreateSparseTensorAsOrtValue(allocator, dense, 1, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, NULL),
                    ORT_INVALID_ARGUMENT, NULL));
  CHECK(failed_with(api->FillSparseTensorCoo(NULL, cpu, vshape, 1, values, idx, 1), ORT_INVALID_ARGUMENT, NULL));
  OrtSparseFormat f;
  CHECK(failed_with(api->GetSparseTensorFormat(NULL, &f), ORT_INVALID_ARGUMENT, NULL));
  const int64_t negative[1] = {-1};
  CHECK(failed_with(api->CreateSparseTensorAsOrtValue(allocator, negative, 1, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, &v),
                    ORT_INVALID_ARGUMENT, "negative"));
  /* Strings: not supported. */
  CHECK(failed_with(api->CreateSparseTensorAsOrtValue(allocator, dense, 1, ONNX_TENSOR_ELEMENT_DATA_TYPE_STRING, &v),
                    ORT_NOT_IMPLEMENTED, "string"));
  /* Device memory. */
  OrtMemoryInfo* gpu = NULL;
  if (ok(api->CreateMemoryInfo("Cuda", OrtDeviceAllocator, 0, OrtMemTypeDefault, &gpu), "CreateMemoryInfo")) {
    CHECK(failed_with(api->CreateSparseTensorWithValuesAsOrtValue(gpu, values, dense, 1, vshape, 1,
                                                                  ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, &v),
                      ORT_NOT_IMPLEMENTED, NULL));
    v = empty_sparse(dense, 1, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT);
    if (v) {
      CHECK(failed_with(api->FillSparseTensorCoo(v, gpu, vshape, 1, values, idx, 1), ORT_NOT_IMPLEMENTED, "Cuda"));
      api->ReleaseValue(v);
    }
    api->ReleaseMemoryInfo(gpu);
  }
  /* Sparse getters on a dense tensor. */
  OrtValue* dense_value = NULL;
  if (ok(api->CreateTensorAsOrtValue(allocator, dense, 1, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, &dense_value), "dense")) {
    int is = 1;
    ok(api->IsSparseTensor(dense_value, &is), "IsSparseTensor");
    CHECK(is == 0);
    CHECK(failed_with(api->GetSparseTensorFormat(dense_value, &f), ORT_INVALID_ARGUMENT, "not a sparse tensor"));
    api->ReleaseValue(dense_value);
  }
}

/* Run and BindInput refuse a sparse feed. */
static void run_refuses(OrtEnv* env, const char* model) {
  OrtSession* session = NULL;
  OrtSessionOptions* options = NULL;
  if (!ok(api->CreateSessionOptions(&options), "CreateSessionOptions")) return;
  if (!ok(api->CreateSession(env, model, options, &session), "CreateSession")) {
    api->ReleaseSessionOptions(options);
    return;
  }
  char* input = NULL;
  char* output = NULL;
  ok(api->SessionGetInputName(session, 0, allocator, &input), "SessionGetInputName");
  ok(api->SessionGetOutputName(session, 0, allocator, &output), "SessionGetOutputName");
  const int64_t dense[2] = {2, 2};
  const int64_t vshape[1] = {1};
  float values[1] = {1};
  int64_t idx[1] = {3};
  OrtValue* v = empty_sparse(dense, 2, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT);
  if (v && input && output) {
    ok(api->FillSparseTensorCoo(v, cpu, vshape, 1, values, idx, 1), "FillSparseTensorCoo");
    const char* in_names[1] = {input};
    const char* out_names[1] = {output};
    const OrtValue* feeds[1] = {v};
    OrtValue* outs[1] = {NULL};
    CHECK(failed_with(api->Run(session, NULL, in_names, feeds, 1, out_names, 1, outs), ORT_INVALID_ARGUMENT,
                      "onyx sessions take dense tensors"));
    CHECK(outs[0] == NULL);
    OrtIoBinding* binding = NULL;
    if (ok(api->CreateIoBinding(session, &binding), "CreateIoBinding")) {
      CHECK(failed_with(api->BindInput(binding, input, v), ORT_INVALID_ARGUMENT, "sparse"));
      api->ReleaseIoBinding(binding);
    }
  }
  if (v) api->ReleaseValue(v);
  if (input) api->AllocatorFree(allocator, input);
  if (output) api->AllocatorFree(allocator, output);
  api->ReleaseSession(session);
  api->ReleaseSessionOptions(options);
}

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: c_api_sparse_test stripes.onnx\n");
    return 2;
  }
  api = OrtGetApiBase()->GetApi(ORT_API_VERSION);
  OrtEnv* env = NULL;
  if (!ok(api->CreateEnv(ORT_LOGGING_LEVEL_WARNING, "sparse", &env), "CreateEnv")) return 1;
  if (!ok(api->GetAllocatorWithDefaultOptions(&allocator), "GetAllocatorWithDefaultOptions")) return 1;
  if (!ok(api->CreateCpuMemoryInfo(OrtDeviceAllocator, OrtMemTypeDefault, &cpu), "CreateCpuMemoryInfo")) return 1;
  coo();
  csr();
  block_sparse();
  borrowed();
  refusals();
  run_refuses(env, argv[1]);
  api->ReleaseMemoryInfo(cpu);
  api->ReleaseEnv(env);
  if (failures) fprintf(stderr, "%d check(s) failed\n", failures);
  else printf("c_api_sparse_test: all checks passed\n");
  return failures ? 1 : 0;
}
