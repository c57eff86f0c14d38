// What the PythonOp and PythonOpGrad kernels (ai.onyx.torch) share: they run a custom
// torch.autograd.Function that ORTModule's export kept whole, by calling the functions of
// onyx.training.ortmodule._custom_function under the GIL. Tensors cross as numpy copies both
// ways (the Function may keep its inputs for its backward, past the run that owns them).
#pragma once
#include <string>
#include <vector>

#include "binding.h"
#include "kernels/kernel.h"

namespace onyx::python {

// "<op> of the custom torch.autograd.Function <name>" for messages, from the node's `name`
// attribute ("module.Class").
std::string python_op_label(const KernelInfo& info);

// Calls onyx.training.ortmodule._custom_function.<entry> through `call` (which builds the
// arguments and reads the result) with the GIL held. A Python exception becomes a
// RUNTIME_ERROR that starts with `what` (the op and the Function's name) and gives Python's
// message.
template <typename Call>
Status with_python(const std::string& what, const char* entry, Call&& call) {
  py::gil_scoped_acquire gil;
  try {
    py::object fn = py::module_::import("onyx.training.ortmodule._custom_function").attr(entry);
    return call(fn);
  } catch (py::error_already_set& e) {
    return Status(StatusCode::kRuntimeError, what + " raised: " + e.what());
  } catch (const std::exception& e) {
    return Status(StatusCode::kRuntimeError, what + ": " + e.what());
  }
}

// A copy of input tensor `t` as a numpy array (needs the GIL).
py::object tensor_copy_to_numpy(const Tensor& t);

// Copies `array` (what the Python side returned for output `i` of the node) into output i,
// checking it is a C-contiguous numpy array of `expected` element type (kUndefined: any
// numeric type; uint16 is taken as bfloat16 bits where bfloat16 is expected) and, when `rank`
// >= 0, of that rank. Needs the GIL.
Status copy_numpy_to_output(KernelContext& ctx, int i, py::handle array, DataType expected, int64_t rank,
                            const std::string& what);

}  // namespace onyx::python
