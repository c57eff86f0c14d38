#include "optimizer/quantize_static.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "ops/infer_graph.h"
#include "optimizer/pass_manager.h"

namespace onyx::optimizer {
namespace {

const std::set<std::string> kComputeOps = {"Conv", "Add", "Mul", "GlobalAveragePool", "Sigmoid", "LeakyRelu",
                                           "Concat", "Gemm"};
// Ops that move or select uint8 values unchanged: their output keeps the input's parameters.
const std::set<std::string> kPassThroughOps = {"MaxPool", "Flatten", "Reshape", "Squeeze", "Unsqueeze", "Transpose"};
const std::set<std::string> kActivationOps = {"Relu", "Clip"};

// A quantised activation: its uint8 tensor and its parameters (initializer names and values).
struct QTensor {
  std::string q, scale, zero_point;
};

struct ActivationParams {
  float scale = 1;
  uint8_t zero_point = 0;
};

ActivationParams params_for(const TensorRange& r) {
  const float lo = std::min(r.min, 0.0f), hi = std::max(r.max, 0.0f);
  ActivationParams p;
  p.scale = (hi - lo) / 255.0f;
  if (!(p.scale > 0) || !std::isfinite(p.scale)) {
    p.scale = 1.0f;
    return p;
  }
  const float zp = std::nearbyint(-lo / p.scale);
  p.zero_point = uint8_t(std::clamp(zp, 0.0f, 255.0f));
  return p;
}

// w quantised to int8 symmetrically, one scale per slice along `axis` (per tensor when axis < 0).
std::pair<Tensor, Tensor> quantize_symmetric(const Tensor& w, int axis) {
  const int64_t count = axis < 0 ? 1 : w.dim(axis);
  int64_t inner = 1;
  for (int64_t d = axis < 0 ? w.rank() : axis + 1; d < w.rank(); ++d) inner *= w.dim(d);
  const float* in = w.data<float>();
  std::vector<float> scales(size_t(count), 0.0f);
  auto slice = [&](int64_t i) { return axis < 0 ? 0 : (i / inner) % count; };
  for (int64_t i = 0; i < w.numel(); ++i) scales[size_t(slice(i))] = std::max(scales[size_t(slice(i))], std::abs(in[i]));
  for (float& s : scales) s = s > 0 && std::isfinite(s) ? s / 127.0f : 1.0f;
  Tensor q(DataType::kInt8, w.shape());
  for (int64_t i = 0; i < w.numel(); ++i) {
    const float v = std::nearbyint(in[i] / scales[size_t(slice(i))]);
    q.data<int8_t>()[i] = int8_t(std::isnan(v) ? 0.0f : std::clamp(v, -127.0f, 127.0f));
  }
  Tensor scale = axis < 0 ? Tensor(DataType::kFloat, {}) : Tensor(DataType::kFloat, {count});
  std::copy(scales.begin(), scales.end(), scale.data<float>());
  return {std::move(q), std::move(scale)};
}

int32_t to_int32(double v) {
  if (std::isnan(v)) return 0;
  return int32_t(std::clamp(std::nearbyint(v), double(std::numeric_limits<int32_t>::min()),
                            double(std::numeric_limits<int32_t>::max())));
}

class Quantizer {
 public:
  Quantizer(ir::Model& model, const std::map<std::string, TensorRange>& ranges, const StaticQuantizeOptions& options)
      : model_(model), g_(model.graph), ranges_(ranges), options_(options) {
    types_ = ops::infer_graph_types(g_, model.opsets);
    for (const auto& vi : g_.inputs) graph_inputs_.insert(vi.name);
    for (const auto& vi : g_.outputs) graph_outputs_.insert(vi.name);
    used_names_ = graph_inputs_;  // fresh() names must not collide with any value or node
    for (const auto& n : g_.nodes) {
      for (const auto& in : n.inputs)
        if (!in.empty()) readers_[in].push_back(&n);
      used_names_.insert(n.outputs.begin(), n.outputs.end());
      used_names_.insert(n.name);
    }
  }

  Result<StaticQuantizeReport> run() {
    std::vector<ir::Node> original = std::move(g_.nodes);
    g_.nodes.clear();
    std::set<const ir::Node*> absorbed;
    for (size_t i = 0; i < original.size(); ++i) {
      // readers_ points into `original`, which stays alive (moved, not copied) until the end.
      const ir::Node& n = original[i];
      if (absorbed.count(&n)) continue;
      const bool candidate = n.domain.empty() && (kComputeOps.count(n.op_type) || kPassThroughOps.count(n.op_type));
      if (!candidate) {
        g_.nodes.push_back(n);
        continue;
      }
      StaticQuantizeReport::NodeResult result{n.label(), n.op_type, false, ""};
      std::string why;
      if (options_.exclude_op_types.count(n.op_type) || options_.exclude_nodes.count(n.name)) why = "excluded";
      const ir::Node* activation = why.empty() ? absorbable_activation(n) : nullptr;
      if (why.empty()) why = convert(n, activation, &result.result);
      if (why.empty()) {
        result.quantized = true;
        ++report_.quantized;
        if (activation) absorbed.insert(activation);
      } else {
        result.result = "kept: " + why;
        g_.nodes.push_back(n);
      }
      if (!kPassThroughOps.count(n.op_type) || result.quantized) report_.nodes.push_back(result);
    }
    drop_unused_conversions();
    if (uses_microsoft_ && !model_.opsets.count("com.microsoft")) model_.opsets["com.microsoft"] = 1;
    prune_unused(g_);
    return report_;
  }

 private:
  bool is_initializer(const std::string& t) const { return g_.initializers.count(t) && !graph_inputs_.count(t); }
  bool is_float(const std::string& t) const {
    auto it = types_.all.find(t);
    return it != types_.all.end() && it->second.elem_type == DataType::kFloat;
  }
  // A float activation with a calibrated range.
  bool calibrated(const std::string& t) const { return !t.empty() && !is_initializer(t) && is_float(t) && ranges_.count(t); }

  std::string fresh(const std::string& base) {
    std::string name = base;
    for (int i = 1; g_.initializers.count(name) || used_names_.count(name); ++i) name = base + "_" + std::to_string(i);
    used_names_.insert(name);
    return name;
  }
  std::string add_initializer(const std::string& base, Tensor t) {
    const std::string name = fresh(base);
    g_.initializers.emplace(name, std::move(t));
    return name;
  }

  // The scale and zero point initializers of activation t (made once).
  const QTensor& params(const std::string& t) {
    auto it = params_.find(t);
    if (it != params_.end()) return it->second;
    const ActivationParams p = params_for(ranges_.at(t));
    QTensor q;
    q.scale = add_initializer(t + "_scale", Tensor::scalar<float>(p.scale));
    q.zero_point = add_initializer(t + "_zero_point", Tensor::scalar<uint8_t>(p.zero_point));
    return params_.emplace(t, q).first->second;
  }
  float scale_of(const QTensor& q) const { return g_.initializers.at(q.scale).data<float>()[0]; }

  ir::Node& emit(const std::string& op, const std::string& domain, std::vector<std::string> inputs,
                 std::vector<std::string> outputs, const std::string& name) {
    ir::Node n;
    n.op_type = op;
    n.domain = domain;
    n.inputs = std::move(inputs);
    n.outputs = std::move(outputs);
    n.name = fresh(name);
    if (domain == "com.microsoft") uses_microsoft_ = true;
    g_.nodes.push_back(std::move(n));
    created_.insert(g_.nodes.back().name);
    return g_.nodes.back();
  }

  // QOperator: the uint8 form of activation t, quantised here unless a quantised node made it.
  QTensor quantized(const std::string& t) {
    auto it = quantized_.find(t);
    if (it != quantized_.end()) return it->second;
    QTensor q = params(t);
    q.q = fresh(t + "_quantized");
    emit("QuantizeLinear", "", {t, q.scale, q.zero_point}, {q.q}, t + "_QuantizeLinear");
    quantized_[t] = q;
    return q;
  }
  // QOperator: float t is now made in uint8 form `q`; a DequantizeLinear gives the float
  // readers t back (removed at the end when nothing reads it).
  void made_quantized(const std::string& t, const QTensor& q) {
    quantized_[t] = q;
    emit("DequantizeLinear", "", {q.q, q.scale, q.zero_point}, {t}, t + "_DequantizeLinear");
  }
  // QDQ: activation t through a QuantizeLinear -> DequantizeLinear pair, for a reader.
  std::string qdq_input(const std::string& t) {
    if (qdq_made_.count(t)) return t;  // already the output of a DequantizeLinear
    auto it = qdq_inputs_.find(t);
    if (it != qdq_inputs_.end()) return it->second;
    const QTensor& p = params(t);
    const std::string q = fresh(t + "_quantized"), dq = fresh(t + "_dequantized");
    emit("QuantizeLinear", "", {t, p.scale, p.zero_point}, {q}, t + "_QuantizeLinear");
    emit("DequantizeLinear", "", {q, p.scale, p.zero_point}, {dq}, t + "_DequantizeLinear");
    qdq_inputs_[t] = dq;
    return dq;
  }
  // QDQ: the node that wrote t now writes `raw`; t comes back through a Q -> DQ pair.
  void qdq_output(const std::string& raw, const std::string& t) {
    const QTensor& p = params(t);
    const std::string q = fresh(t + "_quantized");
    emit("QuantizeLinear", "", {raw, p.scale, p.zero_point}, {q}, t + "_QuantizeLinear");
    emit("DequantizeLinear", "", {q, p.scale, p.zero_point}, {t}, t + "_DequantizeLinear");
    qdq_made_.insert(t);
  }

  // The Relu, or Clip from 0, that alone reads n's output, when it can be absorbed.
  const ir::Node* absorbable_activation(const ir::Node& n) const {
    if (n.op_type != "Conv" && n.op_type != "Add") return nullptr;
    if (n.outputs.size() != 1 || graph_outputs_.count(n.outputs[0])) return nullptr;
    auto it = readers_.find(n.outputs[0]);
    if (it == readers_.end() || it->second.size() != 1) return nullptr;
    const ir::Node* a = it->second[0];
    if (!a->domain.empty() || !kActivationOps.count(a->op_type) || a->outputs.size() != 1 ||
        !calibrated(a->outputs[0]) || a->inputs.empty() || a->inputs[0] != n.outputs[0])
      return nullptr;
    // Saturation does the clipping only when the output's zero point is 0 (its range starts
    // at 0, as a calibrated Relu's does).
    if (params_for(ranges_.at(a->outputs[0])).zero_point != 0) return nullptr;
    if (a->op_type == "Clip") {
      float lo = -1;
      if (const ir::Attribute* m = a->attribute("min")) lo = m->f;
      if (a->inputs.size() > 1 && !a->inputs[1].empty()) {
        auto c = g_.initializers.find(a->inputs[1]);
        if (c == g_.initializers.end() || graph_inputs_.count(a->inputs[1]) || c->second.numel() != 1 ||
            c->second.dtype() != DataType::kFloat)
          return nullptr;
        lo = c->second.data<float>()[0];
      }
      if (lo != 0.0f) return nullptr;
    }
    return a;
  }

  // Rewrites n (with `activation` absorbed, when not null); returns why not, or "" when done.
  std::string convert(const ir::Node& n, const ir::Node* activation, std::string* became);
  std::string convert_conv(const ir::Node& n, const ir::Node* activation, const std::string& y, std::string* became);
  // QDQ: node (its inputs already rewired) and the absorbed activation, if any, with y back
  // through a Q -> DQ pair.
  void emit_with_qdq_output(ir::Node node, const ir::Node* activation, const std::string& y);
  std::string convert_gemm(const ir::Node& n, std::string* became);

  void drop_unused_conversions() {
    bool changed = true;
    while (changed) {
      changed = false;
      std::set<std::string> read(graph_outputs_.begin(), graph_outputs_.end());
      for (const auto& n : g_.nodes)
        for (const auto& in : n.inputs) read.insert(in);
      for (size_t i = g_.nodes.size(); i-- > 0;) {
        const ir::Node& n = g_.nodes[i];
        if (created_.count(n.name) && (n.op_type == "DequantizeLinear" || n.op_type == "QuantizeLinear") &&
            !read.count(n.outputs[0])) {
          g_.nodes.erase(g_.nodes.begin() + std::ptrdiff_t(i));
          changed = true;
        }
      }
    }
  }

  ir::Model& model_;
  ir::Graph& g_;
  const std::map<std::string, TensorRange>& ranges_;
  const StaticQuantizeOptions& options_;
  StaticQuantizeReport report_;
  ops::GraphTypes types_;
  std::set<std::string> graph_inputs_, graph_outputs_, used_names_, created_, qdq_made_;
  std::map<std::string, std::vector<const ir::Node*>> readers_;
  std::map<std::string, QTensor> params_, quantized_;
  std::map<std::string, std::string> qdq_inputs_;
  bool uses_microsoft_ = false;
};

ir::Attribute int_attribute(const std::string& name, int64_t v) {
  ir::Attribute a;
  a.name = name;
  a.type = ir::Attribute::Type::kInt;
  a.i = v;
  return a;
}

float float_attr(const ir::Node& n, const char* name, float fallback) {
  const ir::Attribute* a = n.attribute(name);
  return a ? (a->type == ir::Attribute::Type::kFloat ? a->f : float(a->i)) : fallback;
}

std::string Quantizer::convert(const ir::Node& n, const ir::Node* activation, std::string* became) {
  const std::string& op = n.op_type;
  const bool qdq = options_.format == QuantFormat::kQdq;
  if (n.outputs.empty() || n.outputs[0].empty()) return "no output";
  const std::string y = activation ? activation->outputs[0] : n.outputs[0];
  if (op == "Conv") return convert_conv(n, activation, y, became);
  if (op == "Gemm") return convert_gemm(n, became);
  if (kPassThroughOps.count(op)) {
    const std::string& x = n.inputs.empty() ? std::string() : n.inputs[0];
    if (n.outputs.size() != 1) return "more than one output";
    if (qdq) {
      if (!qdq_made_.count(x)) return "its input is not quantised";
      ir::Node copy = n;
      copy.outputs[0] = fresh(n.outputs[0] + "_float");
      g_.nodes.push_back(copy);
      params_.emplace(n.outputs[0], params(x));  // the same scale and zero point as its input
      qdq_output(copy.outputs[0], n.outputs[0]);
      *became = "QDQ (" + op + " on uint8)";
      return "";
    }
    auto it = quantized_.find(x);
    if (it == quantized_.end()) return "its input is not quantised";
    QTensor yq = it->second;
    yq.q = fresh(n.outputs[0] + "_quantized");
    ir::Node copy = n;
    copy.inputs[0] = it->second.q;
    copy.outputs[0] = yq.q;
    g_.nodes.push_back(copy);
    made_quantized(n.outputs[0], yq);
    *became = op + " on uint8";
    return "";
  }
  // Compute ops: every activation input and the output need ranges.
  std::vector<size_t> act_inputs;
  if (op == "Add" || op == "Mul") act_inputs = {0, 1};
  else if (op == "Concat") for (size_t i = 0; i < n.inputs.size(); ++i) act_inputs.push_back(i);
  else act_inputs = {0};
  for (size_t i : act_inputs) {
    if (i >= n.inputs.size() || n.inputs[i].empty()) return "an input is missing";
    if (is_initializer(n.inputs[i])) return "reads a constant (" + n.inputs[i] + ")";
    if (!calibrated(n.inputs[i])) return "input " + n.inputs[i] + " is not float32 with a range";
  }
  if (!calibrated(y)) return "output " + y + " is not float32 with a range";
  if (qdq) {
    ir::Node copy = n;
    for (size_t i : act_inputs) copy.inputs[i] = qdq_input(n.inputs[i]);
    emit_with_qdq_output(copy, activation, y);
    *became = "QDQ";
    return "";
  }
  const QTensor yp = params(y);
  const QTensor yq{fresh(y + "_quantized"), yp.scale, yp.zero_point};
  std::vector<std::string> inputs;
  std::string qop;
  if (op == "Concat") {
    inputs = {yq.scale, yq.zero_point};
    for (size_t i : act_inputs) {
      const QTensor x = quantized(n.inputs[i]);
      inputs.insert(inputs.end(), {x.q, x.scale, x.zero_point});
    }
    qop = "QLinearConcat";
  } else {
    for (size_t i : act_inputs) {
      const QTensor x = quantized(n.inputs[i]);
      inputs.insert(inputs.end(), {x.q, x.scale, x.zero_point});
    }
    inputs.insert(inputs.end(), {yq.scale, yq.zero_point});
    qop = "QLinear" + op;
  }
  ir::Node& q = emit(qop, "com.microsoft", inputs, {yq.q}, n.name.empty() ? qop : n.name + "_quant");
  if (op == "Concat" || op == "LeakyRelu") q.attributes = n.attributes;
  if (op == "GlobalAveragePool") q.attributes["channels_last"] = int_attribute("channels_last", 0);
  made_quantized(y, yq);
  *became = qop + (activation ? " (" + activation->op_type + " absorbed)" : "");
  return "";
}

void Quantizer::emit_with_qdq_output(ir::Node node, const ir::Node* activation, const std::string& y) {
  if (activation) {
    g_.nodes.push_back(node);
    ir::Node act = *activation;
    act.outputs[0] = fresh(y + "_float");
    g_.nodes.push_back(act);
    qdq_output(act.outputs[0], y);
    return;
  }
  node.outputs[0] = fresh(y + "_float");
  const std::string raw = node.outputs[0];
  g_.nodes.push_back(std::move(node));
  qdq_output(raw, y);
}

std::string Quantizer::convert_conv(const ir::Node& n, const ir::Node* activation, const std::string& y,
                                    std::string* became) {
  const std::string& x = n.inputs[0];
  if (n.inputs.size() < 2 || !calibrated(x)) return "X is not float32 with a range";
  if (!calibrated(y)) return "output " + y + " is not float32 with a range";
  auto w = g_.initializers.find(n.inputs[1]);
  if (w == g_.initializers.end() || graph_inputs_.count(w->first) || w->second.dtype() != DataType::kFloat ||
      w->second.rank() < 3 || w->second.numel() == 0)
    return "W is not a float32 initializer";
  const int64_t maps = w->second.dim(0);
  const Tensor* bias = nullptr;
  if (n.inputs.size() > 2 && !n.inputs[2].empty()) {
    auto b = g_.initializers.find(n.inputs[2]);
    if (b == g_.initializers.end() || graph_inputs_.count(b->first) || b->second.dtype() != DataType::kFloat ||
        b->second.numel() != maps)
      return "B is not a float32 initializer of [M]";
    bias = &b->second;
  }
  auto [wq, ws] = quantize_symmetric(w->second, options_.per_channel ? 0 : -1);
  report_.weight_bytes_before += w->second.nbytes();
  report_.weight_bytes_after += wq.nbytes() + ws.nbytes();
  // The parameters x is quantised with: its own, or in QOperator form those of the quantised
  // tensor already made for it (a pass-through op's output keeps its input's).
  const bool qdq = options_.format == QuantFormat::kQdq;
  const QTensor xp = qdq ? params(x) : quantized(x);
  const float xs = scale_of(xp);
  Tensor wzp = options_.per_channel ? Tensor(DataType::kInt8, {maps}) : Tensor(DataType::kInt8, {});
  std::fill_n(wzp.data<int8_t>(), wzp.numel(), int8_t(0));
  Tensor bq(DataType::kInt32, {maps}), bias_scale(DataType::kFloat, ws.shape());
  for (int64_t i = 0; i < ws.numel(); ++i) bias_scale.data<float>()[i] = xs * ws.data<float>()[i];
  if (bias)
    for (int64_t m = 0; m < maps; ++m)
      bq.data<int32_t>()[m] =
          to_int32(double(bias->data<float>()[m]) / double(bias_scale.data<float>()[ws.numel() == 1 ? 0 : m]));
  const std::string base = n.inputs[1];
  const std::string wq_name = add_initializer(base + "_quantized", std::move(wq));
  const std::string ws_name = add_initializer(base + "_scale", std::move(ws));
  const std::string wzp_name = add_initializer(base + "_zero_point", std::move(wzp));
  std::string bq_name = bias ? add_initializer(n.inputs[2] + "_quantized", std::move(bq)) : std::string();
  if (qdq) {
    ir::Node copy = n;
    copy.inputs[0] = qdq_input(x);
    const std::string w_dq = fresh(base + "_dequantized");
    ir::Node& dq = emit("DequantizeLinear", "", {wq_name, ws_name, wzp_name}, {w_dq}, base + "_DequantizeLinear");
    if (options_.per_channel) dq.attributes["axis"] = int_attribute("axis", 0);
    copy.inputs[1] = w_dq;
    if (bias) {
      const std::string bs_name = add_initializer(n.inputs[2] + "_scale", std::move(bias_scale));
      const std::string b_dq = fresh(n.inputs[2] + "_dequantized");
      ir::Node& bdq = emit("DequantizeLinear", "", {bq_name, bs_name}, {b_dq}, n.inputs[2] + "_DequantizeLinear");
      if (options_.per_channel) bdq.attributes["axis"] = int_attribute("axis", 0);
      copy.inputs[2] = b_dq;
    }
    emit_with_qdq_output(copy, activation, y);
    *became = "QDQ";
    return "";
  }
  const QTensor& xq = xp;
  const QTensor yp = params(y);
  const QTensor yq{fresh(y + "_quantized"), yp.scale, yp.zero_point};
  std::vector<std::string> inputs = {xq.q, xq.scale, xq.zero_point, wq_name, ws_name, wzp_name, yq.scale, yq.zero_point};
  if (bias) inputs.push_back(bq_name);
  ir::Node& q = emit("QLinearConv", "", inputs, {yq.q}, n.name.empty() ? "QLinearConv" : n.name + "_quant");
  q.attributes = n.attributes;
  made_quantized(y, yq);
  *became = std::string("QLinearConv") + (activation ? " (" + activation->op_type + " absorbed)" : "");
  return "";
}

std::string Quantizer::convert_gemm(const ir::Node& n, std::string* became) {
  if (n.inputs.size() < 2 || !calibrated(n.inputs[0])) return "A is not float32 with a range";
  auto b = g_.initializers.find(n.inputs[1]);
  if (b == g_.initializers.end() || graph_inputs_.count(b->first) || b->second.dtype() != DataType::kFloat ||
      b->second.rank() != 2 || b->second.numel() == 0)
    return "B is not a 2-D float32 initializer";
  const bool trans_b = float_attr(n, "transB", 0) != 0;
  const float alpha = float_attr(n, "alpha", 1), beta = float_attr(n, "beta", 1);
  const int64_t cols = trans_b ? b->second.dim(0) : b->second.dim(1);
  const Tensor* c = nullptr;
  if (n.inputs.size() > 2 && !n.inputs[2].empty()) {
    auto ci = g_.initializers.find(n.inputs[2]);
    if (ci == g_.initializers.end() || graph_inputs_.count(ci->first) || ci->second.dtype() != DataType::kFloat ||
        (ci->second.numel() != cols && ci->second.numel() != 1) || ci->second.rank() > 2 ||
        (ci->second.rank() == 2 && ci->second.dim(0) != 1))
      return "C is not a float32 initializer of [N]";
    c = &ci->second;
  }
  const int axis = options_.per_channel ? (trans_b ? 0 : 1) : -1;
  auto [bq, bs] = quantize_symmetric(b->second, axis);
  report_.weight_bytes_before += b->second.nbytes();
  report_.weight_bytes_after += bq.nbytes() + bs.nbytes();
  Tensor bzp = options_.per_channel ? Tensor(DataType::kInt8, {cols}) : Tensor(DataType::kInt8, {});
  std::fill_n(bzp.data<int8_t>(), bzp.numel(), int8_t(0));
  const std::string base = n.inputs[1];
  const bool qdq = options_.format == QuantFormat::kQdq;
  const QTensor ap = qdq ? params(n.inputs[0]) : quantized(n.inputs[0]);  // as for Conv's x
  const float as = scale_of(ap);
  Tensor cq(DataType::kInt32, {cols});
  if (c)
    for (int64_t j = 0; j < cols; ++j) {
      const float s = as * bs.data<float>()[bs.numel() == 1 ? 0 : j] * alpha;  // QGemm's s[n]
      cq.data<int32_t>()[j] = to_int32(double(beta) * double(c->data<float>()[c->numel() == 1 ? 0 : j]) / double(s));
    }
  const std::string bq_name = add_initializer(base + "_quantized", std::move(bq));
  const std::string bs_name = add_initializer(base + "_scale", std::move(bs));
  const std::string bzp_name = add_initializer(base + "_zero_point", std::move(bzp));
  if (options_.format == QuantFormat::kQdq) {
    ir::Node copy = n;
    copy.inputs[0] = qdq_input(n.inputs[0]);
    const std::string b_dq = fresh(base + "_dequantized");
    ir::Node& dq = emit("DequantizeLinear", "", {bq_name, bs_name, bzp_name}, {b_dq}, base + "_DequantizeLinear");
    if (axis >= 0) dq.attributes["axis"] = int_attribute("axis", axis);
    copy.inputs[1] = b_dq;
    if (c) {  // C as int32 at scale a_scale * b_scale (Gemm's beta applies to it as before)
      Tensor c_scale(DataType::kFloat, {cols}), c_int(DataType::kInt32, {cols});
      for (int64_t j = 0; j < cols; ++j) {
        const float s = as * g_.initializers.at(bs_name).data<float>()[g_.initializers.at(bs_name).numel() == 1 ? 0 : j];
        c_scale.data<float>()[j] = s;
        c_int.data<int32_t>()[j] = to_int32(double(c->data<float>()[c->numel() == 1 ? 0 : j]) / double(s));
      }
      const std::string cq_name = add_initializer(n.inputs[2] + "_quantized", std::move(c_int));
      const std::string cs_name = add_initializer(n.inputs[2] + "_scale", std::move(c_scale));
      const std::string c_dq = fresh(n.inputs[2] + "_dequantized");
      ir::Node& cdq = emit("DequantizeLinear", "", {cq_name, cs_name}, {c_dq}, n.inputs[2] + "_DequantizeLinear");
      cdq.attributes["axis"] = int_attribute("axis", 0);
      copy.inputs[2] = c_dq;
    }
    g_.nodes.push_back(copy);
    *became = "QDQ (float32 output)";
    return "";
  }
  const QTensor& aq = ap;
  std::vector<std::string> inputs = {aq.q, aq.scale, aq.zero_point, bq_name, bs_name, bzp_name};
  if (c) inputs.push_back(add_initializer(n.inputs[2] + "_quantized", std::move(cq)));
  ir::Node& q = emit("QGemm", "com.microsoft", inputs, {n.outputs[0]}, n.name.empty() ? "QGemm" : n.name + "_quant");
  q.attributes["alpha"] = n.attributes.count("alpha") ? n.attributes.at("alpha") : ir::Attribute{};
  if (q.attributes["alpha"].type == ir::Attribute::Type::kUndefined) q.attributes.erase("alpha");
  for (const char* t : {"transA", "transB"})
    if (n.attributes.count(t)) q.attributes[t] = n.attributes.at(t);
  *became = "QGemm (float32 output)";
  return "";
}

}  // namespace

std::vector<std::string> calibration_tensors(const ir::Model& model) {
  const ir::Graph& g = model.graph;
  const ops::GraphTypes types = ops::infer_graph_types(g, model.opsets);
  std::set<std::string> inputs;
  for (const auto& vi : g.inputs) inputs.insert(vi.name);
  std::set<std::string> seen;
  std::vector<std::string> out;
  auto add = [&](const std::string& t) {
    if (t.empty() || seen.count(t) || (g.initializers.count(t) && !inputs.count(t))) return;
    auto it = types.all.find(t);
    if (it == types.all.end() || it->second.elem_type != DataType::kFloat) return;
    seen.insert(t);
    out.push_back(t);
  };
  for (const auto& n : g.nodes) {
    if (!n.domain.empty() || !(kComputeOps.count(n.op_type) || kActivationOps.count(n.op_type))) continue;
    for (const auto& t : n.inputs) add(t);
    for (const auto& t : n.outputs) add(t);
  }
  return out;
}

Result<StaticQuantizeReport> quantize_static(ir::Model& model, const std::map<std::string, TensorRange>& ranges,
                                             const StaticQuantizeOptions& options) {
  Quantizer q(model, ranges, options);
  return q.run();
}

}  // namespace onyx::optimizer
