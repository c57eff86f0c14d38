// PythonOpGrad (ai.onyx.torch): the gradients of a PythonOp's inputs from the custom
// torch.autograd.Function's own backward (src/ops/python_op_grad.cc has the node's contract),
// through onyx.training.ortmodule._custom_function._run_backward(context, grads, types,
// input_indices): autograd runs back from the outputs that the PythonOp's call recorded, with
// numpy copies of the output gradients (None where none flows), and the gradients of the
// listed inputs are copied into this node's outputs. The call's context is released. CPU.
#include "torch_bridge.h"

namespace onyx::python {
namespace {

class PythonOpGradKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    label_ = python_op_label(info);
    indices_ = info.attr_ints("input_indices");
    types_ = info.attr_ints("output_types");
    ranks_ = info.attr_ints("output_ranks");
    if (info.num_inputs() < 1 || !info.has_input(0)) return invalid_model(label_, ": no context input");
    if (indices_.size() != size_t(info.num_outputs()))
      return invalid_model(label_, ": input_indices names ", indices_.size(), " inputs for ", info.num_outputs(),
                           " outputs");
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& context = ctx.input(0);
    if (context.dtype() != DataType::kInt64 || context.numel() != 1)
      return invalid_argument(label_, ": the context input must be one int64, got ", data_type_name(context.dtype()),
                              " ", shape_to_string(context.shape()));
    const int64_t id = *context.data<int64_t>();
    return with_python(label_, "_run_backward", [&](py::object& run) -> Status {
      py::list grads, types;  // types: ONNX element type numbers (numpy holds bfloat16 as uint16)
      for (int i = 1; i < ctx.num_inputs(); ++i) {
        grads.append(ctx.has_input(i) ? tensor_copy_to_numpy(ctx.input(i)) : py::object(py::none()));
        types.append(ctx.has_input(i) ? int(ctx.input(i).dtype()) : 0);
      }
      py::list indices;
      for (int64_t i : indices_) indices.append(i);
      py::list result = run(id, grads, types, indices);
      if (int(result.size()) != ctx.num_outputs())
        return Status(StatusCode::kInternal, label_ + ": " + std::to_string(result.size()) + " gradients for " +
                                                 std::to_string(ctx.num_outputs()) + " outputs");
      for (int k = 0; k < ctx.num_outputs(); ++k) {
        const DataType type = size_t(k) < types_.size() ? DataType(types_[size_t(k)]) : DataType::kUndefined;
        const int64_t rank = size_t(k) < ranks_.size() ? ranks_[size_t(k)] : -1;
        ONYX_RETURN_IF_ERROR(copy_numpy_to_output(ctx, k, result[size_t(k)], type, rank, label_));
      }
      return Status::Ok();
    });
  }

 private:
  std::string label_;
  std::vector<int64_t> indices_, types_, ranks_;
};

}  // namespace

ONYX_REGISTER_KERNEL("ai.onyx.torch", "PythonOpGrad", 1, kLatestOpset, PythonOpGradKernel);

}  // namespace onyx::python
