#include "training/artifacts.h"

#include <filesystem>
#include <set>

#include "onnx/writer.h"
#include "training/checkpoint.h"
#include "training/training_graph.h"

namespace onyx::training {
namespace {

constexpr const char* kLoss = "loss";

ir::Node make_node(std::string op, std::vector<std::string> inputs, std::vector<std::string> outputs,
                   std::string domain = "") {
  ir::Node n;
  n.op_type = std::move(op);
  n.domain = std::move(domain);
  n.inputs = std::move(inputs);
  n.outputs = std::move(outputs);
  n.name = "onyx_loss/" + n.op_type + "_" + n.outputs[0];
  return n;
}

ir::Attribute attr_float(const std::string& name, double v) {
  ir::Attribute a;
  a.name = name;
  a.type = ir::Attribute::Type::kFloat;
  a.f = float(v);
  return a;
}

ir::ValueInfo tensor_value(const std::string& name, DataType dtype, const Shape* shape) {
  ir::ValueInfo v;
  v.name = name;
  v.type.kind = ir::TypeInfo::Kind::kTensor;
  v.type.elem_type = dtype;
  if (shape) {
    v.type.shape.has_rank = true;
    for (int64_t d : *shape) v.type.shape.dims.push_back(Dim{d, "", ""});
  }
  return v;
}

bool floating(DataType t) { return t == DataType::kFloat || t == DataType::kDouble || t == DataType::kFloat16; }

}  // namespace

Result<LossKind> loss_kind_named(const std::string& name) {
  if (name == "MSELoss") return LossKind::kMSE;
  if (name == "CrossEntropyLoss") return LossKind::kCrossEntropy;
  if (name == "BCEWithLogitsLoss") return LossKind::kBCEWithLogits;
  if (name == "L1Loss") return LossKind::kL1;
  return invalid_argument("unknown loss '", name, "' (MSELoss, CrossEntropyLoss, BCEWithLogitsLoss, L1Loss)");
}

Result<OptimizerKind> optimizer_kind_named(const std::string& name) {
  if (name == "AdamW") return OptimizerKind::kAdamW;
  if (name == "SGD") return OptimizerKind::kSGD;
  return invalid_argument("unknown optimizer '", name, "' (AdamW, SGD)");
}

const char* optimizer_name(OptimizerKind kind) {
  switch (kind) {
    case OptimizerKind::kAdamW: return "AdamW";
    case OptimizerKind::kSGD: return "SGD";
    case OptimizerKind::kNone: break;
  }
  return "";
}

std::map<std::string, double> adamw_defaults() {
  return {{"beta1", 0.9}, {"beta2", 0.999}, {"epsilon", 1e-6}, {"weight_decay", 0.0}};
}

Result<ir::Model> append_loss(const ir::Model& forward, LossKind loss, const std::string& loss_input) {
  ir::Model m = forward;
  ir::Graph& g = m.graph;
  if (g.outputs.empty()) return invalid_argument("generate_artifacts: the model has no output for the loss to take");
  const ir::ValueInfo* out = &g.outputs[0];
  if (!loss_input.empty()) {
    out = nullptr;
    for (const ir::ValueInfo& o : g.outputs)
      if (o.name == loss_input) out = &o;
    if (!out) return invalid_argument("generate_artifacts: the loss takes a graph output, and '", loss_input, "' is not one");
  }
  const ir::ValueInfo scores = *out;
  for (const ir::ValueInfo& in : g.inputs)
    for (const char* reserved : {"labels", "target", kLoss})
      if (in.name == reserved)
        return invalid_argument("generate_artifacts: the model already has an input '", reserved,
                                "', a name the loss needs for its own");
  const std::string x = scores.name;
  if (loss == LossKind::kCrossEntropy) {
    const SymbolicShape& s = scores.type.shape;
    if (!s.has_rank || s.dims.size() < 2)
      return invalid_argument("generate_artifacts: CrossEntropyLoss needs '", x, "' of known rank >= 2 (N, C, ...), got ",
                              scores.type.to_string());
    ir::ValueInfo labels = tensor_value("labels", DataType::kInt64, nullptr);
    labels.type.shape.has_rank = true;
    labels.type.shape.dims.push_back(s.dims[0]);
    labels.type.shape.dims.insert(labels.type.shape.dims.end(), s.dims.begin() + 2, s.dims.end());
    g.inputs.push_back(labels);
    ir::Node ce = make_node("SoftmaxCrossEntropyLoss", {x, "labels"}, {kLoss});
    ir::Attribute reduction;
    reduction.name = "reduction";
    reduction.type = ir::Attribute::Type::kString;
    reduction.s = "mean";
    ce.attributes["reduction"] = reduction;
    g.nodes.push_back(std::move(ce));
  } else {
    ir::ValueInfo target = scores;
    target.name = "target";
    g.inputs.push_back(target);
    auto mean_of = [&](const std::string& v) {
      ir::Node mean = make_node("ReduceMean", {v}, {kLoss});
      ir::Attribute keep;
      keep.name = "keepdims";
      keep.type = ir::Attribute::Type::kInt;
      keep.i = 0;
      mean.attributes["keepdims"] = keep;
      return mean;
    };
    if (loss == LossKind::kMSE) {
      g.nodes.push_back(make_node("Sub", {x, "target"}, {"onyx_loss/diff"}));
      g.nodes.push_back(make_node("Mul", {"onyx_loss/diff", "onyx_loss/diff"}, {"onyx_loss/sq"}));
      g.nodes.push_back(mean_of("onyx_loss/sq"));
    } else if (loss == LossKind::kL1) {
      g.nodes.push_back(make_node("Sub", {x, "target"}, {"onyx_loss/diff"}));
      g.nodes.push_back(make_node("Abs", {"onyx_loss/diff"}, {"onyx_loss/abs"}));
      g.nodes.push_back(mean_of("onyx_loss/abs"));
    } else {  // BCEWithLogits: softplus(x) - x * t, stable for large |x|
      g.nodes.push_back(make_node("Softplus", {x}, {"onyx_loss/softplus"}));
      g.nodes.push_back(make_node("Mul", {x, "target"}, {"onyx_loss/xt"}));
      g.nodes.push_back(make_node("Sub", {"onyx_loss/softplus", "onyx_loss/xt"}, {"onyx_loss/each"}));
      g.nodes.push_back(mean_of("onyx_loss/each"));
    }
  }
  const Shape scalar;
  g.outputs = {tensor_value(kLoss, scores.type.elem_type, &scalar)};
  return m;
}

Result<ir::Model> make_optimizer_model(const std::vector<std::pair<std::string, Tensor>>& parameters,
                                       OptimizerKind optimizer, const std::map<std::string, double>& config) {
  if (optimizer == OptimizerKind::kNone) return invalid_argument("make_optimizer_model: no optimizer");
  ir::Model m;
  m.ir_version = 8;
  m.opsets = {{"", 17}, {"ai.onyx.training", 1}};
  m.producer_name = "onyx.training";
  m.metadata["onyx.optimizer"] = optimizer_name(optimizer);
  ir::Graph& g = m.graph;
  g.name = "onyx_optimizer";
  const Shape scalar;
  g.inputs = {tensor_value("learning_rate", DataType::kFloat, &scalar), tensor_value("step", DataType::kInt64, &scalar)};
  for (const auto& [p, value] : parameters) {
    if (value.dtype() != DataType::kFloat)
      return not_implemented("generate_artifacts: an optimizer for ", data_type_name(value.dtype()), " parameter '", p,
                             "' (float32 parameters only)");
    const Shape& shape = value.shape();
    g.inputs.push_back(tensor_value(p, DataType::kFloat, &shape));
    g.inputs.push_back(tensor_value(p + ".gradient", DataType::kFloat, &shape));
    if (optimizer == OptimizerKind::kSGD) {
      ir::Node mul = make_node("Mul", {p + ".gradient", "learning_rate"}, {p + "/step"});
      ir::Node sub = make_node("Sub", {p, p + "/step"}, {p + ".updated"});
      mul.name = p + "/sgd_mul";
      sub.name = p + "/sgd_sub";
      g.nodes.push_back(std::move(mul));
      g.nodes.push_back(std::move(sub));
      g.outputs.push_back(tensor_value(p + ".updated", DataType::kFloat, &shape));
      continue;
    }
    g.inputs.push_back(tensor_value(p + ".exp_avg", DataType::kFloat, &shape));
    g.inputs.push_back(tensor_value(p + ".exp_avg_sq", DataType::kFloat, &shape));
    ir::Node adamw = make_node("AdamW", {"learning_rate", "step", p, p + ".gradient", p + ".exp_avg", p + ".exp_avg_sq"},
                               {p + ".updated", p + ".exp_avg.updated", p + ".exp_avg_sq.updated"}, "ai.onyx.training");
    adamw.name = p + "/adamw";
    for (const char* key : {"beta1", "beta2", "epsilon", "weight_decay"}) {
      auto it = config.find(key);
      if (it == config.end()) return invalid_argument("make_optimizer_model: AdamW needs '", key, "'");
      adamw.attributes[key] = attr_float(key, it->second);
    }
    g.nodes.push_back(std::move(adamw));
    for (const char* suffix : {".updated", ".exp_avg.updated", ".exp_avg_sq.updated"})
      g.outputs.push_back(tensor_value(p + suffix, DataType::kFloat, &shape));
  }
  return m;
}

Result<std::vector<std::string>> generate_artifacts(const ir::Model& forward, const ArtifactsSpec& spec) {
  std::map<std::string, double> config = adamw_defaults();
  for (const auto& [key, value] : spec.optimizer_config) {
    if (!config.count(key))
      return invalid_argument("generate_artifacts: unknown optimizer setting '", key,
                              "' (AdamW takes beta1, beta2, epsilon, weight_decay)");
    config[key] = value;
  }
  std::vector<std::string> trainable;
  if (spec.requires_grad) {
    trainable = *spec.requires_grad;
  } else {
    // In the order the nodes first read them (the order a framework lists its parameters in,
    // as the IR keeps initializers by name), then any unread ones by name.
    std::set<std::string> taken(spec.frozen.begin(), spec.frozen.end());
    for (const ir::Node& n : forward.graph.nodes)  // running statistics are buffers, not parameters
      if (n.op_type == "BatchNormalization" && n.domain.empty())
        for (size_t k = 3; k < n.inputs.size() && k < 5; ++k) taken.insert(n.inputs[k]);
    const auto& inits = forward.graph.initializers;
    auto take = [&](const std::string& name) {
      auto it = inits.find(name);
      if (it != inits.end() && floating(it->second.dtype()) && taken.insert(name).second) trainable.push_back(name);
    };
    for (const ir::Node& n : forward.graph.nodes)
      for (const std::string& in : n.inputs) take(in);
    for (const auto& [name, _] : inits) take(name);
  }
  ONYX_ASSIGN_OR_RETURN(ir::Model with_loss, append_loss(forward, spec.loss, spec.loss_input));
  ONYX_ASSIGN_OR_RETURN(TrainingModels made,
                        make_training_models(with_loss, TrainingSpec{trainable, spec.frozen, kLoss, spec.additional_outputs}));
  std::vector<std::pair<std::string, std::string>> files;  // (name, bytes), written only once all are made
  ONYX_ASSIGN_OR_RETURN(std::string train_bytes, onnx_format::serialize_model(made.training));
  ONYX_ASSIGN_OR_RETURN(std::string eval_bytes, onnx_format::serialize_model(made.eval));
  files.emplace_back("training_model.onnx", std::move(train_bytes));
  files.emplace_back("eval_model.onnx", std::move(eval_bytes));
  const auto& inits = forward.graph.initializers;
  if (spec.optimizer != OptimizerKind::kNone) {
    std::vector<std::pair<std::string, Tensor>> params;
    for (const std::string& p : trainable) params.emplace_back(p, inits.at(p));
    ONYX_ASSIGN_OR_RETURN(ir::Model opt, make_optimizer_model(params, spec.optimizer, config));
    ONYX_ASSIGN_OR_RETURN(std::string opt_bytes, onnx_format::serialize_model(opt));
    files.emplace_back("optimizer_model.onnx", std::move(opt_bytes));
  }
  CheckpointState state;
  const std::set<std::string> trains(trainable.begin(), trainable.end());
  for (const std::string& p : made.parameters)
    state.parameters.push_back(TrainingParameter{p, inits.at(p), trains.count(p) > 0, Tensor()});
  state.optimizer.kind = optimizer_name(spec.optimizer);
  state.optimizer.config = config;
  ONYX_ASSIGN_OR_RETURN(std::string checkpoint_bytes, serialize_checkpoint(state, true));
  files.emplace_back("checkpoint", std::move(checkpoint_bytes));
  if (spec.nominal_checkpoint) {  // names, dtypes and shapes only: the values come later
    state.nominal = true;
    ONYX_ASSIGN_OR_RETURN(std::string nominal_bytes, serialize_checkpoint(state, true));
    files.emplace_back("nominal_checkpoint", std::move(nominal_bytes));
  }
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(spec.directory.empty() ? "." : spec.directory, ec);
  if (ec) return runtime_error("generate_artifacts: cannot make the folder '", spec.directory, "': ", ec.message());
  std::vector<std::string> written;
  for (const auto& [name, bytes] : files) {
    const std::string path = (fs::path(spec.directory.empty() ? "." : spec.directory) / (spec.prefix + name)).string();
    ONYX_RETURN_IF_ERROR(write_file_atomically(path, bytes));
    written.push_back(path);
  }
  return written;
}

}  // namespace onyx::training
