// PythonOp (ai.onyx.torch): runs a custom torch.autograd.Function that ORTModule's export kept
// whole (src/ops/python_op.cc has the node's contract), through
// onyx.training.ortmodule._custom_function._run_forward(func_key, training, inputs, types): the
// Function registered under func_key is applied to numpy copies of the inputs (with autograd
// recording when training = 1, so that PythonOpGrad can run its backward), and returns the
// context's id and the outputs, copied into this node's outputs. CPU; any numeric type.
#include "torch_bridge.h"

namespace onyx::python {
namespace {

class PythonOpKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    label_ = python_op_label(info);
    key_ = info.attr_int("func_key", -1);
    if (key_ < 0) return invalid_model(label_, ": no func_key attribute");
    training_ = info.attr_int("training", 0) != 0;
    types_ = info.attr_ints("output_types");
    ranks_ = info.attr_ints("output_ranks");
    if (info.num_outputs() < 1) return invalid_model(label_, ": no context output");
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    return with_python(label_, "_run_forward", [&](py::object& run) -> Status {
      py::list inputs, types;  // types: ONNX element type numbers (numpy holds bfloat16 as uint16)
      for (int i = 0; i < ctx.num_inputs(); ++i) {
        if (!ctx.has_input(i)) {
          inputs.append(py::none());
          types.append(0);
        } else if (!ctx.input_value(i).is_tensor()) {
          return invalid_argument(label_, ": input ", i, " is not a tensor");
        } else {
          inputs.append(tensor_copy_to_numpy(ctx.input(i)));
          types.append(int(ctx.input(i).dtype()));
        }
      }
      py::tuple result = run(key_, training_, inputs, types);
      const int64_t context = result[0].cast<int64_t>();
      py::list outputs = result[1];
      if (int(outputs.size()) != ctx.num_outputs() - 1)
        return Status(StatusCode::kRuntimeError, label_ + " returned " + std::to_string(outputs.size()) +
                                                     " tensors where the export recorded " +
                                                     std::to_string(ctx.num_outputs() - 1));
      ONYX_ASSIGN_OR_RETURN(Tensor * id, ctx.allocate_output_uninitialized(0, DataType::kInt64, {}));
      *id->data<int64_t>() = context;
      for (int k = 1; k < ctx.num_outputs(); ++k) {
        const size_t at = size_t(k - 1);
        const DataType type = at < types_.size() ? DataType(types_[at]) : DataType::kUndefined;
        const int64_t rank = at < ranks_.size() ? ranks_[at] : -1;
        ONYX_RETURN_IF_ERROR(copy_numpy_to_output(ctx, k, outputs[at], type, rank, label_));
      }
      return Status::Ok();
    });
  }

 private:
  std::string label_;
  int64_t key_ = -1;
  bool training_ = false;
  std::vector<int64_t> types_, ranks_;
};

}  // namespace

ONYX_REGISTER_KERNEL("ai.onyx.torch", "PythonOp", 1, kLatestOpset, PythonOpKernel);

}  // namespace onyx::python
