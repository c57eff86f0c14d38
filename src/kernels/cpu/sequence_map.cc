// SequenceMap: runs 'body' once per element of the input sequence. Input 0 is a sequence of
// length n; each further input is a sequence of length n (element i is passed to run i) or a
// tensor (passed to every run). Output k is the sequence of the body's k-th output over the n
// runs (typed as the body declares it when n = 0).
#include "kernels/control_flow_common.h"
#include "kernels/kernel.h"
#include "session/graph_plan.h"

namespace onyx {
namespace {

class SequenceMapKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    ONYX_ASSIGN_OR_RETURN(body_, info.subgraph("body"));
    if (body_->num_inputs() != info.num_inputs())
      return invalid_model("SequenceMap: the body takes ", body_->num_inputs(), " inputs, the node has ",
                           info.num_inputs());
    if (body_->num_outputs() < info.num_outputs())
      return invalid_model("SequenceMap: the body returns ", body_->num_outputs(), " outputs, the node has ",
                           info.num_outputs());
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const Value& first = ctx.input_value(0);
    if (!first.is_sequence())
      return invalid_argument("SequenceMap: input 0 must be a sequence, got ", first.describe());
    const size_t n = first.sequence_items().size();
    for (int j = 1; j < ctx.num_inputs(); ++j) {
      const Value& v = ctx.input_value(j);
      if (v.is_sequence() ? v.sequence_items().size() != n : !v.is_tensor())
        return invalid_argument("SequenceMap: input ", j, " must be a tensor or a sequence of length ", n, ", got ",
                                v.describe());
    }

    const int num_outputs = ctx.num_outputs();
    std::vector<std::vector<Tensor>> results(static_cast<size_t>(num_outputs));
    for (size_t i = 0; i < n; ++i) {
      std::vector<Value> inputs;
      for (int j = 0; j < ctx.num_inputs(); ++j) {
        const Value& v = ctx.input_value(j);
        inputs.push_back(v.is_sequence() ? Value(v.sequence_items()[i]) : v);
      }
      Result<std::vector<Value>> run = ctx.run_subgraph(*body_, std::move(inputs));
      if (!run.ok()) return run.take_status().with_context("in SequenceMap element " + std::to_string(i));
      for (int k = 0; k < num_outputs; ++k) {
        Value& out = run.value()[size_t(k)];
        if (!out.is_tensor())
          return invalid_argument("SequenceMap: body output ", k, " must be a tensor, got ", out.describe());
        std::vector<Tensor>& items = results[size_t(k)];
        if (!items.empty() && items[0].dtype() != out.tensor().dtype())
          return invalid_argument("SequenceMap: body output ", k, " changes type: ", items[0].describe(), " and ",
                                  out.describe());
        items.push_back(std::move(out.tensor()));
      }
    }

    for (int k = 0; k < num_outputs; ++k) {
      std::vector<Tensor>& items = results[size_t(k)];
      DataType elem = items.empty() ? declared_tensor(body_->graph().outputs[size_t(k)].type).dtype : items[0].dtype();
      ctx.set_output(k, Value::sequence(std::move(items), elem));
    }
    return Status::Ok();
  }

 private:
  std::shared_ptr<const SubgraphPlan> body_;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "SequenceMap", 17, kLatestOpset, SequenceMapKernel);

}  // namespace onyx
