#include "training/training_graph.h"

#include <set>

#include "ops/infer_graph.h"
#include "optimizer/patch.h"
#include "training/gradient_builder.h"

namespace onyx::training {

namespace {

bool floating(DataType t) { return t == DataType::kFloat || t == DataType::kDouble || t == DataType::kFloat16; }

ir::ValueInfo tensor_info(const std::string& name, const Tensor& like) {
  ir::ValueInfo vi;
  vi.name = name;
  vi.type.kind = ir::TypeInfo::Kind::kTensor;
  vi.type.elem_type = like.dtype();
  vi.type.shape.has_rank = true;
  for (int64_t d : like.shape()) vi.type.shape.dims.push_back(Dim{d, "", ""});
  return vi;
}

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

}  // namespace

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
  ONYX_ASSIGN_OR_RETURN(out.eval, with_parameters_as_inputs(forward, spec, out.parameters, types));
  ONYX_ASSIGN_OR_RETURN(out.training, with_parameters_as_inputs(forward, spec, out.parameters, types));

  ir::Graph& g = out.training.graph;
  const ops::GraphTypes train_types = ops::infer_graph_types(g, out.training.opsets);
  ONYX_ASSIGN_OR_RETURN(std::vector<std::string> grads,
                        build_gradients(g, out.training.opsets, train_types, GradientRequest{spec.requires_grad, spec.loss, ""}));
  ir::ValueInfo reset;
  reset.name = "lazy_reset_grad";
  reset.type.kind = ir::TypeInfo::Kind::kTensor;
  reset.type.elem_type = DataType::kBool;
  reset.type.shape.has_rank = true;
  std::vector<ir::ValueInfo> buffers;
  for (size_t i = 0; i < spec.requires_grad.size(); ++i) {
    const std::string& p = spec.requires_grad[i];
    const Tensor& value = fg.initializers.at(p);
    buffers.push_back(tensor_info(p + "_grad.accumulation.buffer", value));
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
    g.outputs.push_back(tensor_info(p + "_grad.accumulation.out", value));
  }
  g.inputs.insert(g.inputs.end(), buffers.begin(), buffers.end());
  g.inputs.push_back(reset);
  ONYX_RETURN_IF_ERROR(optimizer::sort_topologically(g));
  return out;
}

}  // namespace onyx::training
