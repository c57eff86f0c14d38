#include "optimizer/quantize_dynamic.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "optimizer/pass_manager.h"
#include "optimizer/weight_product.h"

namespace onyx::optimizer {
namespace {

struct QuantizedWeight {
  std::string values, scale;  // initializer names
};

// B [K, N] (or [N, K] when transposed) quantised to int8 with scales per column (or one).
std::pair<Tensor, Tensor> quantize_weight(const Tensor& b, bool transposed, bool per_column) {
  const int64_t k = transposed ? b.dim(1) : b.dim(0), n = transposed ? b.dim(0) : b.dim(1);
  const float* w = b.data<float>();
  auto at = [&](int64_t r, int64_t c) { return transposed ? w[c * k + r] : w[r * n + c]; };
  std::vector<float> scales(size_t(per_column ? n : 1), 0.f);
  for (int64_t r = 0; r < k; ++r)
    for (int64_t c = 0; c < n; ++c) {
      float& s = scales[size_t(per_column ? c : 0)];
      s = std::max(s, std::abs(at(r, c)));
    }
  for (float& s : scales) s = s > 0 && std::isfinite(s) ? s / 127.f : 1.f;
  Tensor q(DataType::kInt8, {k, n});
  int8_t* qp = q.data<int8_t>();
  for (int64_t r = 0; r < k; ++r)
    for (int64_t c = 0; c < n; ++c) {
      const float v = std::nearbyint(at(r, c) / scales[size_t(per_column ? c : 0)]);
      qp[r * n + c] = int8_t(std::isnan(v) ? 0.f : std::min(127.f, std::max(-127.f, v)));
    }
  Tensor scale = per_column ? Tensor(DataType::kFloat, {n}) : Tensor(DataType::kFloat, {});
  std::copy(scales.begin(), scales.end(), scale.data<float>());
  return {std::move(q), std::move(scale)};
}


}  // namespace

Result<DynamicQuantizeReport> quantize_dynamic(ir::Model& model, const DynamicQuantizeOptions& options) {
  ir::Graph& g = model.graph;
  DynamicQuantizeReport report;
  std::set<std::string> graph_inputs;
  for (const auto& vi : g.inputs) graph_inputs.insert(vi.name);
  std::map<std::pair<std::string, bool>, QuantizedWeight> done;  // (B, transposed) -> its int8 form
  for (ir::Node& node : g.nodes) {
    if (!node.domain.empty() || (node.op_type != "MatMul" && node.op_type != "Gemm")) continue;
    DynamicQuantizeReport::NodeResult result{node.label(), node.op_type, false, ""};
    const WeightProduct product =
        weight_product(g, node, graph_inputs, options.exclude_op_types, options.exclude_nodes);
    if (!product.reason.empty()) {
      result.reason = product.reason;
      report.nodes.push_back(result);
      continue;
    }
    const Tensor& weights = g.initializers.at(product.weights);
    const bool trans_b = product.trans_b;
    const std::string& bias = product.bias;
    const auto key = std::make_pair(product.weights, trans_b);
    if (!done.count(key)) {
      auto [q, scale] = quantize_weight(weights, trans_b, options.per_column);
      QuantizedWeight qw{fresh_initializer_name(g, product.weights + "_quantized"), ""};
      g.initializers.emplace(qw.values, std::move(q));
      qw.scale = fresh_initializer_name(g, product.weights + "_scale");
      g.initializers.emplace(qw.scale, std::move(scale));
      report.weight_bytes_before += weights.nbytes();
      report.weight_bytes_after += g.initializers.at(qw.values).nbytes() + g.initializers.at(qw.scale).nbytes();
      done.emplace(key, qw);
    }
    const QuantizedWeight& qw = done.at(key);
    node.inputs = {node.inputs[0], qw.values, qw.scale};
    if (!bias.empty()) node.inputs.insert(node.inputs.end(), {"", bias});
    node.op_type = "DynamicQuantizeMatMul";
    node.domain = "com.microsoft";
    node.attributes.clear();
    result.quantized = true;
    ++report.quantized;
    report.nodes.push_back(result);
  }
  if (report.quantized > 0) {
    if (!model.opsets.count("com.microsoft")) model.opsets["com.microsoft"] = 1;
    prune_unused(g);
  }
  return report;
}

}  // namespace onyx::optimizer
