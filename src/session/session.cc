#include "session/session.h"

#include <algorithm>
#include <set>
#include <shared_mutex>

#include "core/logging.h"
#include "core/parallel.h"
#include "onnx/loader.h"
#include "onnx/mapped_file.h"
#include "onnx/writer.h"
#include "ops/infer_graph.h"
#include "training/gradient_op.h"
#include "ops/op_rule.h"
#include "optimizer/pass_manager.h"
#include "providers/external_data_loader.h"
#include "session/free_dims.h"
#include "session/graph_plan.h"
#include "session/profiler.h"
#include "session/run_capture.h"

namespace onyx {

Status SessionOptions::add_external_initializers(const std::vector<std::string>& names, const std::vector<Tensor>& values) {
  if (names.size() != values.size())
    return invalid_argument("add_external_initializers: ", names.size(), " names but ", values.size(), " values");
  for (size_t i = 0; i < names.size(); ++i) initializer_overrides.emplace_back(names[i], values[i]);
  return Status::Ok();
}

Session::~Session() {
  if (profiler_ && plan_ && profiler_->active()) {  // a session that failed to build writes nothing
    auto file = profiler_->end();
    if (!file.ok()) log_message(LogLevel::kWarning, options_.log_level, "profiling: " + file.status().to_string());
  }
}

namespace {

onnx_format::LoadOptions load_options(const SessionOptions& options) {
  onnx_format::LoadOptions load;
  load.files_in_memory = options.external_data_files_in_memory;
  for (const auto& override_ : options.initializer_overrides) load.supplied_initializers.insert(override_.first);
  return load;
}

}  // namespace

Result<std::unique_ptr<Session>> Session::from_loaded_model(const ir::Model& model, const SessionOptions& options) {
  return from_model(std::make_unique<ir::Model>(model), options, std::chrono::steady_clock::now());
}

Result<std::unique_ptr<Session>> Session::load_file(const std::string& path, const SessionOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  ONYX_ASSIGN_OR_RETURN(ir::Model model, onnx_format::load_model_file(path, load_options(options)));
  auto s = from_model(std::make_unique<ir::Model>(std::move(model)), options, start);
  if (!s.ok()) return s.take_status().with_context("while planning model '" + path + "'");
  return s;
}

Result<std::unique_ptr<Session>> Session::load_bytes(const void* data, size_t size, const SessionOptions& options,
                                                     const std::string& base_dir) {
  const auto start = std::chrono::steady_clock::now();
  ONYX_ASSIGN_OR_RETURN(ir::Model model, onnx_format::load_model_bytes(data, size, base_dir, load_options(options)));
  return from_model(std::make_unique<ir::Model>(std::move(model)), options, start);
}

Result<std::unique_ptr<Session>> Session::from_model(std::unique_ptr<ir::Model> model, const SessionOptions& options,
                                                     std::chrono::steady_clock::time_point load_start) {
  std::unique_ptr<Session> s(new Session());
  s->options_ = options;
  s->model_ = std::move(model);
  Profiler* prof = nullptr;
  if (options.enable_profiling) {
    s->profiler_ = std::make_unique<Profiler>(Profiler::make_file_name(options.profile_file_prefix), load_start);
    prof = s->profiler_.get();
  }
  auto t = ProfileClock::now();
  auto mark = [&](const char* event) {  // closes a session event that began at `t`
    const auto now = ProfileClock::now();
    if (prof) prof->session_event(event, t, now);
    t = now;
  };
  if (prof) prof->session_event("model_load", load_start, t);

  // Providers first: one that cannot run here fails before any work, and the optimiser needs
  // to know the preferred one (optimizer::ProviderTarget).
  // The list is a priority list: a provider of this build that cannot run here (no device,
  // no driver) is left out with a warning saying why, and the providers after it (the CPU at
  // least) take its nodes; with disable_cpu_fallback that is an error instead.
  PlacementOptions placement;
  const ProviderRegistry& registry = ProviderRegistry::global();
  for (const auto& [name, provider_options] : options.providers) {
    if (!registry.canonical(name).empty()) {
      if (Status usable = registry.available(name); !usable.ok()) {
        if (options.disable_cpu_fallback)
          return std::move(usable).with_context("provider '" + name +
                                                "' was asked for and the session allows no fallback "
                                                "(session.disable_cpu_ep_fallback)");
        log_message(LogLevel::kWarning, options.log_level,
                    "provider '" + name + "' cannot run here, its nodes go to the providers listed after it: " +
                        usable.message());
        continue;
      }
    }
    ONYX_ASSIGN_OR_RETURN(std::shared_ptr<ExecutionProvider> provider, registry.create(name, provider_options));
    if (const auto ignored = provider->options_not_acted_on(); !ignored.empty()) {
      std::string list;
      for (const auto& o : ignored) list += (list.empty() ? "" : ", ") + o;
      log_message(LogLevel::kWarning, options.log_level,
                  "provider '" + name + "' accepts these ONNX Runtime options without acting on them: " + list);
    }
    for (const auto& have : placement.providers)
      if (have->name() == provider->name()) return invalid_argument("provider '", name, "' is listed twice");
    placement.providers.push_back(std::move(provider));
  }
  if (std::none_of(placement.providers.begin(), placement.providers.end(),
                   [](const auto& p) { return p->name() == "CPU"; }))
    placement.providers.push_back(CpuProvider::shared());

  // ONNX's Gradient op (ai.onnx.preview.training) becomes the backward graph it stands for.
  if (training::has_gradient_ops(s->model_->graph)) ONYX_RETURN_IF_ERROR(training::expand_gradient_ops(*s->model_));
  ONYX_RETURN_IF_ERROR(s->apply_initializer_overrides());
  ONYX_RETURN_IF_ERROR(s->place_external_data());
  ONYX_ASSIGN_OR_RETURN(FreeDimensionResult dims,
                        apply_free_dimension_overrides(s->model_->graph, options.free_dimension_overrides_by_name,
                                                       options.free_dimension_overrides_by_denotation));
  for (const auto& w : dims.warnings) log_message(LogLevel::kWarning, options.log_level, w);
  s->fixed_dims_ = std::move(dims.fixed);
  mark("free_dimension_and_initializer_overrides");

  s->types_ = std::make_unique<ops::GraphTypes>(ops::infer_graph_types(s->model_->graph, s->model_->opsets));
  for (const auto& w : s->types_->warnings) log_message(LogLevel::kWarning, options.log_level, "static inference: " + w);
  mark("static_inference");
  // Built at every level, so that a disabled pass name no pass has is an error at level 0 too.
  ONYX_ASSIGN_OR_RETURN(optimizer::PassManager manager,
                        optimizer::PassManager::for_level(options.graph_optimization_level,
                                                          options.disabled_optimizers));
  if (options.graph_optimization_level > 0) {
    if (const std::string preferred = placement.providers.front()->name(); preferred != "CPU")
      manager.target = optimizer::ProviderTarget{
          preferred, [preferred](const std::string& domain, const std::string& op, int64_t opset) {
            return KernelRegistry::global().find(preferred, domain, op, opset) != nullptr;
          }};
    ONYX_ASSIGN_OR_RETURN(optimizer::OptimizeReport report,
                          manager.run(*s->model_, *s->types_, options.log_level));
    for (const auto& [why, at] : report.declined_for_provider) {
      s->declined_rewrites_.push_back(why + " (" + std::to_string(at.size()) + " match" + (at.size() == 1 ? "" : "es") +
                                      ", one at " + *at.begin() + ")");
      log_message(LogLevel::kInfo, options.log_level, "graph optimization: not fused, " + s->declined_rewrites_.back());
    }
    log_message(LogLevel::kInfo, options.log_level, "graph optimization (level " +
                std::to_string(options.graph_optimization_level) + "): " + report.summary());
    if (prof)
      for (const auto& r : report.runs)
        prof->session_event("optimizer:" + r.pass, r.start, r.end,
                            std::string("\"phase\":\"") + r.phase + "\",\"round\":" + std::to_string(r.round) +
                                ",\"changed\":" + (r.changed ? "true" : "false"));
    mark("graph_optimization");
  }
  if (!options.optimized_model_filepath.empty()) {
    onnx_format::SaveOptions save;
    save.external_data_file = options.optimized_model_external_data_file;
    save.external_min_bytes = options.optimized_model_external_min_bytes;
    ONYX_RETURN_IF_ERROR(onnx_format::save_model(*s->model_, options.optimized_model_filepath, save));
    mark("save_optimized_model");
  }
  placement.strict = options.disable_cpu_fallback;
  placement.session_kernels = options.custom_kernels.get();
  placement.types = &s->types_->all;
  s->providers_ = placement.providers;
  for (const auto& provider : s->providers_)
    if (provider->captures_runs() && !s->captures_) s->captures_ = std::make_unique<RunCaptures>(provider);
  ONYX_ASSIGN_OR_RETURN(s->plan_, GraphPlan::build(s->model_->graph, s->model_->opsets, nullptr,
                                                   options.verify_shapes ? &s->types_->inferred : nullptr,
                                                   // weights the kernels packed are held once, packed: the
                                                   // graph keeps their type, not their data
                                                   [&s](const std::string& name) {
                                                     Tensor& t = s->model_->graph.initializers.at(name);
                                                     // its pages of the mapped file are not needed either
                                                     auto mapped = s->mapped_initializers_.find(name);
                                                     if (t.copy_pending())  // packed from the file's bytes
                                                       onnx_format::release_mapped_pages(t.bytes_in_place(), t.nbytes());
                                                     else if (mapped != s->mapped_initializers_.end() &&
                                                              mapped->second == t.raw_data())
                                                       onnx_format::release_mapped_pages(t.raw_data(), t.nbytes());
                                                     t = Tensor(t.dtype(), t.shape(), std::make_shared<Buffer>(nullptr, 0, nullptr));
                                                   },
                                                   KernelSettings{options.bf16_gemm, options.custom_kernels.get()}, &placement));
  mark("planning");
  // Initializers misaligned in the model file whose aligned copy no kernel has asked for yet
  // (Buffer::deferred_copy) and that the kernels still read: copied now, not in a run.
  for (auto& [name, t] : s->model_->graph.initializers)
    if (t.copy_pending()) (void)t.raw_data();
  std::map<std::string, size_t> per_provider;
  size_t copies = 0;
  for (const NodePlacement& p : s->plan_->placement()) p.is_copy ? ++copies : ++per_provider[p.provider];
  std::string where;
  for (const auto& [provider, n] : per_provider) where += (where.empty() ? "" : ", ") + std::to_string(n) + " on " + provider;
  log_message(LogLevel::kInfo, options.log_level,
              "planned " + std::to_string(s->model_->graph.nodes.size()) + " nodes (" + where + ", " +
                  std::to_string(copies) + " copy steps; IR " + std::to_string(s->model_->ir_version) +
                  ", producer '" + s->model_->producer_name + "')");
  return s;
}

Status Session::apply_initializer_overrides() {
  auto& inits = model_->graph.initializers;
  std::set<std::string> seen;
  for (const auto& [name, value] : options_.initializer_overrides) {
    if (!seen.insert(name).second) return invalid_argument("initializer override '", name, "' is given twice");
    auto it = inits.find(name);
    if (it == inits.end()) {
      std::string some;
      int n = 0;
      for (const auto& kv : inits) {
        if (n++ == 8) { some += ", ..."; break; }
        some += (some.empty() ? "" : ", ") + kv.first;
      }
      return invalid_argument("initializer override '", name, "': the model has no initializer of that name",
                              inits.empty() ? std::string(" (it has none)") : " (initializers: " + some + ")");
    }
    if (!value.defined()) return invalid_argument("initializer override '", name, "' is an undefined tensor");
    if (value.dtype() != it->second.dtype() || value.shape() != it->second.shape())
      return invalid_argument("initializer override '", name, "' is ", value.describe(), " but the model's initializer is ",
                              it->second.describe());
    if (value.nbytes() > 0 && !value.raw_data())
      return invalid_argument("initializer override '", name, "' has no data");
    it->second = value;  // shares the caller's buffer: no copy
    model_->graph.external_data.erase(name);
  }
  return Status::Ok();
}

Status Session::place_external_data() {
  auto& graph = model_->graph;
  if (graph.external_data.empty()) return Status::Ok();
  std::shared_ptr<const ExternalDataLoader> loader = options_.external_data_loader;
  if (!loader) loader = ExternalDataLoaderRegistry::global().get(Device::Type::kCpu);
  if (!loader) return error(StatusCode::kInternal, "no external-data loader is registered for the CPU");
  for (const auto& [name, ref] : graph.external_data) {
    auto it = graph.initializers.find(name);
    if (it == graph.initializers.end()) continue;
    auto placed = loader->load(name, it->second, ref);
    if (!placed.ok())
      return placed.take_status().with_context("while loader '" + loader->name() + "' placed initializer '" + name + "'");
    if (placed->dtype() != it->second.dtype() || placed->shape() != it->second.shape())
      return error(StatusCode::kInternal, "external-data loader '", loader->name(), "' turned initializer '", name,
                   "' from ", it->second.describe(), " into ", placed->describe());
    const bool still_mapped = placed->raw_data() == it->second.raw_data() &&
                              !options_.external_data_files_in_memory.count(ref.location);
    it->second = std::move(placed).value();
    if (still_mapped) mapped_initializers_[name] = it->second.raw_data();
  }
  return Status::Ok();
}

Result<std::string> Session::end_profiling() {
  if (!profiler_) return std::string();
  return profiler_->end();
}

bool Session::profiling() const { return profiler_ && profiler_->active(); }

std::vector<std::pair<std::string, std::string>> Session::kernel_implementations() const {
  std::vector<std::pair<std::string, std::string>> out;
  for (auto& [node, how] : plan_->implementations()) out.emplace_back(node->label(), how);
  return out;
}

const std::vector<NodePlacement>& Session::placement() const { return plan_->placement(); }

std::vector<std::string> Session::provider_descriptions() const {
  std::vector<std::string> out;
  for (const auto& p : providers_) out.push_back(p->description());
  return out;
}

ExecutionProvider* Session::provider_for(const Device& device) const {
  for (const auto& p : providers_)
    if (p->device() == device) return p.get();
  return nullptr;
}

std::vector<std::string> Session::provider_names() const {
  std::vector<std::string> out;
  for (const auto& p : providers_) out.push_back(p->name());
  return out;
}

const ir::TypeInfo& Session::output_type(size_t index) const {
  const ir::ValueInfo& declared = outputs()[index];
  auto it = types_->all.find(declared.name);
  if (it != types_->all.end() && declared.type.kind == ir::TypeInfo::Kind::kTensor &&
      it->second.kind == ir::TypeInfo::Kind::kTensor && !declared.type.shape.has_rank && it->second.shape.has_rank)
    return it->second;
  return declared.type;
}

bool Session::input_has_default(const std::string& name) const {
  return model_->graph.initializers.count(name) > 0;
}

Status Session::check_input_shape(const ir::ValueInfo& info, const Shape& shape) const {
  const ir::TypeInfo& t = info.type;
  if (!t.shape.has_rank) return Status::Ok();
  if (shape.size() != t.shape.dims.size())
    return invalid_argument("input '", info.name, "' expects rank ", t.shape.dims.size(), " ", t.shape.to_string(),
                            ", got shape ", shape_to_string(shape));
  for (size_t d = 0; d < t.shape.dims.size(); ++d) {
    const auto& dim = t.shape.dims[d];
    if (dim.value && *dim.value != shape[d]) {
      std::string why = "declared " + t.shape.to_string();
      auto in = fixed_dims_.find(info.name);
      if (in != fixed_dims_.end()) {
        auto fixed = in->second.find(d);
        if (fixed != in->second.end()) why = "fixed by the free-dimension override for " + fixed->second + "; " + why;
      }
      return invalid_argument("input '", info.name, "' dim ", d, " must be ", *dim.value, " (", why, "), got shape ",
                              shape_to_string(shape));
    }
  }
  return Status::Ok();
}

Status Session::check_feed(const ir::ValueInfo& info, const Value& value) const {
  using K = ir::TypeInfo::Kind;
  const ir::TypeInfo& t = info.type;
  if (t.kind == K::kTensor) {
    if (!value.is_tensor()) return invalid_argument("input '", info.name, "' expects a tensor, got ", value.describe());
    const Tensor& x = value.tensor();
    if (t.elem_type != DataType::kUndefined && x.dtype() != t.elem_type)
      return invalid_argument("input '", info.name, "' expects element type ", data_type_name(t.elem_type), ", got ",
                              data_type_name(x.dtype()));
    return check_input_shape(info, x.shape());
  }
  const bool of_maps = t.kind == K::kSequence && t.inner && t.inner->kind == K::kMap;
  if (t.kind == K::kSequence && !(of_maps ? value.is_map_sequence() : value.is_sequence()))
    return invalid_argument("input '", info.name, "' expects a ", of_maps ? "sequence of maps" : "sequence", ", got ",
                            value.describe());
  if (t.kind == K::kMap) {
    if (!value.is_map()) return invalid_argument("input '", info.name, "' expects a map, got ", value.describe());
    if (t.elem_type != DataType::kUndefined && value.map_keys().dtype() != t.elem_type)
      return invalid_argument("input '", info.name, "' expects map keys of type ", data_type_name(t.elem_type), ", got ",
                              value.describe());
    if (t.inner && t.inner->elem_type != DataType::kUndefined && value.map_values().dtype() != t.inner->elem_type)
      return invalid_argument("input '", info.name, "' expects map values of type ", data_type_name(t.inner->elem_type),
                              ", got ", value.describe());
  }
  return Status::Ok();
}

Session::ArenaLease::ArenaLease(const Session& session) : session_(session) {
  std::lock_guard<std::mutex> lock(session.arena_mu_);
  if (!session.idle_arenas_.empty()) {
    arena_ = std::move(session.idle_arenas_.back());
    session.idle_arenas_.pop_back();
  }
  if (!arena_) {
    arena_ = std::make_unique<Arena>();
    arena_->set_cache_limit(session.options_.arena_cache_limit_bytes);
    arena_->set_max_bytes(session.options_.memory_limit_bytes);
  }
}

Session::ArenaLease::~ArenaLease() {
  if (!session_.options_.enable_cpu_mem_arena) return;  // the arena and its cached blocks go
  std::lock_guard<std::mutex> lock(session_.arena_mu_);
  if (session_.idle_arenas_.size() < kMaxIdleArenas) session_.idle_arenas_.push_back(std::move(arena_));
}

Result<size_t> Session::input_index(const std::string& name) const {
  const auto& graph_inputs = model_->graph.inputs;
  for (size_t i = 0; i < graph_inputs.size(); ++i)
    if (graph_inputs[i].name == name) return i;
  std::string valid;
  for (const auto& vi : graph_inputs)
    if (!input_has_default(vi.name)) valid += (valid.empty() ? "" : ", ") + vi.name;
  return not_found("the model has no input named '", name, "' (inputs: ", valid, ")");
}

Result<size_t> Session::check_input(const std::string& name, const Value& value) const {
  ONYX_ASSIGN_OR_RETURN(size_t i, input_index(name));
  ONYX_RETURN_IF_ERROR(check_feed(model_->graph.inputs[i], value));
  return i;
}

Result<std::vector<ir::TypeInfo>> Session::output_types_for(
    const std::vector<std::pair<std::string, Shape>>& input_shapes) const {
  ir::Graph graph = model_->graph;  // tensors and subgraphs are shared, not copied
  for (const auto& [name, shape] : input_shapes) {
    ONYX_ASSIGN_OR_RETURN(size_t i, input_index(name));
    ir::TypeInfo& t = graph.inputs[i].type;
    if (t.kind != ir::TypeInfo::Kind::kTensor) return invalid_argument("input '", name, "' is not a tensor");
    for (int64_t d : shape)
      if (d < 0) return invalid_argument("input '", name, "': shape ", shape_to_string(shape), " has a negative dim");
    ONYX_RETURN_IF_ERROR(check_input_shape(graph.inputs[i], shape));
    t.shape = ops::known_shape(shape);
  }
  const ops::GraphTypes types = ops::infer_graph_types(graph, model_->opsets);
  std::vector<ir::TypeInfo> out;
  for (const auto& vi : graph.outputs) {
    auto it = types.all.find(vi.name);
    out.push_back(it == types.all.end() ? vi.type : it->second);
  }
  return out;
}

Result<size_t> Session::output_index(const std::string& name) const {
  for (size_t i = 0; i < outputs().size(); ++i)
    if (outputs()[i].name == name) return i;
  std::string valid;
  for (const auto& vi : outputs()) valid += (valid.empty() ? "" : ", ") + vi.name;
  return not_found("the model has no output named '", name, "' (outputs: ", valid, ")");
}

Result<std::vector<Value>> Session::gather_inputs(const std::vector<std::pair<std::string, Value>>& feeds) const {
  const auto& graph_inputs = model_->graph.inputs;
  std::vector<Value> inputs(graph_inputs.size());
  std::vector<bool> fed(graph_inputs.size(), false);
  for (const auto& [name, value] : feeds) {
    ONYX_ASSIGN_OR_RETURN(size_t i, check_input(name, value));
    if (fed[i]) return invalid_argument("input '", name, "' is fed twice");
    inputs[i] = value;
    fed[i] = true;
  }
  for (size_t i = 0; i < graph_inputs.size(); ++i) {
    const ir::TypeInfo::Kind kind = graph_inputs[i].type.kind;
    if (!fed[i] && !input_has_default(graph_inputs[i].name) && kind != ir::TypeInfo::Kind::kOptional)
      return invalid_argument("input '", graph_inputs[i].name, "' is missing");
  }
  return inputs;
}

Result<std::vector<Value>> Session::run(const std::vector<std::pair<std::string, Value>>& feeds,
                                        const std::vector<std::string>& output_names,
                                        const RunOptions& options) const {
  ONYX_ASSIGN_OR_RETURN(std::vector<Value> inputs, gather_inputs(feeds));
  std::vector<size_t> wanted;
  if (output_names.empty()) {
    for (size_t i = 0; i < outputs().size(); ++i) wanted.push_back(i);
  } else {
    for (const auto& name : output_names) {
      ONYX_ASSIGN_OR_RETURN(size_t i, output_index(name));
      wanted.push_back(i);
    }
  }
  std::shared_lock<std::shared_mutex> runs(runs_mu_);  // no recording of this session meanwhile
  return execute(std::move(inputs), wanted, options, nullptr);
}

Result<std::vector<Value>> Session::execute(std::vector<Value> inputs, const std::vector<size_t>& wanted,
                                            const RunOptions& options, const std::vector<Tensor>* targets,
                                            const std::vector<char>* outputs_on_device) const {
  set_intra_op_threads(options_.intra_op_threads);
  const DenormalsAsZero flush(options_.denormal_as_zero);
  RunControl control;
  control.terminate = &options.terminate;
  if (options.timeout_ms > 0) {
    control.has_deadline = true;
    control.timeout_ms = options.timeout_ms;
    control.deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(options.timeout_ms);
  }
  std::vector<char> active;
  ArenaLease arena(*this);
  RunExtras extras;
  extras.arena = arena.get();
  extras.control = &control;
  extras.output_targets = targets;
  extras.outputs_on_device = outputs_on_device;
  if (options.only_execute_path_to_fetches) {
    active = plan_->steps_for_outputs(wanted);
    extras.active_steps = &active;
  }
  Result<std::vector<Value>> result = [&]() -> Result<std::vector<Value>> {
    if (!profiler_ || !profiler_->active()) return plan_->run(std::move(inputs), nullptr, extras);
    RunProfile profile(*profiler_);
    extras.profile = &profile;
    const auto start = ProfileClock::now();
    auto r = plan_->run(std::move(inputs), nullptr, extras);
    profiler_->add(profile.events());
    profiler_->session_event("run", start, ProfileClock::now(), std::string("\"ok\":") + (r.ok() ? "true" : "false"));
    return r;
  }();
  if (options.shrink_arena) arena.get()->trim();
  if (auto shrink = options.config.find("memory.enable_memory_arena_shrinkage");
      shrink != options.config.end() &&
      (shrink->second.find("gpu") != std::string::npos || shrink->second.find("cuda") != std::string::npos)) {
    for (const auto& provider : providers_) {
      if (provider->device().is_cpu()) continue;
      if (Status st = provider->shrink_memory(); !st.ok() && result.ok()) result = std::move(st);
    }
  }
  if (!result.ok()) {
    Status st = result.take_status();
    return options.tag.empty() ? st : std::move(st).with_context("in run '" + options.tag + "'");
  }
  std::vector<Value> all = std::move(result).value();
  std::vector<Value> selected;
  selected.reserve(wanted.size());
  for (size_t i : wanted) selected.push_back(all[i]);
  return selected;
}

}  // namespace onyx
