#include "training/training_graph.h"

#include <algorithm>
#include <set>
#include <unordered_map>

#include "ops/infer_graph.h"
#include "optimizer/pass.h"
#include "optimizer/pass_manager.h"
#include "optimizer/patch.h"
#include "training/attention_core_fusion.h"
#include "training/gradient_builder.h"
#include "training/product_scale_folding.h"
#include "training/transpose_folding.h"

namespace onyx::training {

namespace {

bool floating(DataType t) { return t == DataType::kFloat || t == DataType::kDouble || t == DataType::kFloat16; }

// The forward graph with the parameters moved from initializers to graph inputs (after the
// user's inputs), and the outputs replaced by the loss and the additional outputs.
Result<ir::Model> with_parameters_as_inputs(const ir::Model& forward, const TrainingSpec& spec,
                                            const std::vector<std::string>& parameters, const ops::GraphTypes& types) {
  ir::Model m = forward;
  ir::Graph& g = m.graph;
  for (const auto& p : parameters) {
    auto it = g.initializers.find(p);
    g.inputs.push_back(tensor_info(p, it->second));
    g.initializers.erase(it);
    g.external_data.erase(p);
  }
  g.outputs.clear();
  for (const std::string& name : [&] {
         std::vector<std::string> v = {spec.loss};
         v.insert(v.end(), spec.additional_outputs.begin(), spec.additional_outputs.end());
         return v;
       }()) {
    ir::ValueInfo vi;
    vi.name = name;
    if (auto t = types.all.find(name); t != types.all.end()) vi.type = t->second;
    g.outputs.push_back(std::move(vi));
  }
  return m;
}

// The eval model computes as inference does: BatchNormalization from its running statistics
// (training_mode 0, the statistics outputs dropped) and Dropout off (its training_mode input a
// constant false).
Status to_inference_mode(ir::Model& m) {
  ir::Graph& g = m.graph;
  bool need_false = false;
  for (auto& n : g.nodes) {
    if (n.op_type == "BatchNormalization" && n.domain.empty()) {
      if (auto it = n.attributes.find("training_mode"); it != n.attributes.end()) it->second.i = 0;
      if (n.outputs.size() > 1) n.outputs.resize(1);
    } else if (n.op_type == "Dropout" && n.domain.empty() && n.inputs.size() > 2 && !n.inputs[2].empty()) {
      n.inputs[2] = "onyx_eval/training_mode_false";
      need_false = true;
    }
  }
  if (need_false) {
    Tensor f(DataType::kBool, Shape{});
    f.data<bool>()[0] = false;
    g.initializers.emplace("onyx_eval/training_mode_false", std::move(f));
  }
  return Status::Ok();
}

// The GatherGrad node that makes `grad` when nothing else reads it (an embedding's gradient
// that the accumulation can fold into); null otherwise.
ir::Node* sole_gather_grad_producer(ir::Graph& g, const std::string& grad) {
  ir::Node* producer = nullptr;
  for (ir::Node& n : g.nodes) {
    if (std::find(n.inputs.begin(), n.inputs.end(), grad) != n.inputs.end()) return nullptr;
    for (const std::string& o : n.outputs)
      if (o == grad) producer = &n;
  }
  for (const ir::ValueInfo& o : g.outputs)
    if (o.name == grad) return nullptr;
  if (!producer || producer->op_type != "GatherGrad" || producer->domain != "ai.onyx.training" ||
      producer->inputs.size() != 3)
    return nullptr;
  return producer;
}

}  // namespace

namespace {

// Moves graph.nodes[first..] each to just after the last node producing one of its inputs
// (keeping their order among themselves). Runs follow the file's order among ready nodes, so
// a gradient's accumulation then runs as soon as the gradient exists and its temporary is
// released there, instead of every parameter's gradient living until the end of the pass.
void place_after_producers(ir::Graph& g, size_t first) {
  std::unordered_map<std::string, size_t> producer;  // value -> index of its producer below `first`
  for (size_t i = 0; i < first; ++i)
    for (const std::string& o : g.nodes[i].outputs) producer[o] = i;
  std::unordered_map<std::string, std::ptrdiff_t> moved_anchor;  // value made by a moved node -> its anchor
  std::vector<std::vector<ir::Node>> after(first + 1);              // after[a + 1]: placed after node a
  for (size_t m = first; m < g.nodes.size(); ++m) {
    std::ptrdiff_t anchor = -1;
    for (const std::string& in : g.nodes[m].inputs) {
      if (auto it = producer.find(in); it != producer.end()) anchor = std::max(anchor, std::ptrdiff_t(it->second));
      if (auto it = moved_anchor.find(in); it != moved_anchor.end()) anchor = std::max(anchor, it->second);
    }
    for (const std::string& o : g.nodes[m].outputs) moved_anchor[o] = anchor;
    after[size_t(anchor + 1)].push_back(std::move(g.nodes[m]));
  }
  std::vector<ir::Node> placed;
  placed.reserve(g.nodes.size());
  for (ir::Node& n : after[0]) placed.push_back(std::move(n));
  for (size_t i = 0; i < first; ++i) {
    placed.push_back(std::move(g.nodes[i]));
    for (ir::Node& n : after[i + 1]) placed.push_back(std::move(n));
  }
  g.nodes = std::move(placed);
}

}  // namespace

// Simplifies a model whose parameters are graph inputs (so nothing folds them away) before
// the gradients are built: the simplify phase (constant folding, Constant to initializer,
// shape folding, dead nodes, Identity, Casts) makes the shapes of exported shape arithmetic
// static, so the gradient builder can undo broadcasting statically instead of with run-time
// shape logic; then the exported GELU patterns (erf and tanh forms) are fused into
// com.microsoft Gelu and FastGelu, whose gradient is one GeluGrad node that keeps only X for
// the backward pass. `keep` names values that must survive (BatchNormalization's running-stat
// outputs); they are graph outputs while the passes run. `onyx_ops`: also fuse attention cores
// into onyx's AttentionCore and fold bias Adds into onyx's own FusedMatMulBias (the training
// model only: the eval model may leave onyx). The model
// is left as it was when anything fails.
void simplify_for_training(ir::Model& m, const std::vector<std::string>& keep, bool onyx_ops) {
  std::vector<std::shared_ptr<const optimizer::Pass>> fusions;
  for (const optimizer::PassDef& def : optimizer::PassRegistry::global().all())
    if (def.pass->name() == "gelu_fusion" || def.pass->name() == "fast_gelu_fusion") fusions.push_back(def.pass);
  ir::Model work = m;
  const size_t outputs = work.graph.outputs.size();
  for (const std::string& name : keep) {
    ir::ValueInfo vi;
    vi.name = name;
    work.graph.outputs.push_back(std::move(vi));
  }
  ops::GraphTypes types = ops::infer_graph_types(work.graph, work.opsets);
  optimizer::PassManager manager({{optimizer::Phase::kSimplify, optimizer::PassRegistry::global().phase(optimizer::Phase::kSimplify)},
                                  {optimizer::Phase::kFuse, fusions}});
  auto report = manager.run(work, types, /*log_level=*/3);
  if (!report.ok() || !report->skipped.empty()) return;
  if (onyx_ops) fuse_attention_cores(work);
  fold_transposes_into_products(work, /*fold_biases=*/onyx_ops);
  fold_scales_into_products(work);
  work.graph.outputs.resize(outputs);
  m = std::move(work);
}

// Sum(a, GatherGrad(dY, indices, data)) -> GatherGrad(dY, indices, data, a, false): an
// embedding whose table is also read elsewhere (a language model's tied output projection)
// gets its rows added to the other gradient, written over it (GatherGrad's in-place output),
// instead of a dense zero table of its own and a third table for the sum.
void fold_gather_grads_into_sums(ir::Graph& g) {
  std::unordered_map<std::string, int> readers;
  for (const ir::Node& n : g.nodes)
    for (const std::string& in : n.inputs) ++readers[in];
  for (const ir::ValueInfo& o : g.outputs) ++readers[o.name];
  std::unordered_map<std::string, size_t> producer;
  for (size_t i = 0; i < g.nodes.size(); ++i)
    for (const std::string& o : g.nodes[i].outputs) producer[o] = i;
  const std::string kFalse = "onyx.training.false";
  std::vector<size_t> dead;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    ir::Node& sum = g.nodes[i];
    if (sum.op_type != "Sum" || !sum.domain.empty() || sum.inputs.size() != 2 || sum.outputs.size() != 1) continue;
    for (int side = 0; side < 2; ++side) {
      auto it = producer.find(sum.inputs[size_t(side)]);
      if (it == producer.end() || readers[sum.inputs[size_t(side)]] != 1) continue;
      const ir::Node& gather_grad = g.nodes[it->second];
      if (gather_grad.op_type != "GatherGrad" || gather_grad.domain != "ai.onyx.training" ||
          gather_grad.inputs.size() != 3 || sum.inputs[size_t(1 - side)] == sum.inputs[size_t(side)])
        continue;
      ir::Node folded = gather_grad;
      folded.inputs.push_back(sum.inputs[size_t(1 - side)]);
      folded.inputs.push_back(kFalse);
      folded.outputs = sum.outputs;
      folded.name = sum.name.empty() ? gather_grad.name : sum.name;
      dead.push_back(it->second);
      sum = std::move(folded);  // at the Sum's place: both its inputs exist there
      break;
    }
  }
  if (dead.empty()) return;
  std::sort(dead.begin(), dead.end());
  for (auto d = dead.rbegin(); d != dead.rend(); ++d) g.nodes.erase(g.nodes.begin() + std::ptrdiff_t(*d));
  if (!g.initializers.count(kFalse)) {
    Tensor no(DataType::kBool, Shape{});
    *no.data<bool>() = false;
    g.initializers.emplace(kFalse, std::move(no));
  }
}


ir::ValueInfo tensor_info(const std::string& name, const Tensor& like) {
  ir::ValueInfo vi;
  vi.name = name;
  vi.type.kind = ir::TypeInfo::Kind::kTensor;
  vi.type.elem_type = like.dtype();
  vi.type.shape.has_rank = true;
  for (int64_t d : like.shape()) vi.type.shape.dims.push_back(Dim{d, "", ""});
  return vi;
}

Result<TrainingModels> make_training_models(const ir::Model& forward, const TrainingSpec& spec) {
  const ir::Graph& fg = forward.graph;
  std::set<std::string> seen;
  for (const auto* list : {&spec.requires_grad, &spec.frozen})
    for (const auto& name : *list) {
      auto it = fg.initializers.find(name);
      if (it == fg.initializers.end())
        return invalid_argument("training: '", name, "' is not an initializer of the model, so it cannot be ",
                                list == &spec.frozen ? "a frozen parameter" : "trained (requires_grad)");
      if (!floating(it->second.dtype()))
        return invalid_argument("training: parameter '", name, "' is ", it->second.describe(), ", not floating");
      if (!seen.insert(name).second) return invalid_argument("training: parameter '", name, "' is listed twice");
    }
  if (spec.requires_grad.empty()) return invalid_argument("training: no parameter requires a gradient");
  const ops::GraphTypes types = ops::infer_graph_types(fg, forward.opsets);
  auto loss_type = types.all.find(spec.loss);
  if (loss_type == types.all.end()) return invalid_argument("training: the model has no value '", spec.loss, "' for the loss");
  const SymbolicShape& ls = loss_type->second.shape;
  bool scalar = ls.has_rank;
  for (const Dim& d : ls.dims) scalar = scalar && d.value && *d.value == 1;
  if (!scalar)
    return invalid_argument("training: the loss '", spec.loss, "' must be a scalar, but it is ",
                            loss_type->second.to_string());
  for (const auto& name : spec.additional_outputs)
    if (!types.all.count(name)) return invalid_argument("training: the model has no value '", name, "' to return");

  TrainingModels out;
  out.parameters = spec.requires_grad;
  out.parameters.insert(out.parameters.end(), spec.frozen.begin(), spec.frozen.end());
  // Running statistics that training-mode BatchNormalization nodes update: fed like frozen
  // parameters, and their new values returned as "<name>.updated" by the training model.
  std::vector<std::pair<std::string, std::string>> running;  // (initializer, the node output with its update)
  for (const auto& n : fg.nodes) {
    const ir::Attribute* mode = n.attribute("training_mode");
    if (n.op_type != "BatchNormalization" || !n.domain.empty() || !mode || mode->i == 0) continue;
    for (size_t k = 1; k < 3; ++k) {
      if (n.outputs.size() <= k || n.outputs[k].empty() || n.inputs.size() <= k + 2) continue;
      const std::string& stat = n.inputs[k + 2];
      if (!fg.initializers.count(stat) || seen.count(stat)) continue;
      seen.insert(stat);
      out.parameters.push_back(stat);
      running.emplace_back(stat, n.outputs[k]);
    }
  }
  out.buffers.reserve(running.size());
  for (const auto& r : running) out.buffers.push_back(r.first);
  ONYX_ASSIGN_OR_RETURN(out.eval, with_parameters_as_inputs(forward, spec, out.parameters, types));
  ONYX_ASSIGN_OR_RETURN(out.training, with_parameters_as_inputs(forward, spec, out.parameters, types));
  ONYX_RETURN_IF_ERROR(to_inference_mode(out.eval));
  simplify_for_training(out.eval, {}, /*onyx_ops=*/false);  // it may be exported for other runtimes
  std::vector<std::string> running_updates;
  for (const auto& r : running) running_updates.push_back(r.second);
  simplify_for_training(out.training, running_updates, /*onyx_ops=*/true);

  ir::Graph& g = out.training.graph;
  out.training.opsets.emplace("ai.onyx.training", 1);  // gradient rules may emit onyx's training ops
  out.training.opsets.emplace("com.microsoft", 1);     // and contrib ops (FusedMatMul)
  const ops::GraphTypes train_types = ops::infer_graph_types(g, out.training.opsets);
  ONYX_ASSIGN_OR_RETURN(std::vector<std::string> grads,
                        build_gradients(g, out.training.opsets, train_types, GradientRequest{spec.requires_grad, spec.loss, "", {}}));
  fold_gather_grads_into_sums(g);
  ir::ValueInfo reset;
  reset.name = "lazy_reset_grad";
  reset.type.kind = ir::TypeInfo::Kind::kTensor;
  reset.type.elem_type = DataType::kBool;
  reset.type.shape.has_rank = true;
  std::vector<ir::ValueInfo> buffers;
  const size_t accumulations_start = g.nodes.size();
  for (size_t i = 0; i < spec.requires_grad.size(); ++i) {
    const std::string& p = spec.requires_grad[i];
    const Tensor& value = fg.initializers.at(p);
    buffers.push_back(tensor_info(p + "_grad.accumulation.buffer", value));
    ir::Node* gather_grad = sole_gather_grad_producer(g, grads[i]);
    if (gather_grad) {
      // An embedding's gradient accumulates where GatherGrad scatters: only the gathered rows
      // are touched (the state's gradient is cleared once when resetting).
      gather_grad->inputs.resize(3);
      gather_grad->inputs.push_back(buffers.back().name);
      gather_grad->inputs.push_back("lazy_reset_grad");
      gather_grad->outputs = {p + "_grad.accumulation.out"};
    } else if (value.dtype() == DataType::kFloat || value.dtype() == DataType::kDouble) {
      // onyx's kernel: one pass, and none at all when resetting (the output is the gradient)
      ir::Node acc;
      acc.op_type = "GradAccumulate";
      acc.domain = "ai.onyx.training";
      acc.name = p + "_grad.accumulation/accumulate";
      acc.inputs = {buffers.back().name, grads[i], "lazy_reset_grad"};
      acc.outputs = {p + "_grad.accumulation.out"};
      g.nodes.push_back(std::move(acc));
    } else {
      ir::Node add;
      add.op_type = "Add";
      add.name = p + "_grad.accumulation/add";
      add.inputs = {buffers.back().name, grads[i]};
      add.outputs = {p + "_grad.accumulation/sum"};
      ir::Node pick;
      pick.op_type = "Where";
      pick.name = p + "_grad.accumulation/select";
      pick.inputs = {"lazy_reset_grad", grads[i], add.outputs[0]};
      pick.outputs = {p + "_grad.accumulation.out"};
      g.nodes.push_back(std::move(add));
      g.nodes.push_back(std::move(pick));
    }
    g.outputs.push_back(tensor_info(p + "_grad.accumulation.out", value));
  }
  for (const auto& [stat, update] : running) {
    ir::Node id;
    id.op_type = "Identity";
    id.name = stat + ".updated/identity";
    id.inputs = {update};
    id.outputs = {stat + ".updated"};
    g.nodes.push_back(std::move(id));
    g.outputs.push_back(tensor_info(stat + ".updated", fg.initializers.at(stat)));
  }
  place_after_producers(g, accumulations_start);
  g.inputs.insert(g.inputs.end(), buffers.begin(), buffers.end());
  g.inputs.push_back(reset);
  ONYX_RETURN_IF_ERROR(optimizer::sort_topologically(g));
  return out;
}

}  // namespace onyx::training
