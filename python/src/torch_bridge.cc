// Tensor crossings of the PythonOp / PythonOpGrad kernels (torch_bridge.h).
#include "torch_bridge.h"

#include <cstring>

namespace onyx::python {

std::string python_op_label(const KernelInfo& info) {
  return info.node().op_type + " of the custom torch.autograd.Function " + info.attr_string("name", "?");
}

py::object tensor_copy_to_numpy(const Tensor& t) { return value_to_python(Value(t), /*may_share=*/false); }

Status copy_numpy_to_output(KernelContext& ctx, int i, py::handle obj, DataType expected, int64_t rank,
                            const std::string& what) {
  if (!py::isinstance<py::array>(obj))
    return Status(StatusCode::kRuntimeError, what + ": output " + std::to_string(i) + " is not a tensor");
  py::array arr = py::reinterpret_borrow<py::array>(obj);
  DataType given = data_type_of_numpy(arr.dtype());
  if (given == DataType::kUInt16 && expected == DataType::kBFloat16) given = DataType::kBFloat16;  // bfloat16 bits
  if (given == DataType::kUndefined || given == DataType::kString)
    return Status(StatusCode::kRuntimeError, what + ": output " + std::to_string(i) + " has numpy dtype " +
                                                 py::str(arr.dtype()).cast<std::string>() + ", no numeric ONNX type");
  if (expected != DataType::kUndefined && given != expected)
    return Status(StatusCode::kRuntimeError, what + ": output " + std::to_string(i) + " is " + data_type_name(given) +
                                                 " where the export recorded " + data_type_name(expected));
  if (rank >= 0 && arr.ndim() != rank)
    return Status(StatusCode::kRuntimeError, what + ": output " + std::to_string(i) + " has rank " +
                                                 std::to_string(arr.ndim()) + " where the export recorded " +
                                                 std::to_string(rank));
  if (!(arr.flags() & py::array::c_style))
    return Status(StatusCode::kInternal, what + ": output " + std::to_string(i) + " is not C-contiguous");
  Shape shape(size_t(arr.ndim()));
  for (size_t d = 0; d < shape.size(); ++d) shape[d] = int64_t(arr.shape(py::ssize_t(d)));
  ONYX_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output_uninitialized(i, given, shape));
  if (out->nbytes() > 0) std::memcpy(out->raw_data(), arr.data(), out->nbytes());
  return Status::Ok();
}

}  // namespace onyx::python
