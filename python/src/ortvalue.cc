// OrtValue (onnxruntime.OrtValue): a value held by onyx, made from numpy without a copy or
// allocated by shape and type, read back as numpy, and exchanged through DLPack.
#include <pybind11/stl.h>

#include <algorithm>
#include <cctype>
#include <cstring>

#include "binding.h"
#include "dlpack.h"

namespace onyx::python {
namespace {

}  // namespace

DataType element_type_arg(py::handle element_type, const std::string& what) {
  if (PyLong_Check(element_type.ptr())) {
    const int code = element_type.cast<int>();
    if (!is_valid_data_type(code)) raise(OrtError::kInvalidArgument, what + ": unknown ONNX element type " + std::to_string(code));
    return DataType(code);
  }
  py::dtype dt = py::dtype::from_args(py::reinterpret_borrow<py::object>(element_type));
  const DataType t = data_type_of_numpy(dt);
  if (t == DataType::kUndefined)
    raise(OrtError::kInvalidArgument, what + ": numpy type " + py::str(dt).cast<std::string>() + " has no ONNX tensor type");
  return t;
}

namespace {

const Tensor& tensor_of(const PyOrtValue& v, const char* what) {
  if (!v.value.is_tensor())
    raise(OrtError::kInvalidArgument, std::string(what) + " needs a tensor OrtValue, this one holds " + v.value.describe());
  return v.value.tensor();
}

// `host` on `device`: itself for the CPU, else a copy in the module's provider memory, complete
// when this returns (a session may read it from another stream).
Tensor placed_on(Tensor host, const Device& device, const std::string& what) {
  if (device.is_cpu()) return host;
  ExecutionProvider& provider = device_provider(device, what);
  Result<Tensor> placed = Tensor();
  {
    py::gil_scoped_release release;
    placed = provider.copy_to_own_memory(host);
    if (placed.ok()) {
      if (Status st = provider.synchronize(); !st.ok()) placed = st;
    }
  }
  if (!placed.ok()) raise_status(placed.status(), Phase::kRun);
  return std::move(placed).value();
}

// --- DLPack export -------------------------------------------------------------------------

struct ExportContext {
  std::shared_ptr<Buffer> buffer;  // keeps the data alive while the consumer holds it
  std::vector<int64_t> shape;
  dlpack::ManagedTensor managed;
  uintptr_t consumer_stream = 1;  // device data: the stream the consumer reads it on (DLPack's numbering)
};

// Called by the consumer, maybe without the GIL. Device memory goes back to onyx's arena only
// after the consumer's stream has finished reading it.
void delete_export(dlpack::ManagedTensor* m) {
  auto* ctx = static_cast<ExportContext*>(m->manager_ctx);
  if (ctx->buffer && !ctx->buffer->device().is_cpu()) {
    Result<ExecutionProvider*> provider = find_device_provider(ctx->buffer->device());
    if (provider.ok()) (void)(*provider)->synchronize_foreign_stream(ctx->consumer_stream);
  }
  delete ctx;
}

void destroy_unconsumed_capsule(PyObject* capsule) {
  if (!PyCapsule_IsValid(capsule, dlpack::kCapsuleName)) return;  // consumed: the consumer deletes it
  auto* m = static_cast<dlpack::ManagedTensor*>(PyCapsule_GetPointer(capsule, dlpack::kCapsuleName));
  if (m && m->deleter) m->deleter(m);
}

dlpack::DataType dlpack_type_of(DataType t) {
  const uint8_t bits = uint8_t(data_type_size(t) * 8);
  switch (t) {
    case DataType::kInt8: case DataType::kInt16: case DataType::kInt32: case DataType::kInt64:
      return {dlpack::kInt, bits, 1};
    case DataType::kUInt8: case DataType::kUInt16: case DataType::kUInt32: case DataType::kUInt64:
      return {dlpack::kUInt, bits, 1};
    case DataType::kFloat16: case DataType::kFloat: case DataType::kDouble: return {dlpack::kFloat, bits, 1};
    case DataType::kBFloat16: return {dlpack::kBfloat, 16, 1};
    case DataType::kComplex64: case DataType::kComplex128: return {dlpack::kComplex, bits, 1};
    case DataType::kBool: return {dlpack::kBool, 8, 1};
    default: break;
  }
  raise(OrtError::kInvalidArgument, std::string("a ") + data_type_name(t) + " tensor cannot be shared through DLPack");
}

// `stream`: the consumer's stream for device data (DLPack's numbering; None is the legacy
// default stream, 1). The data is complete already: onyx waits for its devices before handing
// values out.
py::capsule to_dlpack(const PyOrtValue& v, py::object stream = py::none()) {
  const Tensor& t = tensor_of(v, "DLPack export");
  const dlpack::DataType dtype = dlpack_type_of(t.dtype());
  auto* ctx = new ExportContext{t.buffer(), std::vector<int64_t>(t.shape().begin(), t.shape().end()), {}, 1};
  if (!stream.is_none() && !t.device().is_cpu()) {
    const long long s = stream.cast<long long>();
    if (s > 0) ctx->consumer_stream = uintptr_t(s);
  }
  static char empty_marker;  // consumers may reject a null data pointer even for 0 elements
  dlpack::Tensor& dl = ctx->managed.dl_tensor;
  dl.data = t.raw_data() ? const_cast<void*>(t.raw_data()) : &empty_marker;
  dl.device = t.device().is_cpu() ? dlpack::Device{dlpack::kCPU, 0} : dlpack::Device{dlpack::kCUDA, t.device().index};
  dl.ndim = int32_t(ctx->shape.size());
  dl.dtype = dtype;
  dl.shape = ctx->shape.empty() ? nullptr : ctx->shape.data();
  dl.strides = nullptr;
  dl.byte_offset = 0;
  ctx->managed.manager_ctx = ctx;
  ctx->managed.deleter = delete_export;
  PyObject* capsule = PyCapsule_New(&ctx->managed, dlpack::kCapsuleName, destroy_unconsumed_capsule);
  if (!capsule) {
    delete ctx;
    throw py::error_already_set();
  }
  return py::reinterpret_steal<py::capsule>(capsule);
}

// --- DLPack import -------------------------------------------------------------------------

DataType data_type_of_dlpack(const dlpack::DataType& d, bool is_bool_tensor) {
  if (d.lanes != 1) return DataType::kUndefined;
  switch (d.code) {
    case dlpack::kInt:
      return d.bits == 8 ? DataType::kInt8 : d.bits == 16 ? DataType::kInt16 : d.bits == 32 ? DataType::kInt32
             : d.bits == 64 ? DataType::kInt64 : DataType::kUndefined;
    case dlpack::kUInt:
      if (d.bits == 8) return is_bool_tensor ? DataType::kBool : DataType::kUInt8;
      return d.bits == 16 ? DataType::kUInt16 : d.bits == 32 ? DataType::kUInt32 : d.bits == 64 ? DataType::kUInt64
             : DataType::kUndefined;
    case dlpack::kFloat:
      return d.bits == 16 ? DataType::kFloat16 : d.bits == 32 ? DataType::kFloat : d.bits == 64 ? DataType::kDouble
             : DataType::kUndefined;
    case dlpack::kBfloat: return d.bits == 16 ? DataType::kBFloat16 : DataType::kUndefined;
    case dlpack::kComplex:
      return d.bits == 64 ? DataType::kComplex64 : d.bits == 128 ? DataType::kComplex128 : DataType::kUndefined;
    case dlpack::kBool: return d.bits == 8 ? DataType::kBool : DataType::kUndefined;
    default: return DataType::kUndefined;
  }
}

void delete_imported(void* p) {
  auto* m = static_cast<dlpack::ManagedTensor*>(p);
  if (!m->deleter) return;
  PyGILState_STATE state = PyGILState_Ensure();  // producers' deleters may touch Python objects
  m->deleter(m);
  PyGILState_Release(state);
}

PyOrtValue from_dlpack(py::object data, bool is_bool_tensor) {
  py::object capsule = data;
  if (py::hasattr(data, "__dlpack__")) {
    // A CUDA producer is asked to order its work before the legacy default stream (1), which
    // the import then waits for.
    bool on_cuda = false;
    if (py::hasattr(data, "__dlpack_device__")) {
      py::tuple where = data.attr("__dlpack_device__")();
      on_cuda = where.size() >= 1 && where[0].cast<int>() == int(dlpack::kCUDA);
    }
    capsule = on_cuda ? data.attr("__dlpack__")(py::arg("stream") = 1) : data.attr("__dlpack__")();
  }
  if (!PyCapsule_IsValid(capsule.ptr(), dlpack::kCapsuleName))
    raise(OrtError::kInvalidArgument,
          "from_dlpack takes an object with __dlpack__ or an unused 'dltensor' capsule (a capsule can be consumed once)");
  auto* m = static_cast<dlpack::ManagedTensor*>(PyCapsule_GetPointer(capsule.ptr(), dlpack::kCapsuleName));
  const dlpack::Tensor& dl = m->dl_tensor;
  Device device;
  if (dl.device.device_type == dlpack::kCUDA) {
    device = device_arg("cuda", dl.device.device_id, "from_dlpack");
  } else if (dl.device.device_type != dlpack::kCPU && dl.device.device_type != dlpack::kCUDAHost) {
    raise(OrtError::kEPFail, "the DLPack tensor lives on device type " + std::to_string(dl.device.device_type) +
                                 "; onyx takes CPU (1), CUDA (2) and CUDA host (3) memory");
  }
  const DataType dtype = data_type_of_dlpack(dl.dtype, is_bool_tensor);
  if (dtype == DataType::kUndefined)
    raise(OrtError::kInvalidArgument, "DLPack element type (code " + std::to_string(dl.dtype.code) + ", " +
                                          std::to_string(dl.dtype.bits) + " bits, " + std::to_string(dl.dtype.lanes) +
                                          " lanes) has no ONNX tensor type");
  if (dl.ndim < 0 || dl.ndim > 64 || (dl.ndim > 0 && !dl.shape))
    raise(OrtError::kInvalidArgument, "DLPack tensor has an invalid rank " + std::to_string(dl.ndim));
  Shape shape(dl.shape, dl.shape + dl.ndim);
  int64_t expected_stride = 1;  // compact row-major only: the strides of size-1 dims do not matter
  for (int d = dl.ndim - 1; d >= 0; --d) {
    if (shape[size_t(d)] < 0) raise(OrtError::kInvalidArgument, "DLPack tensor has a negative dim");
    if (dl.strides && shape[size_t(d)] != 1 && dl.strides[d] != expected_stride)
      raise(OrtError::kInvalidArgument, "the DLPack tensor is not contiguous (row-major); make it contiguous first");
    expected_stride *= shape[size_t(d)];
  }
  int64_t numel = 1;
  for (int64_t d : shape) {
    if (d != 0 && numel > (int64_t(1) << 48) / d) raise(OrtError::kInvalidArgument, "DLPack tensor is too large");
    numel *= d;
  }
  if (numel > 0 && !dl.data) raise(OrtError::kInvalidArgument, "the DLPack tensor has elements but no data pointer");
  if (!device.is_cpu()) {
    // The producer ordered its writes before the default stream (a bare capsule: it is the
    // producer's promise): wait for that stream.
    ExecutionProvider& provider = device_provider(device, "from_dlpack");
    Status st;
    {
      py::gil_scoped_release release;
      st = provider.synchronize_default_stream();
    }
    if (!st.ok()) raise_status(st, Phase::kRun);
  }
  if (PyCapsule_SetName(capsule.ptr(), dlpack::kUsedCapsuleName) != 0) throw py::error_already_set();
  std::shared_ptr<void> keeper(m, delete_imported);
  void* base = static_cast<char*>(dl.data) + dl.byte_offset;
  const size_t nbytes = size_t(numel) * data_type_size(dtype);
  return PyOrtValue{
      Value(Tensor(dtype, std::move(shape), std::make_shared<Buffer>(base, nbytes, std::move(keeper), device)))};
}

}  // namespace

void register_ortvalue(py::module_& m) {
  py::class_<PyOrtValue>(m, "OrtValue",
                         "A value held by onyx (onnxruntime.OrtValue): a tensor, a sequence, a map or none. "
                         "Made from numpy without a copy (the array stays alive and shared), or allocated by "
                         "shape and type; numpy() reads it back; DLPack exchanges it without a copy.")
      .def_static(
          "ortvalue_from_numpy",
          [](py::object numpy_obj, const std::string& device_type, int device_id, int /*vendor_id*/) {
            const Device device = device_arg(device_type, device_id, "OrtValue");
            Tensor host = tensor_from_python(numpy_obj, DataType::kUndefined, "ortvalue_from_numpy");
            return PyOrtValue{Value(placed_on(std::move(host), device, "OrtValue"))};
          },
          py::arg("numpy_obj"), py::arg("device_type") = "cpu", py::arg("device_id") = 0, py::arg("vendor_id") = -1)
      .def_static(
          "ortvalue_from_numpy_with_onnx_type",
          [](py::object data, int onnx_element_type) {
            const DataType t = element_type_arg(py::int_(onnx_element_type), "OrtValue");
            return PyOrtValue{Value(tensor_from_python(data, t, "ortvalue_from_numpy_with_onnx_type"))};
          },
          py::arg("data"), py::arg("onnx_element_type"))
      .def_static(
          "ortvalue_from_shape_and_type",
          [](std::vector<int64_t> shape, py::object element_type, const std::string& device_type, int device_id,
             int /*vendor_id*/) {
            const Device device = device_arg(device_type, device_id, "OrtValue");
            const DataType dtype = element_type_arg(element_type, "OrtValue");
            if (!device.is_cpu() && dtype == DataType::kString)
              raise(OrtError::kInvalidArgument, "OrtValue: string tensors stay on the host");
            auto t = Tensor::create(dtype, shape);
            if (!t.ok()) raise_status(t.status(), Phase::kRun);
            return PyOrtValue{Value(placed_on(std::move(t).value(), device, "OrtValue"))};
          },
          py::arg("shape"), py::arg("element_type"), py::arg("device_type") = "cpu", py::arg("device_id") = 0,
          py::arg("vendor_id") = -1)
      .def_static("from_dlpack", &from_dlpack, py::arg("data"), py::arg("is_bool_tensor") = false,
                  "An OrtValue over a DLPack tensor (an object with __dlpack__, or a capsule), without a copy.")
      .def("to_dlpack", [](const PyOrtValue& v) { return to_dlpack(v); }, "A DLPack capsule over this tensor, without a copy.")
      .def(
          "__dlpack__",
          [](const PyOrtValue& v, py::args args, py::kwargs kwargs) {
            py::object stream = args.size() > 0 ? py::reinterpret_borrow<py::object>(args[0]) : py::none();
            if (kwargs.contains("stream")) stream = kwargs["stream"];
            return to_dlpack(v, stream);
          },
          "The DLPack protocol. Stream and version arguments are accepted: onyx's device values are complete "
          "when handed out (runs wait for their devices), so any consumer stream may read them.")
      .def(
          "__array__",
          [](const PyOrtValue& v, py::object dtype, py::object copy) {
            py::object arr;
            const bool host_numbers = v.value.is_tensor() && v.value.tensor().device().is_cpu() &&
                                      v.value.tensor().dtype() != DataType::kString &&
                                      !is_packed_type(v.value.tensor().dtype()) &&
                                      v.value.tensor().numel() > 0 && v.value.tensor().buffer();
            if (host_numbers) {  // a view of the tensor, which the array keeps alive
              const Tensor& t = v.value.tensor();
              std::vector<py::ssize_t> shape(t.shape().begin(), t.shape().end());
              py::capsule base(new std::shared_ptr<Buffer>(t.buffer()),
                               [](void* p) { delete static_cast<std::shared_ptr<Buffer>*>(p); });
              arr = py::array(numpy_dtype(t.dtype()), shape, {}, t.raw_data(), base);
            } else {
              arr = value_to_python(v.value, /*may_share=*/true);
            }
            if (!dtype.is_none()) arr = arr.attr("astype")(dtype, py::arg("copy") = false);
            if (!copy.is_none() && copy.cast<bool>()) arr = arr.attr("copy")();
            return arr;
          },
          py::arg("dtype") = py::none(), py::arg("copy") = py::none(),
          "numpy's array protocol: np.asarray(value) views the tensor (a copy for another dtype or copy=True).")
      .def("__dlpack_device__",
           [](const PyOrtValue& v) {
             const Device d = tensor_of(v, "__dlpack_device__").device();
             return d.is_cpu() ? py::make_tuple(int(dlpack::kCPU), 0) : py::make_tuple(int(dlpack::kCUDA), int(d.index));
           })
      .def("numpy", [](const PyOrtValue& v) { return value_to_python(v.value, true); },
           "The value as numpy (a view of the tensor's memory when nothing else holds it, else a copy); "
           "sequences as lists, maps as dicts.")
      .def("data_ptr",
           [](const PyOrtValue& v) { return reinterpret_cast<uintptr_t>(tensor_of(v, "data_ptr").raw_data()); })
      .def("device_name",
           [](const PyOrtValue& v) { return v.value.is_tensor() ? device_type_name(v.value.tensor().device()) : "cpu"; })
      .def("shape", [](const PyOrtValue& v) {
        const Shape& s = tensor_of(v, "shape").shape();
        return std::vector<int64_t>(s.begin(), s.end());
      })
      .def("data_type", [](const PyOrtValue& v) {
        switch (v.value.kind()) {
          case Value::Kind::kTensor: {
            ir::TypeInfo t;
            t.kind = ir::TypeInfo::Kind::kTensor;
            t.elem_type = v.value.tensor().dtype();
            return type_string(t);
          }
          case Value::Kind::kSequence: {
            ir::TypeInfo t;
            t.kind = ir::TypeInfo::Kind::kSequence;
            t.inner = std::make_shared<ir::TypeInfo>();
            t.inner->kind = ir::TypeInfo::Kind::kTensor;
            t.inner->elem_type = v.value.sequence_elem_type();
            return type_string(t);
          }
          case Value::Kind::kMap: {
            ir::TypeInfo t;
            t.kind = ir::TypeInfo::Kind::kMap;
            t.elem_type = v.value.map_keys().dtype();
            t.inner = std::make_shared<ir::TypeInfo>();
            t.inner->kind = ir::TypeInfo::Kind::kTensor;
            t.inner->elem_type = v.value.map_values().dtype();
            return type_string(t);
          }
          case Value::Kind::kMapSequence: {
            ir::TypeInfo t;
            t.kind = ir::TypeInfo::Kind::kSequence;
            t.inner = std::make_shared<ir::TypeInfo>();
            t.inner->kind = ir::TypeInfo::Kind::kMap;
            t.inner->elem_type = v.value.map_sequence_key_type();
            t.inner->inner = std::make_shared<ir::TypeInfo>();
            t.inner->inner->kind = ir::TypeInfo::Kind::kTensor;
            t.inner->inner->elem_type = v.value.map_sequence_value_type();
            return type_string(t);
          }
          case Value::Kind::kNone: break;
        }
        return std::string("none");
      })
      .def("element_type", [](const PyOrtValue& v) {
        return int(v.value.is_sequence() ? v.value.sequence_elem_type() : tensor_of(v, "element_type").dtype());
      }, "The ONNX TensorProto data type number of the elements (1 float, 7 int64, ...).")
      .def("tensor_size_in_bytes",
           [](const PyOrtValue& v) { return tensor_of(v, "tensor_size_in_bytes").nbytes(); },
           "The bytes the tensor's elements take (strings: their std::string objects).")
      // ONNX Runtime's Python OrtValue wraps a C-level one (its `_ortvalue`, `_get_c_value()`);
      // onyx's is both at once.
      .def_property_readonly("_ortvalue", [](py::object self) { return self; })
      .def("_get_c_value", [](py::object self) { return self; })
      .def("has_value", [](const PyOrtValue& v) { return !v.value.is_none() || v.sparse; })
      .def("is_tensor", [](const PyOrtValue& v) { return v.value.is_tensor(); })
      .def("is_sparse_tensor", [](const PyOrtValue& v) { return bool(v.sparse); })
      .def_static(
          "ort_value_from_sparse_tensor",
          [](py::object sparse_tensor) {
            if (!py::hasattr(sparse_tensor, "as_coo_view") || !py::hasattr(sparse_tensor, "dense_shape"))
              throw py::type_error("ort_value_from_sparse_tensor takes an onyx.SparseTensor");
            PyOrtValue v;
            v.sparse = std::shared_ptr<py::object>(new py::object(std::move(sparse_tensor)), [](py::object* o) {
              PyGILState_STATE state = PyGILState_Ensure();
              delete o;
              PyGILState_Release(state);
            });
            return v;
          },
          py::arg("sparse_tensor"), "An OrtValue holding a SparseTensor (not a feed: onyx runs dense tensors).")
      .def("as_sparse_tensor", [](const PyOrtValue& v) -> py::object {
        if (!v.sparse) raise(OrtError::kInvalidArgument, "as_sparse_tensor: the OrtValue does not hold a sparse tensor");
        return *v.sparse;
      })
      .def("is_tensor_sequence", [](const PyOrtValue& v) { return v.value.is_sequence(); })
      .def(
          "update_inplace",
          [](PyOrtValue& v, py::object np_arr) {
            Tensor& dst = v.value.tensor();
            tensor_of(v, "update_inplace");
            Tensor src = tensor_from_python(np_arr, dst.dtype(), "update_inplace");
            if (src.numel() != dst.numel())
              raise(OrtError::kInvalidArgument, "update_inplace: the array has " + std::to_string(src.numel()) +
                                                    " elements, the OrtValue " + std::to_string(dst.numel()));
            if (!dst.device().is_cpu()) {
              ExecutionProvider& provider = device_provider(dst.device(), "update_inplace");
              Status st;
              {
                py::gil_scoped_release release;
                st = provider.copy(src, dst);
                if (st.ok()) st = provider.synchronize();
              }
              if (!st.ok()) raise_status(st, Phase::kRun);
            } else if (dst.dtype() == DataType::kString) {
              for (int64_t i = 0; i < dst.numel(); ++i) dst.data<std::string>()[i] = src.data<std::string>()[i];
            } else if (dst.nbytes()) {
              std::memmove(dst.raw_data(), src.raw_data(), dst.nbytes());
            }
          },
          py::arg("np_arr"), "Copies the array's elements into this tensor's memory (same dtype and count).")
      .def("__repr__", [](const PyOrtValue& v) {
        const std::string where = v.value.is_tensor() ? v.value.tensor().device().to_string() : "cpu";
        return "<onyx.OrtValue " + v.value.describe() + " on " + where + ">";
      });
}

}  // namespace onyx::python
