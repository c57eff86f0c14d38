// Loop: runs 'body' while (the trip count M is absent or i < M) and the condition holds.
//   body(iter_num: int64 scalar, cond_in: bool scalar, v_1..v_N) -> (cond_out, v_1..v_N, s_1..s_K)
// Inputs: M (optional), cond (optional; absent means true), v_initial (N tensors, sequences or
// optionals). Outputs: the final v_1..v_N, then each scan output s_k stacked along a new first
// axis over the iterations (empty, typed as the body declares it, after zero iterations).
// cond_out becomes the condition of the next iteration.
#include "kernels/control_flow_common.h"
#include "kernels/kernel.h"
#include "session/graph_plan.h"

namespace onyx {
namespace {

class LoopKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    ONYX_ASSIGN_OR_RETURN(body_, info.subgraph("body"));
    num_carried_ = info.num_inputs() > 2 ? info.num_inputs() - 2 : 0;
    if (body_->num_inputs() != num_carried_ + 2)
      return invalid_model("Loop: the body takes ", body_->num_inputs(), " inputs, expected ", num_carried_ + 2,
                           " (iteration number, condition and ", num_carried_, " loop-carried values)");
    if (body_->num_outputs() < num_carried_ + 1)
      return invalid_model("Loop: the body returns ", body_->num_outputs(), " outputs, expected at least ",
                           num_carried_ + 1);
    num_scan_ = body_->num_outputs() - 1 - num_carried_;
    if (info.num_outputs() > num_carried_ + num_scan_)
      return invalid_model("Loop: the node has ", info.num_outputs(), " outputs, the body gives ",
                           num_carried_ + num_scan_);
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const bool has_trip_count = ctx.has_input(0);
    int64_t trip_count = 0;
    if (has_trip_count) {
      const Value& m = ctx.input_value(0);
      if (!m.is_tensor() || m.tensor().numel() != 1 || !is_integer_type(m.tensor().dtype()))
        return invalid_argument("Loop: M must be a one-element integer tensor, got ", m.describe());
      trip_count = m.tensor().get_int64(0);
    }
    bool cond = true;
    if (ctx.has_input(1)) {
      ONYX_ASSIGN_OR_RETURN(cond, condition_value(ctx.input_value(1), "Loop: cond"));
    }

    std::vector<Value> carried;
    carried.reserve(size_t(num_carried_));
    for (int j = 0; j < num_carried_; ++j) carried.push_back(ctx.input_value(2 + j));
    std::vector<std::vector<Tensor>> scans(static_cast<size_t>(num_scan_));

    for (int64_t i = 0; (!has_trip_count || i < trip_count) && cond; ++i) {
      std::vector<Value> inputs;
      inputs.reserve(size_t(num_carried_) + 2);
      inputs.emplace_back(Tensor::scalar<int64_t>(i));
      inputs.emplace_back(Tensor::scalar<bool>(cond));
      for (Value& v : carried) inputs.push_back(std::move(v));
      Result<std::vector<Value>> run = ctx.run_subgraph(*body_, std::move(inputs));
      if (!run.ok()) return run.take_status().with_context("in Loop iteration " + std::to_string(i));
      std::vector<Value>& outs = run.value();
      ONYX_ASSIGN_OR_RETURN(cond, condition_value(outs[0], "Loop: the body's condition output"));
      for (int j = 0; j < num_carried_; ++j) carried[size_t(j)] = std::move(outs[size_t(1 + j)]);
      for (int k = 0; k < num_scan_; ++k) {
        Value& s = outs[size_t(1 + num_carried_ + k)];
        if (!s.is_tensor())
          return invalid_argument("Loop: scan output ", k, " must be a tensor, got ", s.describe());
        scans[size_t(k)].push_back(std::move(s.tensor()));
      }
    }

    for (int j = 0; j < num_carried_ && j < ctx.num_outputs(); ++j) ctx.set_output(j, std::move(carried[size_t(j)]));
    for (int k = 0; k < num_scan_ && num_carried_ + k < ctx.num_outputs(); ++k) {
      if (!ctx.output_requested(num_carried_ + k)) continue;
      const ir::TypeInfo& declared = body_->graph().outputs[size_t(1 + num_carried_ + k)].type;
      ONYX_ASSIGN_OR_RETURN(Tensor out, stack_scan_output(scans[size_t(k)], 0, declared));
      ctx.set_output(num_carried_ + k, Value(std::move(out)));
    }
    return Status::Ok();
  }

 private:
  std::shared_ptr<const SubgraphPlan> body_;
  int num_carried_ = 0;
  int num_scan_ = 0;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "Loop", 1, kLatestOpset, LoopKernel);

}  // namespace onyx
