#include "session/io_binding.h"

#include <cstring>
#include <shared_mutex>

#include "session/graph_plan.h"
#include "session/run_capture.h"
#include "session/session.h"

namespace onyx {
namespace {

bool overlaps(const Tensor& a, const Tensor& b) {
  if (!a.nbytes() || !b.nbytes() || !a.raw_data() || !b.raw_data()) return false;
  const auto* a0 = static_cast<const char*>(a.raw_data());
  const auto* b0 = static_cast<const char*>(b.raw_data());
  return a0 < b0 + b.nbytes() && b0 < a0 + a.nbytes();
}

// The same elements: one buffer, offset, dtype and shape.
bool same_memory(const Tensor& a, const Tensor& b) {
  return a.raw_data() == b.raw_data() && a.dtype() == b.dtype() && a.shape() == b.shape() && a.device() == b.device();
}

bool overlaps_value(const Tensor& buffer, const Value& v) {
  if (v.is_tensor()) return overlaps(buffer, v.tensor());
  if (v.is_sequence())
    for (const Tensor& t : v.sequence_items())
      if (overlaps(buffer, t)) return true;
  if (v.is_map()) return overlaps(buffer, v.map_keys()) || overlaps(buffer, v.map_values());
  return false;
}

// Copies `produced` into the caller's `buffer`, which must have its dtype and shape; counts
// the copies made in *copies. Either may be in device memory: a provider of `session` copies.
Status copy_into(const Session& session, const std::string& name, const Value& produced, Tensor& buffer,
                 size_t* copies) {
  if (!produced.is_tensor() || produced.tensor().dtype() != buffer.dtype() ||
      produced.tensor().shape() != buffer.shape())
    return invalid_argument("output '", name, "' is bound to a buffer of ", buffer.describe(), ", but the run produced ",
                            produced.describe());
  const Tensor& t = produced.tensor();
  if (t.raw_data() == buffer.raw_data() || t.numel() == 0) return Status::Ok();
  ++*copies;
  if (!t.device().is_cpu() || !buffer.device().is_cpu()) {
    const Device& far = buffer.device().is_cpu() ? t.device() : buffer.device();
    ExecutionProvider* provider = session.provider_for(far);
    if (!provider) return invalid_argument("output '", name, "': no provider of this session reaches ", far.to_string());
    return provider->copy(t, buffer);
  }
  if (t.dtype() == DataType::kString) {
    const std::string* from = t.data<std::string>();
    std::string* to = buffer.data<std::string>();
    for (int64_t i = 0; i < t.numel(); ++i) to[i] = from[i];
  } else {
    std::memmove(buffer.raw_data(), t.raw_data(), t.nbytes());
  }
  return Status::Ok();
}

}  // namespace

Status IoBinding::bind_input(const std::string& name, Value value) {
  ONYX_ASSIGN_OR_RETURN(size_t index, session_.check_input(name, value));
  (void)index;
  for (auto& [bound, v] : inputs_)
    if (bound == name) {
      v = std::move(value);
      return Status::Ok();
    }
  inputs_.emplace_back(name, std::move(value));
  return Status::Ok();
}

Status IoBinding::bind_output(const std::string& name, Tensor buffer) {
  ONYX_ASSIGN_OR_RETURN(size_t index, session_.output_index(name));
  if (!buffer.defined()) return invalid_argument("output '", name, "': the buffer to bind is an undefined tensor");
  if (buffer.nbytes() > 0 && !buffer.raw_data()) return invalid_argument("output '", name, "': the buffer has no data");
  const ir::TypeInfo& declared = session_.outputs()[index].type;
  if (declared.kind == ir::TypeInfo::Kind::kTensor) {
    if (declared.elem_type != DataType::kUndefined && declared.elem_type != buffer.dtype())
      return invalid_argument("output '", name, "' is ", data_type_name(declared.elem_type),
                              " but the buffer bound to it is ", buffer.describe());
    if (declared.shape.has_rank) {
      bool fits = buffer.rank() == int64_t(declared.shape.dims.size());
      for (size_t d = 0; fits && d < declared.shape.dims.size(); ++d)
        if (declared.shape.dims[d].value && *declared.shape.dims[d].value != buffer.shape()[d]) fits = false;
      if (!fits)
        return invalid_argument("output '", name, "' has shape ", declared.shape.to_string(),
                                " but the buffer bound to it is ", buffer.describe());
    }
  } else if (declared.kind != ir::TypeInfo::Kind::kUnknown) {
    return invalid_argument("output '", name, "' is ", declared.to_string(),
                            ", not a tensor: bind it to a device instead of a buffer");
  }
  if (!buffer.device().is_cpu() && !session_.provider_for(buffer.device()))
    return invalid_argument("output '", name, "' is bound to memory on ", buffer.device().to_string(),
                            ", which no provider of this session uses");
  const Device device = buffer.device();
  store(BoundOutput{name, index, std::move(buffer), device});
  return Status::Ok();
}

void IoBinding::store(BoundOutput out) {
  values_.clear();
  for (auto& b : outputs_)
    if (b.name == out.name) {
      b = std::move(out);
      return;
    }
  outputs_.push_back(std::move(out));
}

Status IoBinding::bind_output(const std::string& name, Device device) {
  ONYX_ASSIGN_OR_RETURN(size_t index, session_.output_index(name));
  if (!session_.provider_for(device)) {
    std::string have;
    for (const std::string& p : session_.provider_names()) have += (have.empty() ? "" : ", ") + p;
    return invalid_argument("output '", name, "' cannot be bound to ", device.to_string(),
                            ": none of this session's providers (", have, ") is there");
  }
  store(BoundOutput{name, index, Tensor(), device});
  return Status::Ok();
}

Status Session::run(IoBinding& binding, const RunOptions& options) const {
  if (&binding.session_ != this) return invalid_argument("the IoBinding was made for another session");
  if (binding.outputs_.empty()) return invalid_argument("no outputs are bound: bind at least one before running");
  if (captures_) {
    ONYX_ASSIGN_OR_RETURN(int64_t graph_id, RunCaptures::graph_id(options));
    if (graph_id >= 0) return run_recorded(binding, options, graph_id);
  }
  return run_unrecorded(binding, options);
}

Status Session::run_unrecorded(IoBinding& binding, const RunOptions& options) const {
  std::vector<Value> values;
  size_t copies = 0;
  {
    // no recording of this session meanwhile, up to the wait for the devices
    std::shared_lock<std::shared_mutex> runs(runs_mu_);
    ONYX_RETURN_IF_ERROR(run_bound(binding, options, values, copies));
    ONYX_RETURN_IF_ERROR(synchronize_devices(options));
  }
  binding.values_ = std::move(values);
  binding.copied_ = copies;
  return Status::Ok();
}

Status Session::run_bound(const IoBinding& binding, const RunOptions& options, std::vector<Value>& values,
                          size_t& copies) const {
  ONYX_ASSIGN_OR_RETURN(std::vector<Value> inputs, gather_inputs(binding.inputs_));

  std::vector<size_t> wanted;
  std::vector<Tensor> targets(outputs().size());
  std::vector<char> on_device(outputs().size(), 0);
  for (const auto& b : binding.outputs_) {
    wanted.push_back(b.index);
    if (!b.buffer.defined() && !b.device.is_cpu()) on_device[b.index] = 1;
    if (!b.buffer.defined() || b.buffer.dtype() == DataType::kString) continue;
    // Kernels must not write a buffer that a bound input still provides, except an in-place
    // update: the output is bound to exactly the tensor fed as the one input its producing
    // kernel may write over (GraphPlan::input_overwritten_by_output).
    const int overwritable = plan_->input_overwritten_by_output(b.index);
    bool safe = true;
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (int(i) == overwritable && inputs[i].is_tensor() && same_memory(b.buffer, inputs[i].tensor())) continue;
      safe = safe && !overlaps_value(b.buffer, inputs[i]);
    }
    if (safe && !targets[b.index].defined()) targets[b.index] = b.buffer;
  }
  ONYX_ASSIGN_OR_RETURN(std::vector<Value> produced, execute(std::move(inputs), wanted, options, &targets, &on_device));

  values.assign(produced.size(), Value());
  copies = 0;
  for (size_t k = 0; k < binding.outputs_.size(); ++k) {
    const IoBinding::BoundOutput& b = binding.outputs_[k];
    if (!b.buffer.defined()) {
      // bound to a device: a value produced elsewhere (on the CPU) is moved there
      if (!b.device.is_cpu() && produced[k].is_tensor() && produced[k].tensor().device() != b.device) {
        ONYX_ASSIGN_OR_RETURN(Tensor moved, provider_for(b.device)->copy_to_own_memory(produced[k].tensor()));
        produced[k] = Value(std::move(moved));
      }
      values[k] = std::move(produced[k]);
      continue;
    }
    Tensor buffer = b.buffer;
    ONYX_RETURN_IF_ERROR(copy_into(*this, b.name, produced[k], buffer, &copies));
    values[k] = Value(std::move(buffer));
  }
  return Status::Ok();
}

Status Session::synchronize_devices(const RunOptions& options) const {
  const auto no_sync = options.config.find("disable_synchronize_execution_providers");
  if (no_sync != options.config.end() && no_sync->second == "1") return Status::Ok();
  for (const auto& provider : providers_)
    if (!provider->device().is_cpu()) ONYX_RETURN_IF_ERROR(provider->synchronize());
  return Status::Ok();
}

}  // namespace onyx
