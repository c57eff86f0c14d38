// If: runs then_branch when the one-element 'cond' input is true, else_branch otherwise, and
// returns that branch's outputs (tensors, sequences or optionals; the branches may differ in
// shape). Both branches read outer-scope values through the frame.
#include "kernels/control_flow_common.h"
#include "kernels/kernel.h"
#include "session/graph_plan.h"

namespace onyx {
namespace {

class IfKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    ONYX_ASSIGN_OR_RETURN(then_, info.subgraph("then_branch"));
    ONYX_ASSIGN_OR_RETURN(else_, info.subgraph("else_branch"));
    if (then_->num_inputs() != 0 || else_->num_inputs() != 0)
      return invalid_model("If: the branches must not have inputs");
    if (then_->num_outputs() != else_->num_outputs())
      return invalid_model("If: then_branch has ", then_->num_outputs(), " outputs, else_branch ",
                           else_->num_outputs());
    if (info.num_outputs() > then_->num_outputs())
      return invalid_model("If: the node has ", info.num_outputs(), " outputs, its branches ", then_->num_outputs());
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    ONYX_ASSIGN_OR_RETURN(const bool cond, condition_value(ctx.input_value(0), "If: cond"));
    const SubgraphPlan& branch = cond ? *then_ : *else_;
    ONYX_ASSIGN_OR_RETURN(std::vector<Value> outs, ctx.run_subgraph(branch, {}));
    for (int i = 0; i < ctx.num_outputs(); ++i) ctx.set_output(i, std::move(outs[size_t(i)]));
    return Status::Ok();
  }

 private:
  std::shared_ptr<const SubgraphPlan> then_, else_;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "If", 1, kLatestOpset, IfKernel);

}  // namespace onyx
