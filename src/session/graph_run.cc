// GraphPlan's run: one Frame of values walked through the planned steps (graph_plan.h), and
// the KernelContext members that need the plan.
#include <algorithm>
#include <cstring>

#include "core/guard.h"
#include "kernels/convert.h"
#include "ops/infer_graph.h"
#include "session/graph_plan.h"
#include "session/profiler.h"

namespace onyx {

Status RunControl::check() const {
  if (terminate && terminate->load(std::memory_order_relaxed))
    return cancelled("the run was terminated (RunOptions terminate flag set)");
  if (has_deadline && std::chrono::steady_clock::now() > deadline)
    return cancelled("the run exceeded its time limit of ", timeout_ms, " ms");
  return Status::Ok();
}

std::vector<std::pair<const ir::Node*, std::string>> GraphPlan::implementations() const {
  std::vector<std::pair<const ir::Node*, std::string>> out;
  for (const Step& step : steps_)
    if (step.kernel)
      if (std::string how = step.kernel->implementation(); !how.empty()) out.emplace_back(step.node, std::move(how));
  return out;
}

std::vector<char> GraphPlan::steps_for_outputs(const std::vector<size_t>& outputs) const {
  std::vector<char> needed_slot(slot_names_.size(), 0), active(steps_.size(), 0);
  for (size_t o : outputs)
    if (o < output_slots_.size()) needed_slot[size_t(output_slots_[o])] = 1;
  for (size_t k = steps_.size(); k-- > 0;) {  // plan order is topological: walk it backwards
    const Step& step = steps_[k];
    for (int s : step.outputs)
      if (s >= 0 && needed_slot[size_t(s)]) active[k] = 1;
    if (!active[k]) continue;
    for (int s : step.reads) needed_slot[size_t(s)] = 1;
  }
  return active;
}

Result<std::vector<Value>> GraphPlan::run(std::vector<Value> inputs, const Frame* parent,
                                          const RunExtras& extras) const {
  std::unique_ptr<Arena> own_arena;
  if (!parent && !extras.arena) own_arena = std::make_unique<Arena>();
  Frame frame(*this, parent, parent ? parent->arena : extras.arena ? extras.arena : own_arena.get(),
              parent ? parent->profile : extras.profile, parent ? parent->control : extras.control);
  if (frame.control) ONYX_RETURN_IF_ERROR(frame.control->check());
  frame.values = constants_;
  if (inputs.size() > input_slots_.size())
    return invalid_argument("graph '", graph_.name, "' takes ", input_slots_.size(), " inputs, got ", inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i)
    if (!inputs[i].is_none() || constants_[size_t(input_slots_[i])].is_none())
      frame.values[size_t(input_slots_[i])] = std::move(inputs[i]);
  for (size_t i = 0; !parent && i < host_read_inputs_.size(); ++i) {
    Value& v = frame.values[size_t(input_slots_[i])];
    if (!host_read_inputs_[i] || !v.is_tensor() || v.tensor().device().is_cpu()) continue;
    const Tensor& fed = v.tensor();
    const ExecutionProvider* via = nullptr;
    for (const auto& p : providers_)
      if (p->device() == fed.device()) via = p.get();
    if (!via)
      return invalid_argument("input '", graph_.inputs[i].name, "' is on ", fed.device().to_string(),
                              ", which no provider of this session uses");
    ONYX_ASSIGN_OR_RETURN(Tensor host, Tensor::create(fed.dtype(), fed.shape(), frame.arena, false));
    ONYX_RETURN_IF_ERROR(via->copy(fed, host).with_context("while moving input '" + graph_.inputs[i].name +
                                                           "' to the host, where a kernel reads it"));
    v = Value(std::move(host));
  }
  for (size_t i = 0; i < captured_slots_.size(); ++i) {
    const Value* v = parent ? parent->lookup(captured_names_[i]) : nullptr;
    if (!v) return runtime_error("value '", captured_names_[i], "' from an enclosing graph is not available");
    frame.values[size_t(captured_slots_[i])] = *v;
  }
  if (!parent && extras.output_targets) {
    frame.targets.assign(frame.values.size(), nullptr);
    for (size_t o = 0; o < output_slots_.size() && o < extras.output_targets->size(); ++o)
      if ((*extras.output_targets)[o].defined()) frame.targets[size_t(output_slots_[o])] = &(*extras.output_targets)[o];
  }
  const std::vector<char>* active = parent ? nullptr : extras.active_steps;
  // Outputs taken on their device: their copy steps do not run (nor free the source value).
  std::vector<char> skip_copies;
  if (!parent && extras.outputs_on_device) {
    for (size_t o = 0; o < output_copy_steps_.size() && o < extras.outputs_on_device->size(); ++o) {
      if (!(*extras.outputs_on_device)[o] || output_copy_steps_[o] < 0) continue;
      skip_copies.resize(steps_.size(), 0);
      skip_copies[size_t(output_copy_steps_[o])] = 1;
    }
  }

  std::vector<const Value*> in_ptrs;
  std::vector<Value*> out_ptrs;
  std::vector<int> donated;
  for (size_t k = 0; k < steps_.size(); ++k) {
    const Step& step = steps_[k];
    if (active && (k >= active->size() || !(*active)[k])) continue;
    if (!skip_copies.empty() && skip_copies[k]) continue;
    if (frame.control) ONYX_RETURN_IF_ERROR(frame.control->check());
    in_ptrs.clear();
    out_ptrs.clear();
    for (int s : step.inputs) in_ptrs.push_back(s >= 0 ? &frame.values[size_t(s)] : nullptr);
    for (int s : step.outputs) {
      if (s >= 0) frame.values[size_t(s)] = Value();
      out_ptrs.push_back(s >= 0 ? &frame.values[size_t(s)] : nullptr);
    }
    // An intermediate input the step may write over (Step::donations) becomes the output's
    // target when this run's arena made its block and no other value shares it.
    donated.clear();
    for (const auto& [k, j] : step.donations) {
      const int in = step.inputs[size_t(j)], out = step.outputs[size_t(k)];
      const Value& v = frame.values[size_t(in)];
      if (!v.is_tensor() || !frame.arena) continue;
      const Tensor& t = v.tensor();
      const std::shared_ptr<Buffer>& b = t.buffer();
      if (!b || b.use_count() != 1 || b->origin() != frame.arena->identity() || t.dtype() == DataType::kString)
        continue;
      if (frame.targets.empty()) frame.targets.assign(frame.values.size(), nullptr);
      if (frame.targets[size_t(out)]) continue;  // the caller bound this output
      frame.targets[size_t(out)] = &t;
      donated.push_back(out);
    }
    KernelContext ctx(in_ptrs, out_ptrs, &frame);
    ctx.set_device_allocator(step.allocator);
    Status st;
    if (!frame.profile) {  // the only cost of profiling when it is off
      st = guarded("kernel", [&] { return step.kernel->compute(ctx); });
    } else {
      const ProfileClock::time_point start = ProfileClock::now();
      st = guarded("kernel", [&] { return step.kernel->compute(ctx); });
      if (st.ok() && step.device) st = step.device->synchronize();  // the kernel's own time, not its queueing
      if (st.ok()) frame.profile->node_event(*step.node, graph_.name, start, in_ptrs, out_ptrs, step.provider);
    }
    if (st.code() == StatusCode::kNotImplemented && !step.output_kinds.empty()) {
      for (int out : donated) frame.targets[size_t(out)] = nullptr;
      donated.clear();
      if (compute_in_float32(step, in_ptrs, out_ptrs, frame).ok()) st = Status::Ok();
    }
    if (!st.ok()) {
      return std::move(st).with_context("while running node " + step.node->label() + " at opset " +
                                        std::to_string(step.opset) + (step.device ? " on " + step.provider : ""));
    }
    for (int out : donated) frame.targets[size_t(out)] = nullptr;
    if (!step.static_types.empty()) ONYX_RETURN_IF_ERROR(verify_outputs(step, frame));
    for (int s : step.release) frame.values[size_t(s)] = Value();
  }

  std::vector<Value> outputs;
  outputs.reserve(output_slots_.size());
  for (size_t o = 0; o < output_slots_.size(); ++o) {
    const bool on_device = !skip_copies.empty() && output_copy_steps_[o] >= 0 && skip_copies[size_t(output_copy_steps_[o])];
    outputs.push_back(frame.values[size_t(on_device ? output_source_slots_[o] : output_slots_[o])]);
  }
  return outputs;
}

Status GraphPlan::verify_outputs(const Step& step, const Frame& frame) const {
  for (size_t i = 0; i < step.outputs.size(); ++i) {
    const ir::TypeInfo* t = step.static_types[i];
    if (!t || step.outputs[i] < 0) continue;
    const Value& v = frame.values[size_t(step.outputs[i])];
    std::string why;
    if (v.is_tensor() && !ops::value_fits_type(*t, v.tensor().dtype(), v.tensor().shape(), &why))
      return error(StatusCode::kInternal, "output '", step.node->outputs[i], "' of node ", step.node->label(),
                   " has ", why, ": the op's static rule and its kernel disagree");
  }
  return Status::Ok();
}

const Tensor* Frame::output_target(const Value* slot) const {
  if (targets.empty() || slot < values.data() || slot >= values.data() + values.size()) return nullptr;
  return targets[size_t(slot - values.data())];
}

const Value* Frame::lookup(const std::string& name) const {
  auto it = plan_.slot_of_.find(name);
  if (it != plan_.slot_of_.end()) return &values[size_t(it->second)];
  return parent_ ? parent_->lookup(name) : nullptr;
}

Status GraphPlan::compute_in_float32(const Step& step, const std::vector<const Value*>& inputs,
                                     std::vector<Value*>& outputs, Frame& frame) const {
  for (size_t o = 0; o < outputs.size(); ++o)
    if (outputs[o] && step.output_kinds[o] == kUnknownOutput) return not_implemented("output ", o, "'s type is unknown");
  std::vector<Value> widened(inputs.size());
  std::vector<const Value*> in_ptrs(inputs.size(), nullptr);
  bool any_float16 = false;
  for (size_t i = 0; i < inputs.size(); ++i) {
    in_ptrs[i] = inputs[i];
    if (!inputs[i] || !inputs[i]->is_tensor() || inputs[i]->tensor().dtype() != DataType::kFloat16) continue;
    const Tensor& half = inputs[i]->tensor();
    ONYX_ASSIGN_OR_RETURN(Tensor wide, Tensor::create(DataType::kFloat, half.shape(), frame.arena, false));
    ONYX_RETURN_IF_ERROR(convert_elements(half, wide));
    widened[i] = Value(std::move(wide));
    in_ptrs[i] = &widened[i];
    any_float16 = true;
  }
  if (!any_float16) return not_implemented("no float16 input to widen");
  for (Value* out : outputs)
    if (out) *out = Value();
  KernelContext ctx(in_ptrs, outputs, &frame);
  ONYX_RETURN_IF_ERROR(guarded("kernel", [&] { return step.kernel->compute(ctx); }));
  for (size_t o = 0; o < outputs.size(); ++o) {
    Value* out = outputs[o];
    if (!out || step.output_kinds[o] != kFloat16Output || !out->is_tensor() ||
        out->tensor().dtype() != DataType::kFloat)
      continue;
    ONYX_ASSIGN_OR_RETURN(Tensor half, Tensor::create(DataType::kFloat16, out->tensor().shape(), frame.arena, false));
    ONYX_RETURN_IF_ERROR(convert_elements(out->tensor(), half));
    *out = Value(std::move(half));
  }
  return Status::Ok();
}

// KernelContext members that need the plan.

const Value& KernelContext::input_value(int i) const {
  static const Value kNone;
  return has_input(i) ? *inputs_[size_t(i)] : kNone;
}

const Tensor& KernelContext::input(int i) const {
  static const Tensor kUndefined;
  return has_input(i) && inputs_[size_t(i)]->is_tensor() ? inputs_[size_t(i)]->tensor() : kUndefined;
}

Result<Tensor*> KernelContext::allocate_output(int i, DataType dtype, const Shape& shape) {
  return allocate_output_filled(i, dtype, shape, true);
}

Result<Tensor*> KernelContext::allocate_output_uninitialized(int i, DataType dtype, const Shape& shape) {
  return allocate_output_filled(i, dtype, shape, false);
}

Result<Tensor*> KernelContext::allocate_output_filled(int i, DataType dtype, const Shape& shape, bool zero_fill) {
  if (i < 0) return runtime_error("kernel wrote output ", i);
  Value* slot = i < num_outputs() ? outputs_[size_t(i)] : nullptr;
  if (const Tensor* target = slot && frame_ && !device_allocator_ ? frame_->output_target(slot) : nullptr;
      target && target->dtype() == dtype && target->shape() == shape && dtype != DataType::kString &&
      target->device().is_cpu()) {
    *slot = Value(*target);  // the caller's bound buffer: written in place, nothing to copy later
    if (zero_fill && target->nbytes()) std::memset(slot->tensor().raw_data(), 0, target->nbytes());
    return &slot->tensor();
  }
  ONYX_ASSIGN_OR_RETURN(Tensor t, Tensor::create(dtype, shape, device_allocator_ ? device_allocator_
                                                                : frame_ ? frame_->arena : nullptr, zero_fill));
  if (!slot) {  // an output the node does not use: scratch, dropped after compute
    if (scratch_.size() <= size_t(i)) scratch_.resize(size_t(i) + 1);
    slot = &scratch_[size_t(i)];
  }
  *slot = Value(std::move(t));
  return &slot->tensor();
}

Result<Tensor> KernelContext::allocate_scratch(DataType dtype, const Shape& shape, bool zero_fill) const {
  return Tensor::create(dtype, shape, device_allocator_ ? device_allocator_ : frame_ ? frame_->arena : nullptr, zero_fill);
}

Status KernelContext::check_stop() const {
  return frame_ && frame_->control ? frame_->control->check() : Status::Ok();
}

void KernelContext::set_output(int i, Value value) {
  if (i >= 0 && i < num_outputs() && outputs_[size_t(i)]) *outputs_[size_t(i)] = std::move(value);
}

Result<std::vector<Value>> KernelContext::run_subgraph(const SubgraphPlan& plan, std::vector<Value> inputs) const {
  return plan.run(std::move(inputs), frame_);
}

}  // namespace onyx
