// Values between numpy and onyx: feeds in (zero-copy where the layout allows), outputs out.
#include <complex>
#include <cstring>

#include "binding.h"
#include "core/narrow_types.h"

namespace onyx::python {
namespace {

using K = ir::TypeInfo::Kind;

py::module_& numpy() {
  static auto* np = new py::module_(py::module_::import("numpy"));  // lives as long as the process
  return *np;
}

// ONNX's element type names, as in "tensor(float)": onyx's own names but for the two
// numpy-style ones (float32, float64).
const char* onnx_type_name(DataType t) {
  if (t == DataType::kFloat) return "float";
  if (t == DataType::kDouble) return "double";
  return data_type_name(t);
}

std::string tensor_type(DataType t) { return std::string("tensor(") + onnx_type_name(t) + ")"; }

}  // namespace

namespace {

// ml_dtypes' names of the narrow types (one byte per element in numpy, packed types too).
struct NarrowNumpyName {
  DataType type;
  const char* name;
};
constexpr NarrowNumpyName kNarrowNumpyNames[] = {
    {DataType::kFloat8E4M3FN, "float8_e4m3fn"},     {DataType::kFloat8E4M3FNUZ, "float8_e4m3fnuz"},
    {DataType::kFloat8E5M2, "float8_e5m2"},         {DataType::kFloat8E5M2FNUZ, "float8_e5m2fnuz"},
    {DataType::kFloat8E8M0, "float8_e8m0fnu"},      {DataType::kFloat4E2M1, "float4_e2m1fn"},
    {DataType::kInt4, "int4"},                      {DataType::kUInt4, "uint4"},
    {DataType::kInt2, "int2"},                      {DataType::kUInt2, "uint2"},
    {DataType::kFloat6E2M3, "float6_e2m3fn"},       {DataType::kFloat6E3M2, "float6_e3m2fn"},
};

DataType narrow_type_of_numpy_name(const std::string& name) {
  for (const NarrowNumpyName& n : kNarrowNumpyNames)
    if (name == n.name) return n.type;
  return DataType::kUndefined;
}

// The ml_dtypes dtype of a narrow type, or null when ml_dtypes cannot be imported.
const py::dtype* narrow_numpy_dtype(DataType t) {
  static std::vector<py::dtype*>* table = [] {
    auto* v = new std::vector<py::dtype*>(size_t(kLastDataTypeCode) + 1, nullptr);  // lives as long as the process
    try {
      py::module_ ml = py::module_::import("ml_dtypes");
      for (const NarrowNumpyName& n : kNarrowNumpyNames)
        if (py::hasattr(ml, n.name)) (*v)[size_t(n.type)] = new py::dtype(py::dtype::from_args(ml.attr(n.name)));
    } catch (const py::error_already_set&) {
      // no ml_dtypes: narrow outputs come back as their uint8 codes
    }
    return v;
  }();
  return (*table)[size_t(t)];
}

}  // namespace

// The onyx element type of a numpy dtype; kUndefined when none fits (longdouble, records).
DataType data_type_of_numpy(const py::dtype& dt) {
  const size_t size = size_t(dt.itemsize());
  if (size == 1 && (dt.kind() == 'V' || dt.kind() == 'f'))  // ml_dtypes' float8 / int4 / float4 ...
    return narrow_type_of_numpy_name(py::str(dt.attr("name")).cast<std::string>());
  switch (dt.kind()) {
    case 'b': return DataType::kBool;
    case 'i':
      return size == 1 ? DataType::kInt8 : size == 2 ? DataType::kInt16 : size == 4 ? DataType::kInt32
             : size == 8 ? DataType::kInt64 : DataType::kUndefined;
    case 'u':
      return size == 1 ? DataType::kUInt8 : size == 2 ? DataType::kUInt16 : size == 4 ? DataType::kUInt32
             : size == 8 ? DataType::kUInt64 : DataType::kUndefined;
    case 'f':
      return size == 2 ? DataType::kFloat16 : size == 4 ? DataType::kFloat : size == 8 ? DataType::kDouble
             : DataType::kUndefined;
    case 'c': return size == 8 ? DataType::kComplex64 : size == 16 ? DataType::kComplex128 : DataType::kUndefined;
    case 'O': case 'U': case 'S': return DataType::kString;
    case 'V':  // ml_dtypes.bfloat16, when the caller has it
      return size == 2 && py::str(dt.attr("name")).cast<std::string>() == "bfloat16" ? DataType::kBFloat16
                                                                                       : DataType::kUndefined;
    default: return DataType::kUndefined;
  }
}

// The numpy dtype an output of `t` becomes. bfloat16 has no numpy type: its bit patterns
// come back as uint16 (and uint16 arrays are accepted for bfloat16 inputs). The narrow types
// come back as ml_dtypes' types where ml_dtypes is installed, else as their codes in uint8
// (one element per byte; uint8 arrays are accepted for them too).
const py::dtype& numpy_dtype(DataType t) {
  if (is_narrow_type(t)) {
    if (const py::dtype* dt = narrow_numpy_dtype(t)) return *dt;
    t = DataType::kUInt8;
  }
  static const auto* table = [] {
    auto* v = new std::vector<py::dtype>(17, py::dtype("uint8"));
    const char* names[17] = {"uint8",  "float32", "uint8",   "int8",    "uint16",    "int16",      "int32",
                             "int64",  "object",  "bool",    "float16", "float64",   "uint32",     "uint64",
                             "complex64", "complex128", "uint16"};
    for (int i = 0; i < 17; ++i) (*v)[size_t(i)] = py::dtype(names[i]);
    return v;
  }();
  return (*table)[size_t(t)];
}

namespace {

std::string utf8_of(py::handle h) {
  if (PyUnicode_Check(h.ptr())) {
    Py_ssize_t n = 0;
    if (const char* s = PyUnicode_AsUTF8AndSize(h.ptr(), &n)) return std::string(s, size_t(n));
    PyErr_Clear();  // lone surrogates: bytes that came from an output decoded with surrogateescape
    auto b = py::reinterpret_steal<py::object>(PyUnicode_AsEncodedString(h.ptr(), "utf-8", "surrogateescape"));
    if (!b) throw py::error_already_set();
    return std::string(PyBytes_AS_STRING(b.ptr()), size_t(PyBytes_GET_SIZE(b.ptr())));
  }
  if (PyBytes_Check(h.ptr())) return std::string(PyBytes_AS_STRING(h.ptr()), size_t(PyBytes_GET_SIZE(h.ptr())));
  return utf8_of(py::str(h));
}

void release_array(void* p) {
  PyGILState_STATE state = PyGILState_Ensure();
  Py_DECREF(static_cast<PyObject*>(p));
  PyGILState_Release(state);
}

}  // namespace

// `obj` as a tensor of element type `expected` (kUndefined: any).
Tensor tensor_from_python(py::handle obj, DataType expected, const std::string& name) {
  // Python lists, tuples and scalars take the declared element type, as ONNX Runtime converts
  // them (a list of floats for a float32 input is float32, not float64).
  const bool plain_python = !py::isinstance<py::array>(obj) && !py::hasattr(obj, "__array_interface__") &&
                            !py::hasattr(obj, "__array__");
  py::array arr = py::isinstance<py::array>(obj) ? py::reinterpret_borrow<py::array>(obj)
                  : plain_python && expected != DataType::kUndefined && expected != DataType::kBFloat16
                      ? py::array(numpy().attr("asarray")(obj, numpy_dtype(expected)))
                      : py::array(numpy().attr("asarray")(obj));
  py::dtype dt = arr.dtype();
  DataType given = data_type_of_numpy(dt);
  // numpy void items (fixed-size raw bytes) are strings' bytes, as ONNX Runtime reads them.
  if (given == DataType::kUndefined && dt.kind() == 'V' && (expected == DataType::kString || expected == DataType::kUndefined)) {
    Shape shape(size_t(arr.ndim()));
    for (size_t i = 0; i < shape.size(); ++i) shape[i] = int64_t(arr.shape(py::ssize_t(i)));
    Tensor t(DataType::kString, shape);
    py::list items = arr.attr("ravel")().attr("tolist")();
    std::string* out = t.data<std::string>();
    for (size_t i = 0; i < items.size(); ++i) out[i] = utf8_of(items[i]);
    return t;
  }
  if (given == DataType::kUInt16 && expected == DataType::kBFloat16) given = DataType::kBFloat16;
  if (given == DataType::kUInt8 && is_narrow_type(expected)) given = expected;  // codes, one per byte
  if (given == DataType::kUndefined)
    raise(OrtError::kInvalidArgument,
          "input '" + name + "': numpy dtype " + py::str(dt).cast<std::string>() + " has no ONNX tensor type");
  if (expected != DataType::kUndefined && given != expected)
    raise(OrtError::kInvalidArgument, "Unexpected input data type for input '" + name + "'. Actual: (" +
                                          tensor_type(given) + ") , expected: (" + tensor_type(expected) + ")");
  Shape shape(size_t(arr.ndim()));
  for (size_t i = 0; i < shape.size(); ++i) shape[i] = int64_t(arr.shape(py::ssize_t(i)));

  if (given == DataType::kString) {
    Tensor t(DataType::kString, shape);
    py::list items = arr.attr("ravel")().attr("tolist")();
    std::string* out = t.data<std::string>();
    for (size_t i = 0; i < items.size(); ++i) out[i] = utf8_of(items[i]);
    return t;
  }
  if (is_packed_type(given)) {  // numpy holds one element per byte: pack them
    arr = numpy().attr("ascontiguousarray")(arr);
    Tensor t(given, shape);
    const uint8_t* codes = static_cast<const uint8_t*>(arr.data());
    for (int64_t i = 0; i < t.numel(); ++i) set_narrow_code(t.raw_data(), given, i, codes[i]);
    return t;
  }
  const int flags = arr.flags();
  const bool native = py::detail::array_descriptor_proxy(dt.ptr())->byteorder != '>';
  if (!(flags & py::array::c_style) || !(flags & py::detail::npy_api::NPY_ARRAY_ALIGNED_) || !native)
    arr = numpy().attr("ascontiguousarray")(arr, dt.attr("newbyteorder")("="));
  void* data = const_cast<void*>(arr.data());
  const size_t nbytes = size_t(arr.nbytes());
  std::shared_ptr<void> keeper(arr.release().ptr(), release_array);
  return Tensor(given, std::move(shape), std::make_shared<Buffer>(data, nbytes, std::move(keeper)));
}

namespace {

void check_shape(const Tensor& t, const ir::TypeInfo& type, const std::string& name) {
  if (!type.shape.has_rank) return;
  const auto& dims = type.shape.dims;
  if (t.rank() != int64_t(dims.size()))
    raise(OrtError::kInvalidArgument, "Invalid rank for input: " + name + " Got: " + std::to_string(t.rank()) +
                                          " Expected: " + std::to_string(dims.size()) + " (declared " +
                                          type.shape.to_string() + ", given " + shape_to_string(t.shape()) +
                                          ") Please fix either the inputs/outputs or the model.");
  std::string bad;
  for (size_t d = 0; d < dims.size(); ++d)
    if (dims[d].value && *dims[d].value != t.shape()[d])
      bad += "\n index: " + std::to_string(d) + " Got: " + std::to_string(t.shape()[d]) +
             " Expected: " + std::to_string(*dims[d].value);
  if (!bad.empty())
    raise(OrtError::kInvalidArgument, "Got invalid dimensions for input: " + name + " for the following indices" +
                                          bad + "\n Please fix either the inputs/outputs or the model.");
}

Value from_python_as(py::handle obj, const ir::TypeInfo& type, const std::string& name) {
  switch (type.kind) {
    case K::kTensor: {
      if (py::isinstance<PyOrtValue>(obj)) {  // used as it is: no numpy round trip
        const PyOrtValue& ov = obj.cast<const PyOrtValue&>();
        if (ov.sparse)
          raise(OrtError::kNotImplemented, "input '" + name + "': a sparse tensor feed; onyx's graphs take dense "
                                           "tensors (SparseTensor.to_dense() gives one)");
        if (!ov.value.is_tensor())
          raise(OrtError::kInvalidArgument, "input '" + name + "' expects a tensor, the OrtValue holds " +
                                                ov.value.describe());
        const DataType given = ov.value.tensor().dtype();
        if (type.elem_type != DataType::kUndefined && given != type.elem_type)
          raise(OrtError::kInvalidArgument, "Unexpected input data type for input '" + name + "'. Actual: (" +
                                                tensor_type(given) + ") , expected: (" + tensor_type(type.elem_type) + ")");
        check_shape(ov.value.tensor(), type, name);
        return ov.value;
      }
      Tensor t = tensor_from_python(obj, type.elem_type, name);
      check_shape(t, type, name);
      return Value(std::move(t));
    }
    case K::kSequence: {
      if (!PyList_Check(obj.ptr()) && !PyTuple_Check(obj.ptr()))
        raise(OrtError::kInvalidArgument, "input '" + name + "' expects " + type_string(type) +
                                              " (a list of numpy arrays), got " +
                                              py::str(py::type::of(obj).attr("__name__")).cast<std::string>());
      const ir::TypeInfo* inner = type.inner.get();
      DataType elem = inner && inner->kind == K::kTensor ? inner->elem_type : DataType::kUndefined;
      std::vector<Tensor> items;
      for (py::handle item : obj) {
        items.push_back(tensor_from_python(item, elem, name));
        if (elem == DataType::kUndefined) elem = items.back().dtype();
        else if (items.back().dtype() != elem)
          raise(OrtError::kInvalidArgument, "input '" + name + "': sequence items differ in element type");
      }
      return Value::sequence(std::move(items), elem == DataType::kUndefined ? DataType::kFloat : elem);
    }
    case K::kOptional:
      if (obj.is_none()) return Value();
      if (type.inner) return from_python_as(obj, *type.inner, name);
      return from_python_as(obj, ir::TypeInfo{}, name);
    case K::kMap: {
      if (!PyDict_Check(obj.ptr()))
        raise(OrtError::kInvalidArgument, "input '" + name + "' expects " + type_string(type) + " (a dict), got " +
                                              py::str(py::type::of(obj).attr("__name__")).cast<std::string>());
      py::dict d = py::reinterpret_borrow<py::dict>(obj);
      const DataType value_type = type.inner && type.inner->kind == K::kTensor ? type.inner->elem_type
                                                                               : DataType::kUndefined;
      // Python ints and floats take the declared key and value types.
      auto column = [&](const char* part, DataType t) {
        py::list items(d.attr(part)());
        return tensor_from_python(t == DataType::kUndefined ? numpy().attr("asarray")(items)
                                                            : numpy().attr("asarray")(items, numpy_dtype(t)),
                                  t, name);
      };
      // A key that is not of the declared kind is refused as ORT refuses it: a RuntimeError
      // naming the key's Python type and the C type it cannot become.
      const bool string_keys = type.elem_type == DataType::kString;
      for (const auto& item : d) {
        const bool fits = string_keys ? py::isinstance<py::str>(item.first)
                                      : py::isinstance(item.first, numpy().attr("integer")) ||
                                            (py::isinstance<py::int_>(item.first) && !py::isinstance<py::bool_>(item.first));
        if (!fits)
          throw std::runtime_error("Unexpected key type  " + py::str(py::type::of(item.first)).cast<std::string>() +
                                   ", it cannot be linked to C type " + (string_keys ? "std::string" : "int64_t") +
                                   " (input '" + name + "', " + type_string(type) + ")");
      }
      Tensor keys = column("keys", type.elem_type);
      Tensor values = column("values", value_type);
      auto map = Value::map(std::move(keys), std::move(values));
      if (!map.ok()) raise_status(map.status(), Phase::kRun);
      return std::move(map).value();
    }
    case K::kUnknown:
      break;
  }
  if (obj.is_none()) return Value();
  if (PyList_Check(obj.ptr()) || PyTuple_Check(obj.ptr())) {
    ir::TypeInfo seq;
    seq.kind = K::kSequence;
    return from_python_as(obj, seq, name);
  }
  return Value(tensor_from_python(obj, DataType::kUndefined, name));
}

void release_buffer(void* p) { delete static_cast<std::shared_ptr<Buffer>*>(p); }

py::object tensor_to_python(const Tensor& t, bool may_share) {
  std::vector<py::ssize_t> shape(t.shape().begin(), t.shape().end());
  const py::dtype& dt = numpy_dtype(t.dtype());
  if (t.dtype() == DataType::kString) {
    py::array out(dt, shape);
    auto** cells = static_cast<PyObject**>(out.mutable_data());
    const std::string* s = t.data<std::string>();
    for (int64_t i = 0; i < t.numel(); ++i) {
      PyObject* str = PyUnicode_DecodeUTF8(s[i].data(), Py_ssize_t(s[i].size()), "surrogateescape");
      if (!str) throw py::error_already_set();
      Py_XDECREF(cells[i]);
      cells[i] = str;
    }
    return out;
  }
  // Share the buffer only when nothing else holds it: not an initializer, not a feed (an
  // output that is an input passed through), not another output.
  if (is_packed_type(t.dtype())) {  // one element per byte in numpy
    py::array out(dt, shape);
    uint8_t* codes = static_cast<uint8_t*>(out.mutable_data());
    for (int64_t i = 0; i < t.numel(); ++i) codes[i] = narrow_code_at(t.raw_data(), t.dtype(), i);
    return out;
  }
  if (may_share && t.numel() > 0 && t.buffer() && t.buffer().use_count() == 1) {
    py::capsule base(new std::shared_ptr<Buffer>(t.buffer()), release_buffer);
    return py::array(dt, shape, {}, t.raw_data(), base);
  }
  py::array out(dt, shape);
  if (t.nbytes()) std::memcpy(out.mutable_data(), t.raw_data(), t.nbytes());
  return out;
}

}  // namespace

std::string type_string(const ir::TypeInfo& type) {
  switch (type.kind) {
    case K::kTensor: return tensor_type(type.elem_type);
    case K::kSequence: return "seq(" + (type.inner ? type_string(*type.inner) : std::string("unknown")) + ")";
    case K::kOptional: return "optional(" + (type.inner ? type_string(*type.inner) : std::string("unknown")) + ")";
    case K::kMap:
      return std::string("map(") + onnx_type_name(type.elem_type) + "," +
             (type.inner ? type_string(*type.inner) : std::string("unknown")) + ")";
    case K::kUnknown: break;
  }
  return "unknown";
}

py::list shape_list(const ir::TypeInfo& declared) {
  py::list out;
  // An optional tensor has its tensor's shape, as ORT's NodeArg reports it; a sequence has none.
  const ir::TypeInfo& type = declared.kind == K::kOptional && declared.inner ? *declared.inner : declared;
  if (type.kind != K::kTensor || !type.shape.has_rank) return out;
  for (const Dim& d : type.shape.dims) {
    if (d.value) out.append(py::int_(*d.value));
    else if (!d.symbol.empty()) out.append(py::str(d.symbol));
    else out.append(py::none());
  }
  return out;
}

Tensor tensor_from_numpy(py::handle obj, const std::string& name) {
  // An OrtValue (as ONNX Runtime's add_initializer takes): its tensor, shared, not copied.
  if (py::isinstance<PyOrtValue>(obj)) {
    const Value& v = obj.cast<const PyOrtValue&>().value;
    if (!v.is_tensor()) raise(OrtError::kInvalidArgument, "initializer '" + name + "': the OrtValue is not a tensor");
    if (!v.tensor().device().is_cpu())
      raise(OrtError::kInvalidArgument, "initializer '" + name + "': the OrtValue is on " +
                                            v.tensor().device().to_string() + "; initializers are given on the host");
    return v.tensor();
  }
  return tensor_from_python(obj, DataType::kUndefined, name);
}

void init_values() {
  numpy();
  numpy_dtype(DataType::kFloat);
}

Value value_from_python(py::handle obj, const ir::ValueInfo& declared) {
  return from_python_as(obj, declared.type, declared.name);
}

py::object value_to_python(const Value& value, bool may_share) {
  switch (value.kind()) {
    case Value::Kind::kNone: return py::none();
    case Value::Kind::kTensor:
      if (!value.tensor().device().is_cpu()) return tensor_to_python(on_host(value.tensor(), "reading an output"), true);
      return tensor_to_python(value.tensor(), may_share);
    case Value::Kind::kSequence: {
      py::list out;
      for (const Tensor& t : value.sequence_items()) out.append(tensor_to_python(t, false));
      return out;
    }
    case Value::Kind::kMapSequence: {  // a list of dicts, as onnxruntime returns ZipMap's output
      py::list out;
      for (const Value& m : value.map_sequence_items()) out.append(value_to_python(m, false));
      return out;
    }
    case Value::Kind::kMap: {  // a dict, as onnxruntime returns maps
      py::dict out;
      py::list keys = tensor_to_python(value.map_keys(), false).attr("tolist")();
      py::list values = tensor_to_python(value.map_values(), false).attr("tolist")();
      for (size_t i = 0; i < keys.size(); ++i) out[keys[i]] = values[i];
      return out;
    }
  }
  return py::none();
}

}  // namespace onyx::python
