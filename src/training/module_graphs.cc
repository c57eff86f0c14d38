#include "training/module_graphs.h"

#include <algorithm>
#include <optional>
#include <set>
#include <unordered_map>

#include "ops/infer_graph.h"
#include "optimizer/graph_index.h"
#include "training/gradient_builder.h"
#include "training/training_graph.h"

namespace onyx::training {
namespace {

bool floating(DataType t) {
  return t == DataType::kFloat || t == DataType::kDouble || t == DataType::kFloat16 || t == DataType::kBFloat16;
}

ir::ValueInfo typed(const std::string& name, const ops::GraphTypes& types) {
  ir::ValueInfo vi;
  vi.name = name;
  if (auto t = types.all.find(name); t != types.all.end()) vi.type = t->second;
  return vi;
}

ir::Node identity(const std::string& from, const std::string& to) {
  ir::Node n;
  n.op_type = "Identity";
  n.name = to + "/identity";
  n.inputs = {from};
  n.outputs = {to};
  return n;
}

// The initializers `nodes` read (subgraph captures included), copied from `all`.
std::map<std::string, Tensor> initializers_read(const std::vector<ir::Node>& nodes, const ir::Graph& all) {
  std::map<std::string, Tensor> out;
  for (const ir::Node& n : nodes)
    for (const std::string& v : optimizer::node_reads(n))
      if (auto it = all.initializers.find(v); it != all.initializers.end()) out.emplace(v, it->second);
  return out;
}

// PyTorch updates a running variance with the unbiased variance of the batch, ONNX's
// BatchNormalization with the biased one. From the node's update
//   new = m old + (1 - m) var_biased
// this writes `updated` = m old + (new - m old) n / (n - 1) = m old + (1 - m) var_unbiased,
// with n = the elements per channel (size of X / size of scale) and m the node's momentum.
Status unbiased_variance_update(ir::Graph& g, const ir::Node& bn, const std::string& old, const std::string& updated) {
  auto stat = g.inputs.end();
  for (auto it = g.inputs.begin(); it != g.inputs.end(); ++it)
    if (it->name == old) stat = it;
  if (stat == g.inputs.end()) return invalid_argument("ORTModule: running statistic '", old, "' is not fed");
  const DataType dtype = stat->type.elem_type;
  const ir::Attribute* ma = bn.attribute("momentum");
  const double momentum = ma ? ma->f : 0.9;
  const std::string base = updated + "/unbiased";
  auto scalar = [&](const std::string& name, double v) -> Status {
    Tensor t(dtype, Shape{});
    if (dtype == DataType::kFloat) {
      *t.data<float>() = float(v);
    } else if (dtype == DataType::kDouble) {
      *t.data<double>() = v;
    } else {
      return not_implemented("ORTModule: a ", data_type_name(dtype), " running variance");
    }
    g.initializers.emplace(name, std::move(t));
    return Status::Ok();
  };
  ONYX_RETURN_IF_ERROR(scalar(base + "/momentum", momentum));
  ONYX_RETURN_IF_ERROR(scalar(base + "/one", 1.0));
  auto add = [&](const std::string& op, std::vector<std::string> inputs, const std::string& output,
                 std::map<std::string, ir::Attribute> attributes = {}) {
    ir::Node n;
    n.op_type = op;
    n.name = output + "/" + op;
    n.inputs = std::move(inputs);
    n.outputs = {output};
    n.attributes = std::move(attributes);
    g.nodes.push_back(std::move(n));
    return output;
  };
  ir::Attribute to;
  to.name = "to";
  to.type = ir::Attribute::Type::kInt;
  to.i = int64_t(dtype);
  const std::string x_size = add("Cast", {add("Size", {bn.inputs[0]}, base + "/x_size64")}, base + "/x_size", {{"to", to}});
  const std::string c_size = add("Cast", {add("Size", {bn.inputs[1]}, base + "/c_size64")}, base + "/c_size", {{"to", to}});
  const std::string n = add("Div", {x_size, c_size}, base + "/n");
  const std::string factor = add("Div", {n, add("Sub", {n, base + "/one"}, base + "/n_minus_1")}, base + "/factor");
  const std::string kept = add("Mul", {old, base + "/momentum"}, base + "/kept");
  const std::string fresh = add("Mul", {add("Sub", {bn.outputs[2], kept}, base + "/fresh_biased"), factor}, base + "/fresh");
  add("Add", {kept, fresh}, updated);
  return Status::Ok();
}

}  // namespace

Result<ModuleGraphs> make_module_graphs(const ir::Model& exported, const ModuleGraphSpec& spec) {
  ir::Model m = exported;
  ir::Graph& g = m.graph;
  // An export without parameters (torch.onnx.export(export_params=False)) lists parameters and
  // buffers among its graph inputs. Buffers become the initializers an export with parameters
  // holds; parameters leave the input list and come back after the module's inputs, in the
  // spec's order.
  std::set<std::string> params(spec.trainable.begin(), spec.trainable.end());
  params.insert(spec.frozen.begin(), spec.frozen.end());
  std::map<std::string, ir::ValueInfo> param_inputs;
  std::vector<ir::ValueInfo> module_inputs;
  for (const ir::ValueInfo& vi : g.inputs) {
    if (auto buffer = spec.buffers.find(vi.name); buffer != spec.buffers.end()) {
      if (vi.type.kind != ir::TypeInfo::Kind::kTensor || vi.type.elem_type != buffer->second.dtype())
        return invalid_argument("ORTModule: buffer '", vi.name, "' is ", buffer->second.describe(),
                                " where the export declares another type");
      g.initializers[vi.name] = buffer->second;
    } else if (params.count(vi.name)) {
      param_inputs.emplace(vi.name, vi);
    } else {
      module_inputs.push_back(vi);
    }
  }
  g.inputs = std::move(module_inputs);

  std::set<std::string> graph_inputs;
  for (const ir::ValueInfo& vi : g.inputs) graph_inputs.insert(vi.name);
  ModuleGraphs out;
  for (const std::string& x : spec.inputs_requiring_grad)
    if (graph_inputs.count(x)) out.inputs_requiring_grad.push_back(x);  // the export drops unread inputs
  std::set<std::string> seen;
  for (auto [names, kept] : {std::pair{&spec.trainable, &out.trainable}, std::pair{&spec.frozen, &out.frozen}})
    for (const std::string& p : *names) {
      DataType dtype = DataType::kUndefined;
      if (auto it = g.initializers.find(p); it != g.initializers.end()) {
        dtype = it->second.dtype();
      } else if (auto in = param_inputs.find(p); in != param_inputs.end()) {
        if (in->second.type.kind != ir::TypeInfo::Kind::kTensor)
          return invalid_argument("ORTModule: parameter '", p, "' is not a tensor input of the export");
        dtype = in->second.type.elem_type;
      } else {
        continue;  // the export dropped it: nothing reads it
      }
      if (!floating(dtype))
        return invalid_argument("ORTModule: parameter '", p, "' is ", data_type_name(dtype), ", not a floating type");
      if (!seen.insert(p).second) return invalid_argument("ORTModule: parameter '", p, "' is named twice");
      kept->push_back(p);
    }

  for (const ir::ValueInfo& vi : g.inputs) out.forward_inputs.push_back(vi.name);
  for (const ir::ValueInfo& vi : g.outputs) out.outputs.push_back(vi.name);
  // Running statistics of training-mode BatchNormalization: fed like frozen parameters, their
  // updates returned after the module's outputs.
  std::vector<std::pair<std::string, std::string>> running;  // (initializer, the output with its update)
  for (const ir::Node& n : g.nodes) {
    const ir::Attribute* mode = n.attribute("training_mode");
    if (n.op_type != "BatchNormalization" || !n.domain.empty() || !mode || mode->i == 0) continue;
    for (size_t k = 1; k < 3; ++k) {
      if (n.outputs.size() <= k || n.outputs[k].empty() || n.inputs.size() <= k + 2) continue;
      const std::string& stat = n.inputs[k + 2];
      if (!g.initializers.count(stat) || !seen.insert(stat).second) continue;
      running.emplace_back(stat, n.outputs[k]);
      out.running_statistics.push_back(stat);
    }
  }
  std::vector<std::string> fed = out.trainable;
  fed.insert(fed.end(), out.frozen.begin(), out.frozen.end());
  fed.insert(fed.end(), out.running_statistics.begin(), out.running_statistics.end());
  for (const std::string& p : fed) {
    if (auto in = param_inputs.find(p); in != param_inputs.end()) {
      g.inputs.push_back(in->second);
    } else {
      auto it = g.initializers.find(p);
      g.inputs.push_back(tensor_info(p, it->second));
      g.initializers.erase(it);
      g.external_data.erase(p);
    }
    out.forward_inputs.push_back(p);
  }
  std::vector<std::string> updates;
  for (const auto& [stat, update] : running) updates.push_back(update);
  simplify_for_training(m, updates, /*onyx_ops=*/true);
  m.opsets.emplace("ai.onyx.training", 1);  // gradient rules may emit onyx's training ops
  m.opsets.emplace("com.microsoft", 1);     // and contrib ops (FusedMatMul)
  for (const auto& [stat, update] : running) {
    std::optional<ir::Node> bn;  // a copy: the update appends to g.nodes
    for (const ir::Node& n : g.nodes)
      if (n.op_type == "BatchNormalization" && n.outputs.size() > 2 && n.outputs[2] == update) bn = n;
    if (bn) {
      ONYX_RETURN_IF_ERROR(unbiased_variance_update(g, *bn, stat, stat + ".updated"));
    } else {
      g.nodes.push_back(identity(update, stat + ".updated"));
    }
  }

  // The gradients: one seed input per floating output.
  std::vector<std::string> xs = out.inputs_requiring_grad;
  xs.insert(xs.end(), out.trainable.begin(), out.trainable.end());
  ops::GraphTypes types = ops::infer_graph_types(g, m.opsets);
  std::vector<ir::ValueInfo> seeds;
  GradientRequest request;
  request.xs = xs;
  for (const std::string& o : out.outputs) {
    ir::ValueInfo vi = typed(o, types);
    if (xs.empty() || vi.type.kind != ir::TypeInfo::Kind::kTensor || !floating(vi.type.elem_type)) {
      out.output_grads.push_back("");
      continue;
    }
    // One seed per output position: a value the module returns twice gets two, which the
    // builder sums.
    vi.name = o + "_grad";
    for (int k = 1; std::find(out.output_grads.begin(), out.output_grads.end(), vi.name) != out.output_grads.end(); ++k)
      vi.name = o + "_grad_" + std::to_string(k);
    out.output_grads.push_back(vi.name);
    if (request.y.empty()) {
      request.y = o;
      request.seed = vi.name;
    } else {
      request.more_ys.emplace_back(o, vi.name);
    }
    seeds.push_back(std::move(vi));
  }
  if (!xs.empty() && request.y.empty())
    return invalid_argument("ORTModule: gradients were asked for, but the module has no floating output");
  std::vector<std::string> grads;
  if (!xs.empty()) {
    g.inputs.insert(g.inputs.end(), seeds.begin(), seeds.end());
    ONYX_ASSIGN_OR_RETURN(grads, build_gradients(g, m.opsets, types, request));
    fold_gather_grads_into_sums(g);
    types = ops::infer_graph_types(g, m.opsets);
  }
  // StopGradient has done its work in the builder: from here on it is an Identity.
  for (ir::Node& n : g.nodes)
    if (n.domain == "ai.onyx.training" && n.op_type == "StopGradient") {
      n.domain.clear();
      n.op_type = "Identity";
      n.attributes.clear();
    }

  // Forward: the nodes the outputs and the statistics' updates need.
  std::set<std::string> needed(out.outputs.begin(), out.outputs.end());
  for (const auto& [stat, update] : running) needed.insert(stat + ".updated");
  std::vector<bool> in_forward(g.nodes.size(), false);
  for (size_t i = g.nodes.size(); i-- > 0;) {
    const ir::Node& n = g.nodes[i];
    if (std::none_of(n.outputs.begin(), n.outputs.end(), [&](const std::string& o) { return needed.count(o) > 0; }))
      continue;
    in_forward[i] = true;
    for (const std::string& v : optimizer::node_reads(n)) needed.insert(v);
  }
  std::unordered_map<std::string, bool> made_forward;  // value -> produced by a forward node
  std::vector<ir::Node> fwd, bwd;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    for (const std::string& o : g.nodes[i].outputs) made_forward[o] = in_forward[i];
    (in_forward[i] ? fwd : bwd).push_back(g.nodes[i]);
  }
  for (size_t k = 0; k < grads.size(); ++k) bwd.push_back(identity(grads[k], xs[k] + "_grad"));

  // What crosses: forward values and forward inputs the backward nodes read.
  std::set<std::string> crossing;
  std::set<std::string> fwd_input_set(out.forward_inputs.begin(), out.forward_inputs.end());
  for (const ir::Node& n : bwd)
    for (const std::string& v : optimizer::node_reads(n)) {
      if (crossing.count(v)) continue;
      if (auto it = made_forward.find(v); it != made_forward.end() && it->second) {
        crossing.insert(v);
        out.stashed.push_back(v);
      } else if (fwd_input_set.count(v)) {
        crossing.insert(v);
        out.backward_forward_inputs.push_back(v);
      }
    }
  // Inputs in the forward graph's order.
  std::sort(out.backward_forward_inputs.begin(), out.backward_forward_inputs.end(),
            [&](const std::string& a, const std::string& b) {
              return std::find(out.forward_inputs.begin(), out.forward_inputs.end(), a) <
                     std::find(out.forward_inputs.begin(), out.forward_inputs.end(), b);
            });

  ir::Model forward = m;
  forward.graph.nodes = fwd;
  forward.graph.initializers = initializers_read(fwd, g);
  forward.graph.inputs.resize(out.forward_inputs.size());  // no seeds
  forward.graph.outputs.clear();
  for (const std::string& o : out.outputs) forward.graph.outputs.push_back(typed(o, types));
  for (const std::string& stat : out.running_statistics) forward.graph.outputs.push_back(typed(stat + ".updated", types));
  // A stashed value that is also a module output leaves twice: the second time under a name
  // of its own (an Identity, which shares the tensor), since outputs are told apart by name.
  const std::set<std::string> module_outputs(out.outputs.begin(), out.outputs.end());
  for (const std::string& s : out.stashed) {
    ir::ValueInfo vi = typed(s, types);
    if (module_outputs.count(s)) {
      vi.name = s + "/stashed";
      forward.graph.nodes.push_back(identity(s, vi.name));
    }
    forward.graph.outputs.push_back(std::move(vi));
  }
  forward.graph.external_data.clear();
  for (const auto& [name, ref] : g.external_data)
    if (forward.graph.initializers.count(name)) forward.graph.external_data.emplace(name, ref);

  ir::Model backward = m;
  backward.graph.nodes = bwd;
  backward.graph.initializers = initializers_read(bwd, g);
  backward.graph.external_data.clear();
  for (const auto& [name, ref] : g.external_data)
    if (backward.graph.initializers.count(name)) backward.graph.external_data.emplace(name, ref);
  backward.graph.inputs.clear();
  for (const std::string& s : out.stashed) backward.graph.inputs.push_back(typed(s, types));
  for (const std::string& v : out.backward_forward_inputs) {
    auto it = std::find_if(g.inputs.begin(), g.inputs.end(), [&](const ir::ValueInfo& vi) { return vi.name == v; });
    backward.graph.inputs.push_back(*it);
  }
  backward.graph.inputs.insert(backward.graph.inputs.end(), seeds.begin(), seeds.end());
  backward.graph.outputs.clear();
  for (const std::string& x : xs) {
    out.gradients.push_back(x + "_grad");
    backward.graph.outputs.push_back(typed(grads.empty() ? x : grads[&x - xs.data()], types));
    backward.graph.outputs.back().name = x + "_grad";
  }
  out.forward = std::move(forward);
  out.backward = std::move(backward);
  return out;
}

}  // namespace onyx::training
