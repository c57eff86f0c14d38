#include "session/graph_plan.h"

#include "core/guard.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <queue>

#include "ops/infer_graph.h"
#include "session/profiler.h"

namespace onyx {
namespace {

// Names a graph reads that it does not define itself (recursively through its subgraphs).
void collect_free_names(const ir::Graph& g, std::set<std::string>& out) {
  std::set<std::string> defined;
  for (const auto& vi : g.inputs) defined.insert(vi.name);
  for (const auto& kv : g.initializers) defined.insert(kv.first);
  for (const auto& n : g.nodes)
    for (const auto& o : n.outputs) defined.insert(o);
  auto use = [&](const std::string& name) {
    if (!name.empty() && !defined.count(name)) out.insert(name);
  };
  for (const auto& n : g.nodes) {
    for (const auto& i : n.inputs) use(i);
    for (const auto& kv : n.attributes) {
      std::set<std::string> inner;
      if (kv.second.g) collect_free_names(*kv.second.g, inner);
      for (const auto& sg : kv.second.graphs) collect_free_names(*sg, inner);
      for (const auto& name : inner) use(name);
    }
  }
  for (const auto& vi : g.outputs) use(vi.name);
}

// Every value a node reads: its inputs, plus what its subgraphs read from outside.
std::vector<std::string> node_reads(const ir::Node& n) {
  std::vector<std::string> reads;
  for (const auto& i : n.inputs)
    if (!i.empty()) reads.push_back(i);
  for (const auto& kv : n.attributes) {
    std::set<std::string> inner;
    if (kv.second.g) collect_free_names(*kv.second.g, inner);
    for (const auto& sg : kv.second.graphs) collect_free_names(*sg, inner);
    reads.insert(reads.end(), inner.begin(), inner.end());
  }
  return reads;
}

}  // namespace

int GraphPlan::slot(const std::string& name) {
  auto it = slot_of_.find(name);
  if (it != slot_of_.end()) return it->second;
  const int s = int(slot_names_.size());
  slot_names_.push_back(name);
  slot_of_.emplace(name, s);
  constants_.emplace_back();
  return s;
}

Status GraphPlan::order_nodes(std::vector<const ir::Node*>& order, const Scope* outer) {
  const auto& nodes = graph_.nodes;
  std::unordered_map<std::string, size_t> producer;
  for (size_t i = 0; i < nodes.size(); ++i) {
    for (const auto& o : nodes[i].outputs) {
      if (o.empty()) continue;
      if (!producer.emplace(o, i).second)
        return invalid_model("value '", o, "' is produced by two nodes: ", nodes[producer[o]].label(), " and ",
                             nodes[i].label());
      if (graph_.initializers.count(o))
        return invalid_model("node ", nodes[i].label(), " writes '", o, "', which is an initializer");
    }
  }
  std::set<std::string> graph_inputs;
  for (const auto& vi : graph_.inputs) graph_inputs.insert(vi.name);
  std::vector<std::vector<size_t>> consumers(nodes.size());
  std::vector<int> pending(nodes.size(), 0);
  for (size_t i = 0; i < nodes.size(); ++i) {
    for (const auto& name : node_reads(nodes[i])) {
      auto it = producer.find(name);
      if (it != producer.end()) {
        consumers[it->second].push_back(i);
        ++pending[i];
      } else if (!graph_inputs.count(name) && !graph_.initializers.count(name) && !(outer && outer->contains(name))) {
        return invalid_model("node ", nodes[i].label(), " reads '", name,
                             "', which no node, initializer, graph input or enclosing graph defines");
      }
    }
  }
  // Kahn's algorithm, preferring the file's order among ready nodes.
  std::priority_queue<size_t, std::vector<size_t>, std::greater<size_t>> ready;
  for (size_t i = 0; i < nodes.size(); ++i)
    if (pending[i] == 0) ready.push(i);
  while (!ready.empty()) {
    const size_t i = ready.top();
    ready.pop();
    order.push_back(&nodes[i]);
    for (size_t c : consumers[i])
      if (--pending[c] == 0) ready.push(c);
  }
  if (order.size() != nodes.size()) {
    for (size_t i = 0; i < nodes.size(); ++i)
      if (pending[i] > 0) return invalid_model("the graph has a cycle through node ", nodes[i].label());
  }
  return Status::Ok();
}

Result<std::shared_ptr<GraphPlan>> GraphPlan::build(const ir::Graph& graph, const std::map<std::string, int64_t>& opsets,
                                                    const Scope* outer,
                                                    const std::unordered_map<std::string, ir::TypeInfo>* verify_types,
                                                    const std::function<void(const std::string&)>& on_release,
                                                    KernelSettings settings, const PlacementOptions* placement) {
  std::shared_ptr<GraphPlan> plan(new GraphPlan(graph));
  std::vector<const ir::Node*> order;
  ONYX_RETURN_IF_ERROR(plan->order_nodes(order, outer));

  std::set<std::string> graph_input_names;
  for (const auto& vi : graph.inputs) {
    if (!graph_input_names.insert(vi.name).second) return invalid_model("graph input '", vi.name, "' is listed twice");
    plan->input_slots_.push_back(plan->slot(vi.name));
  }
  for (const auto& kv : graph.initializers) plan->constants_[size_t(plan->slot(kv.first))] = Value(kv.second);

  // The scope nested graphs see: everything this graph defines, then the enclosing scopes.
  auto scope = std::make_shared<Scope>();
  scope->parent = outer;
  for (const auto& vi : graph.inputs) scope->names.insert(vi.name);
  for (const auto& kv : graph.initializers) scope->names.insert(kv.first);
  for (const auto& n : graph.nodes)
    for (const auto& o : n.outputs)
      if (!o.empty()) scope->names.insert(o);

  std::set<std::string> free_names;
  collect_free_names(graph, free_names);
  for (const auto& name : free_names) {
    plan->captured_names_.push_back(name);
    plan->captured_slots_.push_back(plan->slot(name));
  }

  // Constants that every reader packed in prepare (Kernel::released_constant_inputs) keep their
  // dtype and shape but lose their data once the last reader is prepared. A constant that is
  // a graph output or that a subgraph reads is kept whole.
  std::vector<int> readers_left(plan->slot_names_.size(), 0);
  std::vector<bool> releasable(plan->slot_names_.size(), true);
  for (const ir::Node* node : order) {
    for (const auto& in : node->inputs)  // constants have their slots already
      if (auto it = plan->slot_of_.find(in); !in.empty() && it != plan->slot_of_.end()) ++readers_left[size_t(it->second)];
    for (const auto& name : node_reads(*node))
      if (std::find(node->inputs.begin(), node->inputs.end(), name) == node->inputs.end())
        if (auto it = plan->slot_of_.find(name); it != plan->slot_of_.end()) releasable[size_t(it->second)] = false;
  }
  for (const auto& vi : graph.outputs)
    if (auto it = plan->slot_of_.find(vi.name); it != plan->slot_of_.end()) releasable[size_t(it->second)] = false;
  // A device kernel reads a copy of a constant made at plan time (below), never the host data:
  // for the host constant it counts as a reader that released it.
  auto after_prepare = [&](const Step& step) {
    const std::vector<int> released = step.kernel->released_constant_inputs();
    for (size_t k = 0; k < step.inputs.size(); ++k) {
      const std::string& name = step.node->inputs[k];
      const int s = name.empty() ? -1 : plan->slot_of_.at(name);
      if (s < 0 || size_t(s) >= readers_left.size() || !plan->constants_[size_t(s)].is_tensor()) continue;
      const bool read_as_copy = step.inputs[k] != s;
      if (!read_as_copy && std::find(released.begin(), released.end(), int(k)) == released.end())
        releasable[size_t(s)] = false;
      if (--readers_left[size_t(s)] > 0 || !releasable[size_t(s)]) continue;
      const Tensor& t = plan->constants_[size_t(s)].tensor();
      plan->constants_[size_t(s)] = Value(Tensor(t.dtype(), t.shape(), std::make_shared<Buffer>(nullptr, 0, nullptr)));
      plan->released_constants_.push_back(plan->slot_names_[size_t(s)]);
      if (on_release) on_release(plan->slot_names_[size_t(s)]);
    }
  };

  // Providers in priority order, the CPU last when not listed; where each slot's value lives
  // (the CPU unless said otherwise); the copies made so far, by (slot, device).
  std::vector<std::shared_ptr<ExecutionProvider>> providers;
  if (placement) providers = placement->providers;
  if (std::none_of(providers.begin(), providers.end(), [](const auto& p) { return p->name() == "CPU"; }))
    providers.push_back(CpuProvider::shared());
  plan->providers_ = providers;
  const bool single_provider = providers.size() == 1;
  PlacementOptions default_placement;
  const PlacementOptions& place = placement ? *placement : default_placement;
  std::set<std::string> captured;  // names this graph's subgraphs read (only placement asks)
  if (!single_provider)
    for (const ir::Node* node : order)
      for (const auto& name : node_reads(*node))
        if (std::find(node->inputs.begin(), node->inputs.end(), name) == node->inputs.end()) captured.insert(name);
  std::unordered_map<int, Device> device_of_slot;
  std::map<std::pair<int, std::string>, int> copies;
  auto device_of = [&](int s) {
    auto it = device_of_slot.find(s);
    return it == device_of_slot.end() ? Device{} : it->second;
  };
  auto provider_of = [&](Device d) -> std::shared_ptr<ExecutionProvider> {
    for (const auto& p : providers)
      if (p->device() == d) return p;
    return nullptr;
  };
  // The slot holding slot `s`'s value on `target`: `s` itself, or a copy made once (constants
  // now, other values by a copy step placed before the first reader that needs it).
  auto moved_to = [&](int s, Device target) -> Result<int> {
    const Device here = device_of(s);
    if (here == target) return s;
    const auto key = std::make_pair(s, target.to_string());
    if (auto it = copies.find(key); it != copies.end()) return it->second;
    std::shared_ptr<ExecutionProvider> via = provider_of(target.is_cpu() ? here : target);
    if (!via || (!here.is_cpu() && !target.is_cpu()))
      return not_implemented("no copy from ", here.to_string(), " to ", target.to_string());
    const std::string source = plan->slot_names_[size_t(s)];
    const int c = plan->slot(source + "@" + target.to_string());
    const Value& constant = plan->constants_[size_t(s)];
    if (constant.is_tensor() && !graph_input_names.count(source) && place.dry_run) {
      plan->constants_[size_t(c)] = constant;  // stands for the copy
    } else if (constant.is_tensor() && !graph_input_names.count(source)) {
      Result<Tensor> copy = via->copy_to_own_memory(constant.tensor());
      if (!copy.ok())
        return copy.take_status().with_context("while copying initializer '" + source + "' to " + target.to_string());
      plan->constants_[size_t(c)] = Value(std::move(copy).value());
    } else {
      ir::Node& n = plan->copy_nodes_.emplace_back();
      n.name = "copy of '" + source + "' to " + target.to_string();
      n.op_type = target.is_cpu() ? "MemcpyToHost" : "MemcpyFromHost";
      n.inputs = {source};
      n.outputs = {plan->slot_names_[size_t(c)]};
      Step step;
      step.node = &n;
      step.opset = 1;
      step.kernel = std::make_unique<DeviceCopyKernel>(via, target);
      step.inputs = {s};
      step.outputs = {c};
      step.provider = via->name();
      step.device = via.get();
      step.allocator = target.is_cpu() ? nullptr : via->allocator();
      plan->placement_.push_back(NodePlacement{n.label(), n.op_type, via->name(), "", true});
      plan->steps_.push_back(std::move(step));
    }
    device_of_slot[c] = target;
    copies.emplace(key, c);
    return c;
  };

  // Shape and index arithmetic on host values (Shape -> Gather -> Concat -> Reshape chains,
  // Range): a node whose inputs are all on the host (computed or constant) and whose outputs are
  // all int32/int64 stays on the CPU, instead of sending small values to a device and back with
  // a synchronisation each way. Not under strict placement, where the caller wants the device.
  size_t cpu_index = 0;
  while (providers[cpu_index]->name() != "CPU") ++cpu_index;
  auto host_index_arithmetic = [&](const ir::Node& node) {
    if (!place.types || node.outputs.empty()) return false;
    for (const auto& out : node.outputs) {
      auto t = out.empty() ? place.types->end() : place.types->find(out);
      if (t == place.types->end() || t->second.kind != ir::TypeInfo::Kind::kTensor ||
          (t->second.elem_type != DataType::kInt64 && t->second.elem_type != DataType::kInt32))
        return false;
    }
    for (const auto& in : node.inputs)  // a graph input may be fed on a device (IoBinding)
      if (!in.empty() && (!device_of(plan->slot(in)).is_cpu() || graph_input_names.count(in))) return false;
    return true;
  };

  // Graph inputs some step reads on the host straight from the feed (GraphPlan::run moves a
  // feed given on a device there first).
  plan->host_read_inputs_.assign(plan->input_slots_.size(), 0);
  auto read_on_host = [&](int s) {
    for (size_t i = 0; i < plan->input_slots_.size(); ++i)
      if (plan->input_slots_[i] == s) plan->host_read_inputs_[i] = 1;
  };
  std::map<std::string, int64_t> opsets_copy = opsets;
  for (const ir::Node* node : order) {
    for (const auto& name : node_reads(*node))  // what its subgraphs read, on the CPU
      if (std::find(node->inputs.begin(), node->inputs.end(), name) == node->inputs.end())
        if (auto it = plan->slot_of_.find(name); it != plan->slot_of_.end()) read_on_host(it->second);
    Step step;
    step.node = node;
    auto it = opsets.find(node->domain);
    if (it == opsets.end())
      return invalid_model("node ", node->label(), " uses domain '", node->domain, "', which the model does not import");
    step.opset = it->second;
    NodeChoice choice;
    if (!single_provider) {
      ONYX_ASSIGN_OR_RETURN(choice, choose_provider(*node, step.opset, providers, place, captured));
      if (choice.provider != cpu_index && !place.strict && host_index_arithmetic(*node)) {
        choice.provider = cpu_index;
        choice.reason = "integer arithmetic on values already on the host stays there (shapes, indices)";
      }
    }
    const std::shared_ptr<ExecutionProvider>& provider = providers[choice.provider];
    const bool on_device = provider->name() != "CPU";
    const KernelDef* def = find_kernel(settings.session_kernels, provider->name(), node->domain, node->op_type, step.opset);
    if (!def) {
      return not_implemented("no CPU kernel for ", node->domain.empty() ? "" : node->domain + ":", node->op_type,
                             " at opset ", step.opset, " (node ", node->label(), ")");
    }
    std::vector<const Tensor*> constant_inputs;
    for (size_t k = 0; k < node->inputs.size(); ++k) {
      const std::string& in = node->inputs[k];
      int s = in.empty() ? -1 : plan->slot(in);
      auto listed = [k](const std::vector<int>& inputs) {
        return std::find(inputs.begin(), inputs.end(), int(k)) != inputs.end();
      };
      // a CPU kernel that reads only this input's dims takes it where it is
      if (s >= 0 && !single_provider && (on_device || !listed(def->shape_only_inputs))) {
        const bool on_host = !on_device || listed(def->host_inputs);
        ONYX_ASSIGN_OR_RETURN(s, moved_to(s, on_host ? Device{} : provider->device()));
      }
      if (s >= 0 && (on_device ? listed(def->host_inputs) : !listed(def->shape_only_inputs))) read_on_host(s);
      step.inputs.push_back(s);
      auto init = graph.initializers.find(in);
      const bool constant = !in.empty() && init != graph.initializers.end() && !graph_input_names.count(in);
      constant_inputs.push_back(constant ? &init->second : nullptr);
    }
    for (const auto& out : node->outputs) {
      step.outputs.push_back(out.empty() ? -1 : plan->slot(out));
      if (on_device && !out.empty()) device_of_slot[step.outputs.back()] = provider->device();
    }
    if (on_device) {
      step.provider = provider->name();
      step.device = provider.get();
      step.allocator = provider->allocator();
    }
    plan->placement_.push_back(NodePlacement{node->label(),
                                             node->domain.empty() ? node->op_type : node->domain + ":" + node->op_type,
                                             provider->name(), choice.reason, false});
    if (verify_types) {
      for (const auto& out : node->outputs) {
        auto t = verify_types->find(out);
        step.static_types.push_back(out.empty() || t == verify_types->end() ? nullptr : &t->second);
      }
    }
    if (!on_device && place.types) {
      for (const auto& out : node->outputs) {
        auto t = out.empty() ? place.types->end() : place.types->find(out);
        char kind = out.empty() ? kOtherOutput : kUnknownOutput;
        if (t != place.types->end() && t->second.kind == ir::TypeInfo::Kind::kTensor &&
            t->second.elem_type != DataType::kUndefined)
          kind = t->second.elem_type == DataType::kFloat16 ? kFloat16Output : kOtherOutput;
        step.output_kinds.push_back(kind);
      }
    }

    step.kernel = def->factory();
    const Scope* scope_ptr = scope.get();
    KernelInfo info(*node, step.opset, std::move(constant_inputs),
                    [scope, scope_ptr, opsets_copy, settings](const ir::Graph& sub) -> Result<std::shared_ptr<const SubgraphPlan>> {
                      ONYX_ASSIGN_OR_RETURN(auto p, GraphPlan::build(sub, opsets_copy, scope_ptr, nullptr, nullptr, settings));
                      return std::shared_ptr<const SubgraphPlan>(std::move(p));
                    },
                    settings, on_device ? provider.get() : nullptr);
    Status st = place.dry_run ? Status::Ok() : guarded("kernel prepare", [&] { return step.kernel->prepare(info); });
    if (!st.ok())
      return std::move(st).with_context("while preparing node " + node->label() + " at opset " +
                                        std::to_string(step.opset) + (on_device ? " on " + provider->name() : ""));
    if (!place.dry_run) after_prepare(step);
    plan->steps_.push_back(std::move(step));
  }

  for (const auto& vi : graph.outputs) {
    if (vi.name.empty()) return invalid_model("graph '", graph.name, "' has an output without a name");
    if (!scope->names.count(vi.name) && !(outer && outer->contains(vi.name)))
      return invalid_model("graph output '", vi.name, "' is not defined by any node, input or initializer");
    int s = plan->slot(vi.name);
    plan->output_source_slots_.push_back(s);
    if (!single_provider) {
      ONYX_ASSIGN_OR_RETURN(s, moved_to(s, Device{}));  // outputs are returned on the host
    }
    plan->output_slots_.push_back(s);
  }
  // The copy step of an output that only the caller reads can be skipped when the caller takes
  // the output where it was produced.
  plan->output_copy_steps_.assign(plan->output_slots_.size(), -1);
  for (size_t o = 0; o < plan->output_slots_.size(); ++o) {
    const int out = plan->output_slots_[o];
    if (out == plan->output_source_slots_[o]) continue;
    int producer = -1, readers = 0;
    for (size_t k = 0; k < plan->steps_.size(); ++k) {
      const Step& step = plan->steps_[k];
      if (std::find(step.outputs.begin(), step.outputs.end(), out) != step.outputs.end()) producer = int(k);
      readers += int(std::count(step.inputs.begin(), step.inputs.end(), out));
    }
    if (readers == 0) plan->output_copy_steps_[o] = producer;
  }

  // Release each non-constant slot after its last reader; keep outputs, inputs and captures.
  std::vector<int> last_reader(plan->slot_names_.size(), -1);
  for (size_t s = 0; s < plan->steps_.size(); ++s) {
    Step& step = plan->steps_[s];
    for (int in : step.inputs)
      if (in >= 0) step.reads.push_back(in);
    for (const auto& name : node_reads(*step.node)) {  // what its subgraphs read
      if (std::find(step.node->inputs.begin(), step.node->inputs.end(), name) != step.node->inputs.end()) continue;
      auto it = plan->slot_of_.find(name);
      if (it != plan->slot_of_.end()) step.reads.push_back(it->second);
    }
    for (int in : step.reads) last_reader[size_t(in)] = int(s);
  }
  // Outputs that may be written over an input: the producing step (on the CPU) declares the
  // pair and is the input's only reader; the input is no output itself.
  plan->overwritable_inputs_.assign(plan->output_slots_.size(), -1);
  for (size_t o = 0; o < plan->output_slots_.size(); ++o) {
    const int out = plan->output_slots_[o];
    for (const Step& step : plan->steps_) {
      auto at = std::find(step.outputs.begin(), step.outputs.end(), out);
      if (at == step.outputs.end() || step.device || !step.kernel) continue;
      for (const auto& [k, j] : step.kernel->in_place_outputs()) {
        if (k != int(at - step.outputs.begin()) || j < 0 || size_t(j) >= step.inputs.size()) continue;
        const int in = step.inputs[size_t(j)];
        auto input = std::find(plan->input_slots_.begin(), plan->input_slots_.end(), in);
        if (in < 0 || input == plan->input_slots_.end()) continue;
        int readers = 0;
        for (const Step& other : plan->steps_) readers += int(std::count(other.reads.begin(), other.reads.end(), in));
        if (readers == 1 && std::count(plan->output_slots_.begin(), plan->output_slots_.end(), in) == 0)
          plan->overwritable_inputs_[o] = int(input - plan->input_slots_.begin());
      }
    }
  }
  // In-place outputs over intermediates: the input's last reader is this step, which reads it
  // once, on the CPU, and the value is no graph input, output, constant or capture.
  for (size_t s = 0; s < plan->steps_.size(); ++s) {
    Step& step = plan->steps_[s];
    if (step.device || !step.kernel) continue;
    for (const auto& [k, j] : step.kernel->in_place_outputs()) {
      if (k < 0 || j < 0 || size_t(k) >= step.outputs.size() || size_t(j) >= step.inputs.size()) continue;
      const int in = step.inputs[size_t(j)], out = step.outputs[size_t(k)];
      if (in < 0 || out < 0 || last_reader[size_t(in)] != int(s) || !plan->constants_[size_t(in)].is_none()) continue;
      if (std::count(step.reads.begin(), step.reads.end(), in) != 1) continue;
      const auto is = [&](const std::vector<int>& slots, int slot) {
        return std::find(slots.begin(), slots.end(), slot) != slots.end();
      };
      if (is(plan->input_slots_, in) || is(plan->output_slots_, in) || is(plan->captured_slots_, in)) continue;
      const bool taken = std::any_of(step.donations.begin(), step.donations.end(),
                                     [&, k = k, j = j](const auto& d) { return d.first == k || d.second == j; });
      if (!taken) step.donations.emplace_back(k, j);
    }
  }
  std::vector<bool> keep(plan->slot_names_.size(), false);
  for (int s : plan->output_slots_) keep[size_t(s)] = true;
  for (size_t s = 0; s < keep.size(); ++s)
    if (!plan->constants_[s].is_none()) keep[s] = true;
  for (size_t s = 0; s < last_reader.size(); ++s)
    if (last_reader[s] >= 0 && !keep[s]) plan->steps_[size_t(last_reader[s])].release.push_back(int(s));
  return plan;
}

std::vector<std::string> GraphPlan::recording_blockers() const {
  std::vector<std::string> out;
  for (size_t i = 0; i < host_read_inputs_.size(); ++i)
    if (host_read_inputs_[i]) out.push_back("input '" + graph_.inputs[i].name + "' is read on the host");
  for (size_t k = 0; k < steps_.size() && k < placement_.size(); ++k) {
    const bool output_copy = std::find(output_copy_steps_.begin(), output_copy_steps_.end(), int(k)) !=
                             output_copy_steps_.end();
    if (placement_[k].is_copy && placement_[k].op == "MemcpyToHost" && !output_copy)
      out.push_back(placement_[k].node + " moves a device value to the host mid-run");
  }
  return out;
}

}  // namespace onyx
