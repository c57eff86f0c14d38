#include "training/module.h"

#include <cstring>
#include <set>

#include "onnx/loader.h"
#include "onnx/writer.h"
#include "session/io_binding.h"
#include "training/graph_reads.h"

namespace onyx::training {
namespace {

constexpr const char* kGradBuffer = "_grad.accumulation.buffer";
constexpr const char* kGradOut = "_grad.accumulation.out";
constexpr const char* kUpdated = ".updated";
constexpr const char* kResetInput = "lazy_reset_grad";

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string strip(const std::string& s, const std::string& suffix) { return s.substr(0, s.size() - suffix.size()); }

// Whether `t` fits the declared type of `input`: dtype, rank and the fixed dims.
bool fits(const Tensor& t, const ir::ValueInfo& input) {
  if (input.type.kind != ir::TypeInfo::Kind::kTensor) return true;
  if (input.type.elem_type != DataType::kUndefined && input.type.elem_type != t.dtype()) return false;
  const SymbolicShape& s = input.type.shape;
  if (!s.has_rank) return true;
  if (s.dims.size() != t.shape().size()) return false;
  for (size_t i = 0; i < s.dims.size(); ++i)
    if (s.dims[i].value && *s.dims[i].value != t.shape()[i]) return false;
  return true;
}

Result<std::vector<Value>> run_bound(const Session& session, IoBinding& binding, size_t keep) {
  ONYX_RETURN_IF_ERROR(session.run(binding));
  std::vector<Value> out(binding.outputs().begin(), binding.outputs().begin() + std::ptrdiff_t(keep));
  return out;
}

}  // namespace

Result<std::unique_ptr<Module>> Module::create(const std::string& training_model_path,
                                               std::shared_ptr<CheckpointState> state,
                                               const std::string& eval_model_path, const SessionOptions& options) {
  if (!state) return invalid_argument("Module: no checkpoint state");
  for (const auto& [provider, _] : options.providers)
    if (provider != "CPU" && provider != "CPUExecutionProvider")
      return not_implemented("Module on ", provider, ": training runs on the CPU in this release");
  std::unique_ptr<Module> m(new Module());
  m->state_ = std::move(state);
  m->options_ = options;
  // Gradients reach denormal values (softmax tails over a large vocabulary), where x86
  // arithmetic slows down a hundredfold: training flushes them to zero.
  m->options_.denormal_as_zero = true;
  CheckpointState& st = *m->state_;
  ONYX_ASSIGN_OR_RETURN(m->train_, Session::load_file(training_model_path, m->options_));
  bool has_reset = false;
  for (const ir::ValueInfo& in : m->train_->inputs()) {
    const std::string& n = in.name;
    if (n == kResetInput) {
      has_reset = true;
    } else if (ends_with(n, kGradBuffer)) {
      const std::string p = strip(n, kGradBuffer);
      if (!st.find(p))
        return invalid_argument("Module: the training model trains '", p, "', which the checkpoint does not hold");
      m->trainable_.push_back(p);
    } else if (const TrainingParameter* p = st.find(n)) {
      if (!fits(p->data, in))
        return invalid_argument("Module: parameter '", n, "' in the checkpoint has shape and type ", p->data.describe(),
                                ", the training model takes ", in.type.to_string(),
                                " (the checkpoint is of another model)");
      m->fed_parameters_.push_back(n);
    } else {
      m->train_inputs_.push_back(n);
    }
  }
  if (!has_reset)
    return invalid_argument("Module: '", training_model_path,
                            "' is not a training model (no lazy_reset_grad input; generate_artifacts writes one)");
  for (const ir::ValueInfo& out : m->train_->outputs()) {
    if (ends_with(out.name, kGradOut)) continue;
    if (ends_with(out.name, kUpdated) && st.find(strip(out.name, kUpdated))) {
      m->updated_.push_back(out.name);
      continue;
    }
    m->outputs_.push_back(out.name);
  }
  for (const std::string& p : m->trainable_) {  // zeros until a step accumulates into them, as in ONNX Runtime
    TrainingParameter* param = st.find(p);
    if (!param->grad.defined() || param->grad.shape() != param->data.shape() ||
        param->grad.dtype() != param->data.dtype()) {
      ONYX_ASSIGN_OR_RETURN(param->grad, Tensor::create(param->data.dtype(), param->data.shape()));
    }
  }
  if (!eval_model_path.empty()) {
    ONYX_ASSIGN_OR_RETURN(m->eval_model_, onnx_format::load_model_file(eval_model_path));
    ONYX_ASSIGN_OR_RETURN(m->eval_, Session::from_loaded_model(m->eval_model_, m->options_));
    for (const ir::ValueInfo& in : m->eval_->inputs()) {
      if (const TrainingParameter* p = st.find(in.name)) {
        if (!fits(p->data, in))
          return invalid_argument("Module: parameter '", in.name, "' in the checkpoint has shape and type ",
                                  p->data.describe(), ", the eval model takes ", in.type.to_string());
        m->eval_parameters_.push_back(in.name);
      } else {
        m->eval_inputs_.push_back(in.name);
      }
    }
  }
  return m;
}

Status Module::check_loaded() const {
  if (state_->nominal)
    return runtime_error("Please load the model parameters first. (The checkpoint is nominal: names and shapes only; "
                         "copy_buffer_to_parameters(buffer, trainable_only=false) loads the values.)");
  return Status::Ok();
}

Result<std::vector<Value>> Module::train_step(const std::vector<Value>& inputs) {
  ONYX_RETURN_IF_ERROR(check_loaded());
  if (inputs.size() != train_inputs_.size()) {
    std::string names;
    for (const std::string& n : train_inputs_) names += (names.empty() ? "" : ", ") + n;
    return invalid_argument("Module takes ", train_inputs_.size(), " inputs (", names, "), got ", inputs.size());
  }
  IoBinding binding(*train_);
  for (size_t i = 0; i < inputs.size(); ++i) ONYX_RETURN_IF_ERROR(binding.bind_input(train_inputs_[i], inputs[i]));
  for (const std::string& p : fed_parameters_) ONYX_RETURN_IF_ERROR(binding.bind_input(p, Value(state_->find(p)->data)));
  for (const std::string& p : trainable_)
    ONYX_RETURN_IF_ERROR(binding.bind_input(p + kGradBuffer, Value(state_->find(p)->grad)));
  ONYX_RETURN_IF_ERROR(binding.bind_input(kResetInput, Value(Tensor::scalar<bool>(reset_grad_))));
  for (const std::string& o : outputs_) ONYX_RETURN_IF_ERROR(binding.bind_output(o));
  // The gradients accumulate in place into the state's gradient tensors (GradAccumulate may
  // write over its buffer input; after a reset the new gradient is copied in once), memory
  // that lives across steps, so a step touches no fresh pages for them. The new running
  // statistics go into the state's tensors too (copied in after the run: they overlap inputs).
  for (const std::string& p : trainable_) ONYX_RETURN_IF_ERROR(binding.bind_output(p + kGradOut, state_->find(p)->grad));
  for (const std::string& u : updated_)
    ONYX_RETURN_IF_ERROR(binding.bind_output(u, state_->find(strip(u, kUpdated))->data));
  ONYX_ASSIGN_OR_RETURN(std::vector<Value> out, run_bound(*train_, binding, outputs_.size()));
  reset_grad_ = false;
  return out;
}

Result<std::vector<Value>> Module::eval_step(const std::vector<Value>& inputs) const {
  if (!eval_) return runtime_error("Module: eval mode needs the eval model, and none was given");
  ONYX_RETURN_IF_ERROR(check_loaded());
  if (inputs.size() != eval_inputs_.size())
    return invalid_argument("the eval model takes ", eval_inputs_.size(), " inputs, got ", inputs.size());
  std::vector<std::pair<std::string, Value>> feeds;
  for (size_t i = 0; i < inputs.size(); ++i) feeds.emplace_back(eval_inputs_[i], inputs[i]);
  for (const std::string& p : eval_parameters_) feeds.emplace_back(p, Value(state_->find(p)->data));
  return eval_->run(feeds);
}

std::vector<ir::ValueInfo> Module::input_infos(bool training) const {
  std::vector<ir::ValueInfo> out;
  const Session* session = training ? train_.get() : eval_.get();
  if (!session) return out;
  for (const std::string& name : input_names(training))
    for (const ir::ValueInfo& in : session->inputs())
      if (in.name == name) out.push_back(in);
  return out;
}

int64_t Module::parameters_size(bool trainable_only) const {
  int64_t n = 0;
  for (const TrainingParameter& p : state_->parameters)
    if (p.requires_grad || !trainable_only) n += p.data.numel();
  return n;
}

Result<Tensor> Module::contiguous_parameters(bool trainable_only) const {
  ONYX_RETURN_IF_ERROR(check_loaded());
  ONYX_ASSIGN_OR_RETURN(Tensor flat, Tensor::create(DataType::kFloat, {parameters_size(trainable_only)}));
  size_t at = 0;
  for (const TrainingParameter& p : state_->parameters) {
    if (!p.requires_grad && trainable_only) continue;
    if (p.data.dtype() != DataType::kFloat)
      return not_implemented("contiguous parameters: '", p.name, "' is ", data_type_name(p.data.dtype()),
                             " (float32 parameters only)");
    std::memcpy(flat.data<float>() + at, p.data.raw_data(), p.data.nbytes());
    at += size_t(p.data.numel());
  }
  return flat;
}

Status Module::copy_buffer_to_parameters(const Tensor& buffer, bool trainable_only) {
  if (buffer.dtype() != DataType::kFloat)
    return invalid_argument("copy_buffer_to_parameters takes a float32 buffer, got ", buffer.describe());
  if (buffer.numel() != parameters_size(trainable_only))
    return invalid_argument("copy_buffer_to_parameters: the buffer holds ", buffer.numel(), " values, the parameters ",
                            parameters_size(trainable_only));
  for (const TrainingParameter& p : state_->parameters)
    if ((p.requires_grad || !trainable_only) && p.data.dtype() != DataType::kFloat)
      return not_implemented("copy_buffer_to_parameters: '", p.name, "' is ", data_type_name(p.data.dtype()),
                             " (float32 parameters only)");
  size_t at = 0;
  for (TrainingParameter& p : state_->parameters) {
    if (!p.requires_grad && trainable_only) continue;
    std::memmove(p.data.raw_data(), buffer.data<float>() + at, p.data.nbytes());  // the buffer may view a parameter
    at += size_t(p.data.numel());
  }
  if (!trainable_only) state_->nominal = false;  // every value is loaded now
  return Status::Ok();
}

Status Module::export_model_for_inferencing(const std::string& path, const std::vector<std::string>& output_names) const {
  if (!eval_) return runtime_error("export_model_for_inferencing needs the eval model, and none was given");
  ONYX_RETURN_IF_ERROR(check_loaded());
  ir::Model model = eval_model_;
  ir::Graph& g = model.graph;
  std::set<std::string> produced, needed(output_names.begin(), output_names.end());
  for (const ir::Node& n : g.nodes) produced.insert(n.outputs.begin(), n.outputs.end());
  for (const ir::ValueInfo& in : g.inputs) produced.insert(in.name);
  for (const auto& [name, _] : g.initializers) produced.insert(name);
  for (const std::string& name : output_names)
    if (!produced.count(name)) return invalid_argument("export_model_for_inferencing: the model has no value '", name, "'");
  std::vector<ir::Node> kept;
  for (auto it = g.nodes.rbegin(); it != g.nodes.rend(); ++it) {
    bool wanted = false;
    for (const std::string& o : it->outputs) wanted = wanted || (!o.empty() && needed.count(o));
    if (!wanted) continue;
    names_read(*it, needed);
    kept.push_back(std::move(*it));
  }
  g.nodes.assign(std::make_move_iterator(kept.rbegin()), std::make_move_iterator(kept.rend()));
  std::vector<ir::ValueInfo> inputs;
  for (ir::ValueInfo& in : g.inputs) {
    if (!needed.count(in.name)) continue;
    if (const TrainingParameter* p = state_->find(in.name)) {
      g.initializers[in.name] = p->data.clone();
    } else {
      inputs.push_back(std::move(in));
    }
  }
  g.inputs = std::move(inputs);
  for (auto it = g.initializers.begin(); it != g.initializers.end();)
    it = needed.count(it->first) ? std::next(it) : g.initializers.erase(it);
  std::vector<ir::ValueInfo> outputs;
  for (const std::string& name : output_names) {
    ir::ValueInfo info;
    info.name = name;
    for (const std::vector<ir::ValueInfo>* list : {&eval_->outputs(), static_cast<const std::vector<ir::ValueInfo>*>(&g.value_infos)})
      for (const ir::ValueInfo& v : *list)
        if (v.name == name) info = v;
    outputs.push_back(info);
  }
  g.outputs = std::move(outputs);
  return onnx_format::save_model(model, path);
}

Result<std::unique_ptr<Optimizer>> Optimizer::create(const std::string& optimizer_model_path, Module& module) {
  std::unique_ptr<Optimizer> o(new Optimizer(module));
  ONYX_ASSIGN_OR_RETURN(o->session_, Session::load_file(optimizer_model_path, module.session_options()));
  std::set<std::string> inputs;
  for (const ir::ValueInfo& in : o->session_->inputs()) inputs.insert(in.name);
  if (!inputs.count("learning_rate") || !inputs.count("step"))
    return invalid_argument("Optimizer: '", optimizer_model_path,
                            "' is not an optimizer model (no learning_rate and step inputs)");
  CheckpointState& st = module.state();
  for (const std::string& name : module.trainable_parameters()) {
    if (!inputs.count(name) || !inputs.count(name + ".gradient"))
      return invalid_argument("Optimizer: the optimizer model has no input for parameter '", name, "'");
    const bool adamw = inputs.count(name + ".exp_avg") > 0;
    if (name == module.trainable_parameters().front()) o->adamw_ = adamw;
    if (adamw != o->adamw_) return invalid_argument("Optimizer: the optimizer model mixes AdamW and other updates");
    if (!adamw) continue;
    const Tensor& p = st.find(name)->data;
    for (auto* moments : {&st.optimizer.exp_avg, &st.optimizer.exp_avg_sq}) {
      auto it = moments->find(name);
      if (it == moments->end() || it->second.shape() != p.shape() || it->second.dtype() != p.dtype()) {
        ONYX_ASSIGN_OR_RETURN((*moments)[name], Tensor::create(p.dtype(), p.shape()));
      }
    }
  }
  return o;
}

Status Optimizer::step() {
  CheckpointState& st = module_.state();
  if (st.nominal) return runtime_error("Please load the model parameters first. (The checkpoint is nominal.)");
  IoBinding binding(*session_);
  ONYX_RETURN_IF_ERROR(binding.bind_input("learning_rate", Value(Tensor::scalar<float>(float(learning_rate_)))));
  ONYX_RETURN_IF_ERROR(binding.bind_input("step", Value(Tensor::scalar<int64_t>(st.optimizer.step + 1))));
  // Outputs are bound to the very tensors they replace: the binding copies each in after the
  // run, where it overlaps an input, so the update is in place and nothing else moves.
  for (const std::string& name : module_.trainable_parameters()) {
    TrainingParameter* p = st.find(name);
    ONYX_RETURN_IF_ERROR(binding.bind_input(name + ".gradient", Value(p->grad)));
    std::vector<std::pair<std::string, Tensor>> places = {{name, p->data}};
    if (adamw_) {
      places.emplace_back(name + ".exp_avg", st.optimizer.exp_avg[name]);
      places.emplace_back(name + ".exp_avg_sq", st.optimizer.exp_avg_sq[name]);
    }
    for (const auto& [value_name, tensor] : places) {
      ONYX_RETURN_IF_ERROR(binding.bind_input(value_name, Value(tensor)));
      ONYX_RETURN_IF_ERROR(binding.bind_output(value_name + kUpdated, tensor));
    }
  }
  ONYX_RETURN_IF_ERROR(session_->run(binding));
  ++st.optimizer.step;
  return Status::Ok();
}

Result<LinearLRScheduler> LinearLRScheduler::create(Optimizer& optimizer, int64_t warmup_steps, int64_t total_steps,
                                                    double initial_lr) {
  if (warmup_steps < 0 || total_steps < warmup_steps)
    return invalid_argument("LinearLRScheduler: 0 <= warmup_step_count <= total_step_count, got ", warmup_steps, " and ",
                            total_steps);
  LinearLRScheduler s(optimizer, warmup_steps, total_steps, initial_lr);
  optimizer.set_learning_rate(s.rate());
  return s;
}

double LinearLRScheduler::rate() const {
  if (step_ < warmup_) return lr0_ * double(step_) / double(std::max<int64_t>(1, warmup_));
  return lr0_ * std::max(0.0, double(total_ - step_) / double(std::max<int64_t>(1, total_ - warmup_)));
}

void LinearLRScheduler::step() {
  ++step_;
  optimizer_->set_learning_rate(rate());
}

}  // namespace onyx::training
