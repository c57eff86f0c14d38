#include "optimizer/quantize_int4.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "optimizer/pass_manager.h"
#include "optimizer/weight_product.h"

namespace onyx::optimizer {
namespace {

struct Int4Weight {
  Tensor codes, scales, zero_points;  // zero_points empty when symmetric
};

// B [K, N] (or [N, K] when transposed), column by column (a row of W = B^T), block by block.
// Codes of `bits` bits (4 or 8), packed LSB first: two a byte with 4 bits, one with 8.
Int4Weight quantize_weight(const Tensor& b, bool transposed, const Int4QuantizeOptions& o) {
  const int64_t k = transposed ? b.dim(1) : b.dim(0), n = transposed ? b.dim(0) : b.dim(1);
  const int64_t bits = o.bits, per_byte = 8 / bits, levels = (int64_t(1) << bits) - 1, middle = int64_t(1) << (bits - 1);
  const int64_t block = o.block_size, blocks = (k + block - 1) / block, blob = block / per_byte;
  const int64_t zp_row = (blocks + per_byte - 1) / per_byte;
  const float* w = b.data<float>();
  auto at = [&](int64_t row, int64_t col) { return transposed ? w[col * k + row] : w[row * n + col]; };
  Int4Weight q{Tensor(DataType::kUInt8, {n, blocks, blob}), Tensor(DataType::kFloat, {n * blocks}), Tensor()};
  if (!o.symmetric) q.zero_points = Tensor(DataType::kUInt8, {n * zp_row});
  uint8_t* codes = q.codes.data<uint8_t>();
  float* scales = q.scales.data<float>();
  uint8_t* zps = o.symmetric ? nullptr : q.zero_points.data<uint8_t>();
  std::fill(codes, codes + q.codes.numel(), uint8_t(0));
  if (zps) std::fill(zps, zps + q.zero_points.numel(), uint8_t(0));
  std::vector<float> values(static_cast<size_t>(block));
  for (int64_t col = 0; col < n; ++col)
    for (int64_t j = 0; j < blocks; ++j) {
      for (int64_t t = 0; t < block; ++t) {
        const int64_t row = j * block + t;
        const float v = row < k ? at(row, col) : 0.f;
        values[size_t(t)] = std::isfinite(v) ? v : 0.f;
      }
      float scale = 1.f;
      int zero = int(middle);
      if (o.symmetric) {
        float extreme = 0.f;
        for (float v : values)
          if (std::abs(v) > std::abs(extreme)) extreme = v;
        if (extreme != 0.f) scale = extreme / -float(middle);
      } else {
        float lo = 0.f, hi = 0.f;
        for (float v : values) lo = std::min(lo, v), hi = std::max(hi, v);
        if (hi > lo) scale = (hi - lo) / float(levels);
        zero = int(std::clamp(std::nearbyint(-lo / scale), 0.f, float(levels)));
        zps[col * zp_row + j / per_byte] |= uint8_t(zero << ((j % per_byte) * bits));
      }
      scales[col * blocks + j] = scale;
      uint8_t* out = codes + (col * blocks + j) * blob;
      for (int64_t t = 0; t < block; ++t) {
        const int code = int(std::clamp(std::nearbyint(values[size_t(t)] / scale) + float(zero), 0.f, float(levels)));
        out[t / per_byte] |= uint8_t(code << ((t % per_byte) * bits));
      }
    }
  return q;
}

struct QuantizedNames {
  std::string codes, scales, zero_points;
  int64_t k = 0, n = 0;
};

}  // namespace

Result<Int4QuantizeReport> quantize_int4(ir::Model& model, const Int4QuantizeOptions& options) {
  if (options.block_size < 16 || (options.block_size & (options.block_size - 1)) != 0)
    return invalid_argument("--block-size must be a power of 2 of at least 16, got ", options.block_size);
  if (options.bits != 4 && options.bits != 8) return invalid_argument("--bits must be 4 or 8, got ", options.bits);
  ir::Graph& g = model.graph;
  Int4QuantizeReport report;
  std::set<std::string> graph_inputs;
  for (const auto& vi : g.inputs) graph_inputs.insert(vi.name);
  std::map<std::pair<std::string, bool>, QuantizedNames> done;  // (B, transposed) -> its 4-bit form
  for (ir::Node& node : g.nodes) {
    if (!node.domain.empty() || (node.op_type != "MatMul" && node.op_type != "Gemm")) continue;
    Int4QuantizeReport::NodeResult result{node.label(), node.op_type, false, ""};
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
      Int4Weight q = quantize_weight(weights, trans_b, options);
      QuantizedNames names{fresh_initializer_name(g, product.weights + "_Q4"),
                           fresh_initializer_name(g, product.weights + "_scales"), "", product.k, product.n};
      report.weight_bytes_before += weights.nbytes();
      report.weight_bytes_after += q.codes.nbytes() + q.scales.nbytes();
      g.initializers.emplace(names.codes, std::move(q.codes));
      g.initializers.emplace(names.scales, std::move(q.scales));
      if (!options.symmetric) {
        names.zero_points = fresh_initializer_name(g, product.weights + "_zero_points");
        report.weight_bytes_after += q.zero_points.nbytes();
        g.initializers.emplace(names.zero_points, std::move(q.zero_points));
      }
      done.emplace(key, names);
    }
    const QuantizedNames& q = done.at(key);
    node.inputs = {node.inputs[0], q.codes, q.scales};
    if (!q.zero_points.empty() || !bias.empty()) node.inputs.push_back(q.zero_points);
    if (!bias.empty()) node.inputs.insert(node.inputs.end(), {"", bias});
    node.op_type = "MatMulNBits";
    node.domain = "com.microsoft";
    node.attributes.clear();
    auto int_attr = [&](const char* name, int64_t v) {
      ir::Attribute a;
      a.name = name;
      a.type = ir::Attribute::Type::kInt;
      a.i = v;
      node.attributes[name] = a;
    };
    int_attr("K", q.k);
    int_attr("N", q.n);
    int_attr("bits", options.bits);
    int_attr("block_size", options.block_size);
    if (options.accuracy_level >= 0) int_attr("accuracy_level", options.accuracy_level);
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
