#include "optimizer/float16_conversion.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

#include "ops/infer_graph.h"
#include "optimizer/graph_index.h"
#include "optimizer/pass_manager.h"

namespace onyx::optimizer {
namespace {

constexpr float kFloat16Max = 65504.0f;
constexpr int64_t kOnnxFloat = 1, kOnnxFloat16 = 10;

// Inputs that stay float32 even in a float16 node (their type constraint is float32 only).
const std::map<std::string, std::set<size_t>> kFloat32Inputs = {{"Resize", {2}}, {"Upsample", {1}}};

class Converter {
 public:
  Converter(ir::Model& model, const Float16Options& options) : model_(model), g_(model.graph), options_(options) {
    types_ = ops::infer_graph_types(g_, model.opsets);
    for (const auto& vi : g_.inputs) inputs_.insert(vi.name);
    for (const auto& vi : g_.outputs) outputs_.insert(vi.name);
    for (const auto& n : g_.nodes) {
      names_.insert(n.outputs.begin(), n.outputs.end());
      names_.insert(n.name);
      for (const auto& o : n.outputs) producer_[o] = &n;
    }
    names_.insert(inputs_.begin(), inputs_.end());
    for (const auto& [name, t] : g_.initializers) names_.insert(name);
  }

  Result<Float16Report> run() {
    std::vector<ir::Node> original = std::move(g_.nodes);
    g_.nodes.clear();
    // Graph inputs that become float16 (no keep_io_types): typed float16 from the start.
    if (!options_.keep_io_types)
      for (auto& vi : g_.inputs)
        if (is_f32(vi.name) && !g_.initializers.count(vi.name)) vi.type.elem_type = DataType::kFloat16;
    for (const ir::Node& n : original) {
      const bool convert = converted(n);
      ir::Node out = n;
      for (size_t i = 0; i < out.inputs.size(); ++i) {
        const std::string& v = n.inputs[i];
        if (v.empty() || !is_f32(v)) continue;
        const bool want16 = convert && !(kFloat32Inputs.count(n.op_type) && kFloat32Inputs.at(n.op_type).count(i));
        out.inputs[i] = as(v, want16);
      }
      if (convert) {
        convert_attributes(out);
        ++report_.converted_nodes;
      } else {
        ++report_.kept_nodes;
      }
      g_.nodes.push_back(std::move(out));
    }
    // Graph outputs: float16 ones are declared so, or cast back with keep_io_types.
    for (auto& vi : g_.outputs) {
      if (!is_f32(vi.name) || !is16(vi.name)) continue;
      if (!options_.keep_io_types) {
        vi.type.elem_type = DataType::kFloat16;
        continue;
      }
      const std::string half = fresh(vi.name + "_fp16");
      for (auto& n : g_.nodes)
        for (auto& o : n.outputs)
          if (o == vi.name) o = half;
      for (auto& n : g_.nodes)
        for (auto& in : n.inputs)
          if (in == vi.name) in = half;
      add_cast(half, vi.name, kOnnxFloat);
    }
    // Stale declared types of the values that changed.
    std::erase_if(g_.value_infos, [&](const ir::ValueInfo& vi) { return is_f32(vi.name); });
    prune_unused(g_);
    return report_;
  }

 private:
  bool is_f32(const std::string& v) const {
    auto it = types_.all.find(v);
    return it != types_.all.end() && it->second.kind == ir::TypeInfo::Kind::kTensor &&
           it->second.elem_type == DataType::kFloat;
  }
  bool converted(const ir::Node& n) const {
    return !options_.op_block_list.count(n.op_type) && !options_.node_block_list.count(n.name) && !has_subgraph(n);
  }
  // Whether float32 value v is float16 where it is made.
  bool is16(const std::string& v) const {
    if (g_.initializers.count(v) && !inputs_.count(v)) return false;  // converted per reader, below
    if (inputs_.count(v)) return !options_.keep_io_types && !g_.initializers.count(v);
    auto p = producer_.find(v);
    return p != producer_.end() && converted(*p->second);
  }

  std::string fresh(const std::string& base) {
    std::string name = base;
    for (int i = 1; names_.count(name); ++i) name = base + "_" + std::to_string(i);
    names_.insert(name);
    return name;
  }

  void add_cast(const std::string& from, const std::string& to, int64_t type) {
    ir::Node c;
    c.op_type = "Cast";
    c.name = fresh(to + "_Cast");
    c.inputs = {from};
    c.outputs = {to};
    ir::Attribute a;
    a.name = "to";
    a.type = ir::Attribute::Type::kInt;
    a.i = type;
    c.attributes["to"] = a;
    g_.nodes.push_back(std::move(c));
    ++report_.casts_added;
  }

  // The name under which float32 value v reads in the wanted precision.
  std::string as(const std::string& v, bool want16) {
    const bool initializer = g_.initializers.count(v) && !inputs_.count(v);
    if (initializer) {
      if (!want16) return v;
      auto it = converted_init_.find(v);
      if (it != converted_init_.end()) return it->second;
      const std::string name = fresh(v + "_fp16");
      g_.initializers.emplace(name, to_half(g_.initializers.at(v)));
      return converted_init_[v] = name;
    }
    if (is16(v) == want16) return v;
    auto key = std::make_pair(v, want16);
    auto it = casts_.find(key);
    if (it != casts_.end()) return it->second;
    const std::string name = fresh(v + (want16 ? "_fp16" : "_fp32"));
    add_cast(v, name, want16 ? kOnnxFloat16 : kOnnxFloat);
    return casts_[key] = name;
  }

  Tensor to_half(const Tensor& t) {
    Tensor h(DataType::kFloat16, t.shape());
    const float* in = t.data<float>();
    for (int64_t i = 0; i < t.numel(); ++i) {
      float v = in[i];
      if (std::isfinite(v) && std::abs(v) > kFloat16Max) {
        v = std::copysign(kFloat16Max, v);
        ++report_.saturated_values;
      }
      h.data<Float16>()[i] = Float16(v);
    }
    report_.initializer_bytes_before += t.nbytes();
    report_.initializer_bytes_after += h.nbytes();
    return h;
  }

  // Float32 attribute values of a converted node follow it.
  void convert_attributes(ir::Node& n) {
    if (n.domain.empty() && n.op_type == "Cast")
      if (auto it = n.attributes.find("to"); it != n.attributes.end() && it->second.i == kOnnxFloat)
        it->second.i = kOnnxFloat16;
    if (n.domain.empty() && (n.op_type == "Constant" || n.op_type == "ConstantOfShape"))
      for (auto& [name, a] : n.attributes)
        if (a.type == ir::Attribute::Type::kTensor && a.t.dtype() == DataType::kFloat) a.t = to_half(a.t);
    if (n.domain.empty() && n.op_type == "Constant")
      for (const char* k : {"value_float", "value_floats"})
        if (n.attributes.count(k)) {
          ir::Attribute& a = n.attributes.at(k);
          Tensor t = a.type == ir::Attribute::Type::kFloat ? Tensor::scalar<float>(a.f)
                                                           : Tensor(DataType::kFloat, {int64_t(a.floats.size())});
          if (a.type == ir::Attribute::Type::kFloats) std::copy(a.floats.begin(), a.floats.end(), t.data<float>());
          ir::Attribute value;
          value.name = "value";
          value.type = ir::Attribute::Type::kTensor;
          value.t = to_half(t);
          n.attributes.erase(k);
          n.attributes["value"] = value;
          break;
        }
  }

  ir::Model& model_;
  ir::Graph& g_;
  const Float16Options& options_;
  ops::GraphTypes types_;
  Float16Report report_;
  std::set<std::string> inputs_, outputs_, names_;
  std::map<std::string, const ir::Node*> producer_;
  std::map<std::string, std::string> converted_init_;
  std::map<std::pair<std::string, bool>, std::string> casts_;
};

}  // namespace

std::set<std::string> Float16Options::default_float16_block_list() {
  return {"ArrayFeatureExtractor", "Binarizer", "CastMap", "CategoryMapper", "DictVectorizer", "FeatureVectorizer",
          "Imputer", "LabelEncoder", "LinearClassifier", "LinearRegressor", "Normalizer", "OneHotEncoder",
          "RandomUniformLike", "RandomNormalLike", "RandomUniform", "RandomNormal", "SVMClassifier", "SVMRegressor",
          "Scaler", "TreeEnsembleClassifier", "TreeEnsembleRegressor", "ZipMap", "NonMaxSuppression", "TopK",
          "RoiAlign", "Range", "CumSum", "Min", "Max", "Upsample", "EyeLike",
          // onyx's additions: float16 scales need opset 19, which older models do not import.
          "QuantizeLinear", "DequantizeLinear", "DynamicQuantizeLinear"};
}

Result<Float16Report> convert_to_float16(ir::Model& model, const Float16Options& options) {
  for (const auto& n : model.graph.nodes)
    if (has_subgraph(n))
      return not_implemented("--float16 of a graph with control flow (", n.label(),
                             "): its subgraphs would read float16 values they declare float32");
  Converter c(model, options);
  return c.run();
}

}  // namespace onyx::optimizer
