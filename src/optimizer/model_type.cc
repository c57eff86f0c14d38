#include "optimizer/model_type.h"

#include <map>
#include <unordered_map>

namespace onyx::optimizer {
namespace {

std::string op_key(const ir::Node& n) { return n.domain.empty() ? n.op_type : n.domain + ":" + n.op_type; }

FusionFamily attention() {
  FusionFamily f;
  f.name = "attention";
  f.fused_ops = {"com.microsoft:MultiHeadAttention", "com.microsoft:Attention", "com.microsoft:GroupQueryAttention",
                 "Attention"};
  f.unfused_ops = {"Softmax"};
  return f;
}

FusionFamily residual_layer_norm() {
  FusionFamily f;
  f.name = "residual add + layer normalization";
  f.fused_ops = {"com.microsoft:SkipLayerNormalization", "com.microsoft:SkipSimplifiedLayerNormalization"};
  f.add_before_layer_norm_is_unfused = true;
  return f;
}

FusionFamily layer_norm() {
  FusionFamily f;
  f.name = "layer normalization";
  f.fused_ops = {"LayerNormalization", "com.microsoft:LayerNormalization", "com.microsoft:SimplifiedLayerNormalization",
                 "com.microsoft:SkipLayerNormalization", "com.microsoft:SkipSimplifiedLayerNormalization",
                 "com.microsoft:EmbedLayerNormalization"};
  f.unfused_ops = {"ReduceMean"};
  return f;
}

FusionFamily gelu() {
  FusionFamily f;
  f.name = "gelu";
  f.fused_ops = {"com.microsoft:Gelu", "Gelu", "com.microsoft:FastGelu", "com.microsoft:BiasGelu",
                 "com.microsoft:QuickGelu"};
  f.unfused_ops = {"Erf", "Tanh"};
  return f;
}

FusionFamily conv_activation() {
  FusionFamily f;
  f.name = "convolution + activation";
  f.fused_ops = {"com.microsoft:FusedConv"};
  f.conv_before_activation_is_unfused = true;
  f.required = false;  // a network may use activations FusedConv does not take (SiLU)
  return f;
}

std::vector<ModelType> make_types() {
  const std::set<std::string> no_conv = {"conv_bn_fusion", "conv_activation_fusion"};
  std::vector<ModelType> types;
  types.push_back({"bert", {attention(), residual_layer_norm(), layer_norm(), gelu()}, no_conv,
                   {"EmbedLayerNormalization (the embedding's Gathers, Adds and LayerNormalization stay separate; "
                    "its last Add and LayerNormalization become SkipLayerNormalization)"}});
  types.push_back({"gpt2", {attention(), residual_layer_norm(), layer_norm(), gelu()}, no_conv,
                   {"the QKV projection's bias Add before the Split is not folded into the attention"}});
  types.push_back({"vit", {attention(), residual_layer_norm(), layer_norm(), gelu()}, {}, {}});
  FusionFamily unet_layer_norm = layer_norm();
  unet_layer_norm.unfused_ops.clear();  // GroupNorm decompositions use ReduceMean too
  types.push_back({"unet", {attention(), unet_layer_norm, gelu(), conv_activation()}, {},
                   {"GroupNorm and SkipGroupNorm", "BiasSplitGelu", "packed QKV / KV attention inputs", "NhwcConv"}});
  return types;
}

const std::vector<ModelType>& all_types() {
  static const std::vector<ModelType> types = make_types();
  return types;
}

bool is_layer_norm(const ir::Node& n) {
  return n.op_type == "LayerNormalization" || n.op_type == "SimplifiedLayerNormalization";
}

bool is_fusable_activation(const ir::Node& n) {
  if (!n.domain.empty()) return false;
  static const std::set<std::string> ops = {"Relu", "Sigmoid", "Tanh", "LeakyRelu", "Clip", "HardSigmoid"};
  return ops.count(n.op_type) > 0;
}

}  // namespace

Result<const ModelType*> find_model_type(const std::string& name) {
  std::string known;
  for (const ModelType& t : all_types()) {
    if (t.name == name) return &t;
    known += (known.empty() ? "" : ", ") + t.name;
  }
  return invalid_argument("unknown model type '", name, "' (onyx knows ", known, ")");
}

FusionCheck check_fusions(const ir::Graph& graph, const ModelType& type) {
  std::map<std::string, int> ops;
  for (const ir::Node& n : graph.nodes) ++ops[op_key(n)];
  // The readers of each value, for the "X whose only reader is Y" signs.
  std::unordered_map<std::string, std::vector<const ir::Node*>> readers;
  for (const ir::Node& n : graph.nodes)
    for (const std::string& in : n.inputs)
      if (!in.empty()) readers[in].push_back(&n);
  auto only_reader = [&](const ir::Node& n) -> const ir::Node* {
    if (n.outputs.size() != 1) return nullptr;
    auto it = readers.find(n.outputs[0]);
    return it != readers.end() && it->second.size() == 1 ? it->second[0] : nullptr;
  };

  FusionCheck check;
  for (const FusionFamily& f : type.families) {
    FamilyCheck c;
    c.family = &f;
    auto add_detail = [](std::string& detail, const std::string& op, int n) {
      detail += (detail.empty() ? "" : ", ") + op + " " + std::to_string(n);
    };
    for (const std::string& op : f.fused_ops)
      if (auto it = ops.find(op); it != ops.end()) {
        c.fused += it->second;
        add_detail(c.fused_detail, op, it->second);
      }
    for (const std::string& op : f.unfused_ops)
      if (auto it = ops.find(op); it != ops.end()) {
        c.unfused += it->second;
        add_detail(c.unfused_detail, op, it->second);
      }
    int adds = 0, convs = 0;
    for (const ir::Node& n : graph.nodes) {
      if (!n.domain.empty()) continue;
      const ir::Node* reader = (n.op_type == "Add" || n.op_type == "Conv") ? only_reader(n) : nullptr;
      if (!reader) continue;
      if (f.add_before_layer_norm_is_unfused && n.op_type == "Add" && is_layer_norm(*reader)) ++adds;
      if (f.conv_before_activation_is_unfused && n.op_type == "Conv" && is_fusable_activation(*reader)) ++convs;
    }
    if (adds) add_detail(c.unfused_detail, "Add before a layer normalization", adds);
    if (convs) add_detail(c.unfused_detail, "Conv before an activation", convs);
    c.unfused += adds + convs;
    check.families.push_back(std::move(c));
  }
  return check;
}

bool FusionCheck::fully_fused() const {
  for (const FamilyCheck& c : families)
    if (!c.ok()) return false;
  return true;
}

std::string FusionCheck::to_string(const ModelType& type) const {
  std::string s = "fusions expected of a " + type.name + " model:\n";
  std::string missing;
  for (const FamilyCheck& c : families) {
    s += "  " + c.family->name + ": " + std::to_string(c.fused) + " fused";
    if (c.fused) s += " (" + c.fused_detail + ")";
    s += c.unfused ? "; left unfused: " + c.unfused_detail : "; none left unfused";
    if (!c.family->required && c.fused == 0) s += " (optional for this type)";
    s += "\n";
    if (!c.ok())
      missing += (missing.empty() ? "" : "; ") + c.family->name +
                 (c.unfused ? " (" + std::to_string(c.unfused) + " left unfused)" : " (none found)");
  }
  for (const std::string& n : type.not_built) s += "  not built in onyx: " + n + "\n";
  s += missing.empty() ? "verdict: fully fused\n" : "verdict: not fully fused: " + missing + "\n";
  return s;
}

}  // namespace onyx::optimizer
