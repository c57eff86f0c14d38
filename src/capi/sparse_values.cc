// Sparse tensors through the C API: values a caller makes, fills and reads back. onyx's graphs
// take dense tensors only (its IR has no sparse type), so these values are for the caller's own
// use; Run and BindInput refuse them (session.cc, io_binding.cc).
//
// Contracts:
// - A sparse value is an OrtValue whose `sparse` is set (capi_internal.h): its dense shape, its
//   values' element type, its format (OrtSparseFormat: 0 undefined, 1 COO, 2 CSR, 4 block
//   sparse), its values and its indices. Its `value` is none.
// - CreateSparseTensorAsOrtValue: an empty value of undefined format. The allocator must
//   describe CPU memory (else NOT_IMPLEMENTED); the copies the Fill* members make come from
//   onyx's heap, as CreateTensorAsOrtValue's do. Dims must be >= 0.
// - FillSparseTensorCoo / Csr / BlockSparse: on a value from CreateSparseTensorAsOrtValue whose
//   format is still undefined (a second fill is INVALID_ARGUMENT), copy the caller's values and
//   indices. data_mem_info must be CPU memory (else NOT_IMPLEMENTED). Nothing changes when a
//   check fails.
// - CreateSparseTensorWithValuesAsOrtValue + UseCooIndices / UseCsrIndices /
//   UseBlockSparseIndices: the values and then the indices are the caller's memory, not copied;
//   the caller keeps them alive, unchanged in layout, for as long as the value lives. The Use*
//   members apply only to such values, once.
// - Layouts checked (INVALID_ARGUMENT otherwise):
//   COO: values 1-D [nnz]; indices either nnz linear offsets into the dense shape (shape [nnz])
//   or, for a 2-D dense shape, 2*nnz (row, col) pairs (shape [nnz, 2]); each in range.
//   CSR: a 2-D dense shape [rows, cols]; values 1-D [nnz]; inner indices nnz column indices
//   < cols; outer indices rows+1 offsets, starting at 0, non-decreasing, ending at nnz. A fully
//   sparse value (nnz 0) may give 0 inner and 0 outer indices.
//   Block sparse: a 2-D dense shape; values [num_blocks, block_rows, block_cols, ...] (rank >= 3,
//   block dims > 0); indices int32 of shape [2, num_blocks]: row 0 the blocks' block-row
//   numbers, row 1 their block-column numbers, each < the dense dim divided (rounding up) by the
//   block dim. A fully sparse value gives indices shape {0} and no indices.
// - String values: NOT_IMPLEMENTED (numbers and bool only).
// - Getters: GetSparseTensorFormat always; GetSparseTensorValues(TypeAndShape) and the
//   indices getters need a defined format (INVALID_ARGUMENT otherwise); asking for indices of
//   another format (CSR inner on COO, ...) is INVALID_ARGUMENT. COO and CSR indices are int64,
//   block sparse int32. Pointers handed out stay valid while the value lives.
// - IsSparseTensor (value_extras.cc) answers 1 for these; GetValueType says
//   ONNX_TYPE_SPARSETENSOR, GetTypeInfo a sparse tensor type, GetTensorTypeAndShape the dense
//   shape and the values' type (as ORT); the dense-tensor data getters refuse them, naming
//   sparse (values.cc).
#include <cstring>
#include <limits>

#include "capi/capi_internal.h"
#include "capi/generated/api_declarations.h"

namespace onyx::capi {

struct SparseData {
  int format = ORT_SPARSE_UNDEFINED;
  DataType dtype = DataType::kUndefined;
  Shape dense;
  bool borrowed = false;  // made by CreateSparseTensorWithValuesAsOrtValue: the caller's memory
  Tensor values;          // defined once filled, or from the start when borrowed
  Tensor indices[2];      // COO: [0]; CSR: [0] inner, [1] outer; block sparse: [0]
};

OrtTensorTypeAndShapeInfo sparse_dense_info(const OrtValue& value) {
  OrtTensorTypeAndShapeInfo info;
  info.type = ONNXTensorElementDataType(int(value.sparse->dtype));
  info.dims.assign(value.sparse->dense.begin(), value.sparse->dense.end());
  info.symbols.assign(info.dims.size(), "");
  return info;
}

namespace {

OrtStatus* invalid(const char* call, const std::string& why) {
  return make_status(ORT_INVALID_ARGUMENT, std::string(call) + ": " + why);
}

// An element type sparse values may have: numbers and bool (not strings, not undefined).
OrtStatus* check_type(int type, const char* call) {
  if (type == ONNX_TENSOR_ELEMENT_DATA_TYPE_STRING)
    return make_status(ORT_NOT_IMPLEMENTED, std::string(call) + ": sparse string values are not supported by onyx");
  if (type <= ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED || type > ONNX_TENSOR_ELEMENT_DATA_TYPE_BFLOAT16 ||
      data_type_size(DataType(type)) == 0)
    return make_status(ORT_NOT_IMPLEMENTED, std::string(call) + ": element type " + std::to_string(type) +
                                                " is not supported for sparse values by onyx");
  return nullptr;
}

OrtStatus* shape_of(const int64_t* dims, size_t n, Shape& out, const char* call, const char* what) {
  if (n && !dims) return invalid(call, std::string(what) + " is null");
  out.clear();
  for (size_t i = 0; i < n; ++i) {
    if (dims[i] < 0) return invalid(call, std::string(what) + " dim " + std::to_string(i) + " is negative");
    out.push_back(dims[i]);
  }
  if (shape_size(out) < 0) return invalid(call, std::string(what) + " " + shape_to_string(out) + " is too large");
  return nullptr;
}

OrtStatus* check_cpu(const OrtMemoryInfo* info, const char* call) {
  if (!info) return invalid(call, "the memory info is null");
  if (!is_cpu_memory(*info))
    return make_status(ORT_NOT_IMPLEMENTED,
                       std::string(call) + ": memory '" + info->name + "' (onyx's sparse values are on the CPU only)");
  return nullptr;
}

// The sparse data of `value`, or INVALID_ARGUMENT naming `call`.
OrtStatus* sparse_of(const OrtValue* value, const char* call, SparseData** out) {
  if (!value) return invalid(call, "the value is null");
  if (!value->sparse) return invalid(call, "the value is " + value->value.describe() + ", not a sparse tensor");
  *out = value->sparse.get();
  return nullptr;
}

// A value that a Fill* (borrowed == false) or Use* (borrowed == true) may set up.
OrtStatus* settable(OrtValue* value, bool borrowed, const char* call, SparseData** out) {
  if (OrtStatus* st = sparse_of(value, call, out)) return st;
  if ((*out)->format != ORT_SPARSE_UNDEFINED) return invalid(call, "the sparse tensor already holds data");
  if ((*out)->borrowed != borrowed)
    return invalid(call, borrowed ? "the value was not made by CreateSparseTensorWithValuesAsOrtValue"
                                  : "the value was made by CreateSparseTensorWithValuesAsOrtValue (use the Use* members)");
  return nullptr;
}

// A tensor of `dtype` and `shape` over `data`: a copy, or the caller's memory when `borrow`.
OrtStatus* tensor_over(DataType dtype, const Shape& shape, const void* data, bool borrow, const char* call,
                       const char* what, Tensor& out) {
  const int64_t n = shape_size(shape);
  const size_t bytes = size_t(n) * data_type_size(dtype);
  if (n > 0 && !data) return invalid(call, std::string(what) + " are null");
  if (borrow) {
    auto t = Tensor::borrow(dtype, shape, const_cast<void*>(data), bytes);
    if (!t.ok()) return to_ort_status(t.status());
    out = std::move(t).value();
  } else {
    auto t = Tensor::create(dtype, shape, nullptr, false);
    if (!t.ok()) return to_ort_status(t.status());
    out = std::move(t).value();
    if (bytes) std::memcpy(out.raw_data(), data, bytes);
  }
  return nullptr;
}

int64_t nnz_of(const SparseData& s) { return s.values.numel(); }

OrtStatus* values_1d(const SparseData& s, const char* call) {
  if (s.values.rank() != 1)
    return invalid(call, "the values' shape must be 1-D [nnz], got " + shape_to_string(s.values.shape()));
  return nullptr;
}

// COO: `n` indices at `idx` for the values already in `s`; their shape in `shape`.
OrtStatus* check_coo(const SparseData& s, const int64_t* idx, size_t n, Shape& shape, const char* call) {
  if (OrtStatus* st = values_1d(s, call)) return st;
  const int64_t nnz = nnz_of(s), total = shape_size(s.dense);
  if (n && !idx) return invalid(call, "the indices are null");
  if (n == size_t(nnz)) {
    shape = {nnz};
    for (size_t i = 0; i < n; ++i)
      if (idx[i] < 0 || idx[i] >= total)
        return invalid(call, "COO index " + std::to_string(idx[i]) + " (at " + std::to_string(i) +
                                 ") is out of range for dense shape " + shape_to_string(s.dense));
    return nullptr;
  }
  if (n == 2 * size_t(nnz)) {
    if (s.dense.size() != 2)
      return invalid(call, "2-D COO indices need a 2-D dense shape, got " + shape_to_string(s.dense));
    shape = {nnz, 2};
    for (size_t i = 0; i < n; ++i)
      if (idx[i] < 0 || idx[i] >= s.dense[i % 2])
        return invalid(call, "COO coordinate " + std::to_string(idx[i]) + " (pair " + std::to_string(i / 2) +
                                 ") is out of range for dense shape " + shape_to_string(s.dense));
    return nullptr;
  }
  return invalid(call, std::to_string(n) + " COO indices for " + std::to_string(nnz) +
                           " values (need nnz linear indices or 2*nnz coordinates)");
}

OrtStatus* check_csr(const SparseData& s, const int64_t* inner, size_t inner_n, const int64_t* outer, size_t outer_n,
                     const char* call) {
  if (OrtStatus* st = values_1d(s, call)) return st;
  if (s.dense.size() != 2) return invalid(call, "CSR needs a 2-D dense shape, got " + shape_to_string(s.dense));
  const int64_t nnz = nnz_of(s), rows = s.dense[0], cols = s.dense[1];
  if (nnz == 0 && inner_n == 0 && outer_n == 0) return nullptr;  // fully sparse
  if (inner_n != size_t(nnz))
    return invalid(call, std::to_string(inner_n) + " inner indices for " + std::to_string(nnz) + " values");
  if (outer_n != size_t(rows) + 1)
    return invalid(call, std::to_string(outer_n) + " outer indices for " + std::to_string(rows) + " rows (need rows+1)");
  if ((inner_n && !inner) || !outer) return invalid(call, "the indices are null");
  for (size_t i = 0; i < inner_n; ++i)
    if (inner[i] < 0 || inner[i] >= cols)
      return invalid(call, "CSR inner index " + std::to_string(inner[i]) + " (at " + std::to_string(i) +
                               ") is out of range for " + std::to_string(cols) + " columns");
  if (outer[0] != 0) return invalid(call, "the first CSR outer index must be 0, got " + std::to_string(outer[0]));
  for (size_t r = 1; r < outer_n; ++r)
    if (outer[r] < outer[r - 1] || outer[r] > nnz)
      return invalid(call, "CSR outer indices must be non-decreasing and <= nnz; index " + std::to_string(r) + " is " +
                               std::to_string(outer[r]));
  if (outer[outer_n - 1] != nnz)
    return invalid(call, "the last CSR outer index must be nnz (" + std::to_string(nnz) + "), got " +
                             std::to_string(outer[outer_n - 1]));
  return nullptr;
}

OrtStatus* check_block(const SparseData& s, const Shape& ishape, const int32_t* idx, const char* call) {
  if (s.dense.size() != 2)
    return invalid(call, "block sparse needs a 2-D dense shape, got " + shape_to_string(s.dense));
  const int64_t count = shape_size(ishape);
  if (count == 0) {  // fully sparse
    if (s.values.numel() != 0) return invalid(call, "no block indices for non-empty values");
    return nullptr;
  }
  if (ishape.size() != 2 || ishape[0] != 2)
    return invalid(call, "block sparse indices must have shape [2, num_blocks], got " + shape_to_string(ishape));
  const Shape& vs = s.values.shape();
  if (vs.size() < 3 || vs[1] <= 0 || vs[2] <= 0)
    return invalid(call, "block sparse values must have shape [num_blocks, block_rows, block_cols, ...], got " +
                             shape_to_string(vs));
  const int64_t blocks = ishape[1];
  if (vs[0] != blocks)
    return invalid(call, std::to_string(blocks) + " block indices for values " + shape_to_string(vs));
  if (!idx) return invalid(call, "the indices are null");
  const int64_t limit[2] = {(s.dense[0] + vs[1] - 1) / vs[1], (s.dense[1] + vs[2] - 1) / vs[2]};
  for (int64_t k = 0; k < 2 * blocks; ++k) {
    const int64_t axis = k / blocks;
    if (idx[k] < 0 || idx[k] >= limit[axis])
      return invalid(call, "block " + std::string(axis ? "column " : "row ") + std::to_string(idx[k]) + " (block " +
                               std::to_string(k % blocks) + ") is out of range for " + std::to_string(limit[axis]) +
                               " blocks along dense dim " + std::to_string(axis));
  }
  return nullptr;
}

OrtStatus* set_coo(OrtValue* value, bool borrow, const int64_t* idx, size_t n, const char* call) {
  SparseData* s = nullptr;
  if (OrtStatus* st = sparse_of(value, call, &s)) return st;
  Shape shape;
  if (OrtStatus* st = check_coo(*s, idx, n, shape, call)) return st;
  if (OrtStatus* st = tensor_over(DataType::kInt64, shape, idx, borrow, call, "indices", s->indices[0])) return st;
  s->format = ORT_SPARSE_COO;
  return nullptr;
}

OrtStatus* set_csr(OrtValue* value, bool borrow, const int64_t* inner, size_t inner_n, const int64_t* outer,
                   size_t outer_n, const char* call) {
  SparseData* s = nullptr;
  if (OrtStatus* st = sparse_of(value, call, &s)) return st;
  if (OrtStatus* st = check_csr(*s, inner, inner_n, outer, outer_n, call)) return st;
  Tensor in, out;
  if (OrtStatus* st = tensor_over(DataType::kInt64, {int64_t(inner_n)}, inner, borrow, call, "inner indices", in)) return st;
  if (OrtStatus* st = tensor_over(DataType::kInt64, {int64_t(outer_n)}, outer, borrow, call, "outer indices", out)) return st;
  s->indices[0] = std::move(in);
  s->indices[1] = std::move(out);
  s->format = ORT_SPARSE_CSRC;
  return nullptr;
}

OrtStatus* set_block(OrtValue* value, bool borrow, const int64_t* ishape_data, size_t ishape_len, const int32_t* idx,
                     const char* call) {
  SparseData* s = nullptr;
  if (OrtStatus* st = sparse_of(value, call, &s)) return st;
  Shape ishape;
  if (OrtStatus* st = shape_of(ishape_data, ishape_len, ishape, call, "the indices shape")) return st;
  if (OrtStatus* st = check_block(*s, ishape, idx, call)) return st;
  if (OrtStatus* st = tensor_over(DataType::kInt32, ishape, idx, borrow, call, "indices", s->indices[0])) return st;
  s->format = ORT_SPARSE_BLOCK_SPARSE;
  return nullptr;
}

// Fill*'s common start: the value still empty, CPU memory, the values copied in (undone by
// the caller's check failing: `undo` clears them).
OrtStatus* fill_values(OrtValue* value, const OrtMemoryInfo* info, const int64_t* vshape, size_t vshape_len,
                       const void* values, const char* call) {
  SparseData* s = nullptr;
  if (OrtStatus* st = settable(value, false, call, &s)) return st;
  if (OrtStatus* st = check_cpu(info, call)) return st;
  Shape shape;
  if (OrtStatus* st = shape_of(vshape, vshape_len, shape, call, "the values shape")) return st;
  return tensor_over(s->dtype, shape, values, false, call, "values", s->values);
}

// Keeps the value empty when `st` is an error.
OrtStatus* undo_on_error(OrtValue* value, OrtStatus* st) {
  if (st && value && value->sparse && value->sparse->format == ORT_SPARSE_UNDEFINED && !value->sparse->borrowed)
    value->sparse->values = Tensor();
  return st;
}

// A defined sparse value, or INVALID_ARGUMENT.
OrtStatus* filled(const OrtValue* value, const char* call, const SparseData** out) {
  SparseData* s = nullptr;
  if (OrtStatus* st = sparse_of(value, call, &s)) return st;
  if (s->format == ORT_SPARSE_UNDEFINED) return invalid(call, "the sparse tensor holds no data yet (format undefined)");
  *out = s;
  return nullptr;
}

// The indices tensor for `format_bits` (an OrtSparseIndicesFormat as int), or INVALID_ARGUMENT.
OrtStatus* indices_for(const OrtValue* value, int format_bits, const char* call, const Tensor** out) {
  const SparseData* s = nullptr;
  if (OrtStatus* st = filled(value, call, &s)) return st;
  int needs = -1, slot = 0;
  switch (format_bits) {
    case ORT_SPARSE_COO_INDICES: needs = ORT_SPARSE_COO; break;
    case ORT_SPARSE_CSR_INNER_INDICES: needs = ORT_SPARSE_CSRC; break;
    case ORT_SPARSE_CSR_OUTER_INDICES: needs = ORT_SPARSE_CSRC, slot = 1; break;
    case ORT_SPARSE_BLOCK_SPARSE_INDICES: needs = ORT_SPARSE_BLOCK_SPARSE; break;
    default: return invalid(call, "unknown indices format " + std::to_string(format_bits));
  }
  if (needs != s->format)
    return invalid(call, "indices format " + std::to_string(format_bits) + " does not match the sparse format " +
                             std::to_string(s->format));
  *out = &s->indices[slot];
  return nullptr;
}

}  // namespace

OrtStatus* ORT_API_CALL CreateSparseTensorAsOrtValue(OrtAllocator* allocator, const int64_t* dense_shape,
                                                     size_t dense_shape_len, ONNXTensorElementDataType type,
                                                     OrtValue** out) {
  return guarded("CreateSparseTensorAsOrtValue", [&]() -> OrtStatus* {
    const char* call = "CreateSparseTensorAsOrtValue";
    ONYX_CAPI_REQUIRE(allocator, call);
    ONYX_CAPI_REQUIRE(out, call);
    int t = 0;
    std::memcpy(&t, &type, sizeof t);
    if (OrtStatus* st = check_type(t, call)) return st;
    const OrtMemoryInfo* info = allocator->Info ? allocator->Info(allocator) : nullptr;
    if (OrtStatus* st = check_cpu(info, call)) return st;
    auto s = std::make_shared<SparseData>();
    s->dtype = DataType(t);
    if (OrtStatus* st = shape_of(dense_shape, dense_shape_len, s->dense, call, "the dense shape")) return st;
    *out = new OrtValue{Value(), std::move(s)};
    return nullptr;
  });
}

OrtStatus* ORT_API_CALL FillSparseTensorCoo(OrtValue* ort_value, const OrtMemoryInfo* data_mem_info,
                                            const int64_t* values_shape, size_t values_shape_len, const void* values,
                                            const int64_t* indices_data, size_t indices_num) {
  return guarded("FillSparseTensorCoo", [&]() -> OrtStatus* {
    const char* call = "FillSparseTensorCoo";
    if (OrtStatus* st = fill_values(ort_value, data_mem_info, values_shape, values_shape_len, values, call))
      return undo_on_error(ort_value, st);
    return undo_on_error(ort_value, set_coo(ort_value, false, indices_data, indices_num, call));
  });
}

OrtStatus* ORT_API_CALL FillSparseTensorCsr(OrtValue* ort_value, const OrtMemoryInfo* data_mem_info,
                                            const int64_t* values_shape, size_t values_shape_len, const void* values,
                                            const int64_t* inner_indices_data, size_t inner_indices_num,
                                            const int64_t* outer_indices_data, size_t outer_indices_num) {
  return guarded("FillSparseTensorCsr", [&]() -> OrtStatus* {
    const char* call = "FillSparseTensorCsr";
    if (OrtStatus* st = fill_values(ort_value, data_mem_info, values_shape, values_shape_len, values, call))
      return undo_on_error(ort_value, st);
    return undo_on_error(ort_value, set_csr(ort_value, false, inner_indices_data, inner_indices_num,
                                            outer_indices_data, outer_indices_num, call));
  });
}

OrtStatus* ORT_API_CALL FillSparseTensorBlockSparse(OrtValue* ort_value, const OrtMemoryInfo* data_mem_info,
                                                    const int64_t* values_shape, size_t values_shape_len,
                                                    const void* values, const int64_t* indices_shape_data,
                                                    size_t indices_shape_len, const int32_t* indices_data) {
  return guarded("FillSparseTensorBlockSparse", [&]() -> OrtStatus* {
    const char* call = "FillSparseTensorBlockSparse";
    if (OrtStatus* st = fill_values(ort_value, data_mem_info, values_shape, values_shape_len, values, call))
      return undo_on_error(ort_value, st);
    return undo_on_error(ort_value,
                         set_block(ort_value, false, indices_shape_data, indices_shape_len, indices_data, call));
  });
}

OrtStatus* ORT_API_CALL CreateSparseTensorWithValuesAsOrtValue(const OrtMemoryInfo* info, void* p_data,
                                                               const int64_t* dense_shape, size_t dense_shape_len,
                                                               const int64_t* values_shape, size_t values_shape_len,
                                                               ONNXTensorElementDataType type, OrtValue** out) {
  return guarded("CreateSparseTensorWithValuesAsOrtValue", [&]() -> OrtStatus* {
    const char* call = "CreateSparseTensorWithValuesAsOrtValue";
    ONYX_CAPI_REQUIRE(out, call);
    if (OrtStatus* st = check_cpu(info, call)) return st;
    int t = 0;
    std::memcpy(&t, &type, sizeof t);
    if (OrtStatus* st = check_type(t, call)) return st;
    auto s = std::make_shared<SparseData>();
    s->dtype = DataType(t);
    s->borrowed = true;
    if (OrtStatus* st = shape_of(dense_shape, dense_shape_len, s->dense, call, "the dense shape")) return st;
    Shape vshape;
    if (OrtStatus* st = shape_of(values_shape, values_shape_len, vshape, call, "the values shape")) return st;
    if (OrtStatus* st = tensor_over(s->dtype, vshape, p_data, true, call, "values", s->values)) return st;
    *out = new OrtValue{Value(), std::move(s)};
    return nullptr;
  });
}

OrtStatus* ORT_API_CALL UseCooIndices(OrtValue* ort_value, int64_t* indices_data, size_t indices_num) {
  return guarded("UseCooIndices", [&]() -> OrtStatus* {
    SparseData* s = nullptr;
    if (OrtStatus* st = settable(ort_value, true, "UseCooIndices", &s)) return st;
    return set_coo(ort_value, true, indices_data, indices_num, "UseCooIndices");
  });
}

OrtStatus* ORT_API_CALL UseCsrIndices(OrtValue* ort_value, int64_t* inner_data, size_t inner_num, int64_t* outer_data,
                                      size_t outer_num) {
  return guarded("UseCsrIndices", [&]() -> OrtStatus* {
    SparseData* s = nullptr;
    if (OrtStatus* st = settable(ort_value, true, "UseCsrIndices", &s)) return st;
    return set_csr(ort_value, true, inner_data, inner_num, outer_data, outer_num, "UseCsrIndices");
  });
}

OrtStatus* ORT_API_CALL UseBlockSparseIndices(OrtValue* ort_value, const int64_t* indices_shape,
                                              size_t indices_shape_len, int32_t* indices_data) {
  return guarded("UseBlockSparseIndices", [&]() -> OrtStatus* {
    SparseData* s = nullptr;
    if (OrtStatus* st = settable(ort_value, true, "UseBlockSparseIndices", &s)) return st;
    return set_block(ort_value, true, indices_shape, indices_shape_len, indices_data, "UseBlockSparseIndices");
  });
}

OrtStatus* ORT_API_CALL GetSparseTensorFormat(const OrtValue* ort_value, enum OrtSparseFormat* out) {
  return guarded("GetSparseTensorFormat", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(out, "GetSparseTensorFormat");
    SparseData* s = nullptr;
    if (OrtStatus* st = sparse_of(ort_value, "GetSparseTensorFormat", &s)) return st;
    *out = OrtSparseFormat(s->format);
    return nullptr;
  });
}

OrtStatus* ORT_API_CALL GetSparseTensorValuesTypeAndShape(const OrtValue* ort_value, OrtTensorTypeAndShapeInfo** out) {
  return guarded("GetSparseTensorValuesTypeAndShape", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(out, "GetSparseTensorValuesTypeAndShape");
    const SparseData* s = nullptr;
    if (OrtStatus* st = filled(ort_value, "GetSparseTensorValuesTypeAndShape", &s)) return st;
    *out = new OrtTensorTypeAndShapeInfo(tensor_info_of(s->values));
    return nullptr;
  });
}

OrtStatus* ORT_API_CALL GetSparseTensorValues(const OrtValue* ort_value, const void** out) {
  return guarded("GetSparseTensorValues", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(out, "GetSparseTensorValues");
    const SparseData* s = nullptr;
    if (OrtStatus* st = filled(ort_value, "GetSparseTensorValues", &s)) return st;
    *out = s->values.raw_data();
    return nullptr;
  });
}

OrtStatus* ORT_API_CALL GetSparseTensorIndicesTypeShape(const OrtValue* ort_value,
                                                        enum OrtSparseIndicesFormat indices_format,
                                                        OrtTensorTypeAndShapeInfo** out) {
  return guarded("GetSparseTensorIndicesTypeShape", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(out, "GetSparseTensorIndicesTypeShape");
    int format = 0;
    std::memcpy(&format, &indices_format, sizeof format);
    const Tensor* t = nullptr;
    if (OrtStatus* st = indices_for(ort_value, format, "GetSparseTensorIndicesTypeShape", &t)) return st;
    *out = new OrtTensorTypeAndShapeInfo(tensor_info_of(*t));
    return nullptr;
  });
}

OrtStatus* ORT_API_CALL GetSparseTensorIndices(const OrtValue* ort_value, enum OrtSparseIndicesFormat indices_format,
                                               size_t* num_indices, const void** indices) {
  return guarded("GetSparseTensorIndices", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(num_indices, "GetSparseTensorIndices");
    ONYX_CAPI_REQUIRE(indices, "GetSparseTensorIndices");
    int format = 0;
    std::memcpy(&format, &indices_format, sizeof format);
    const Tensor* t = nullptr;
    if (OrtStatus* st = indices_for(ort_value, format, "GetSparseTensorIndices", &t)) return st;
    *num_indices = size_t(t->numel());
    *indices = t->raw_data();
    return nullptr;
  });
}

}  // namespace onyx::capi
