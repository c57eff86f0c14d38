// Static int8 quantisation of a float32 model from calibrated activation ranges, in ONNX
// Runtime's two formats:
//
// - QOperator: quantisable nodes become their quantised operators. Conv -> QLinearConv, Add /
//   Mul -> com.microsoft QLinearAdd / QLinearMul, GlobalAveragePool -> QLinearGlobalAveragePool,
//   Sigmoid / LeakyRelu -> QLinearSigmoid / QLinearLeakyRelu, Concat -> QLinearConcat, Gemm ->
//   com.microsoft QGemm (float32 output); MaxPool, Flatten, Reshape, Squeeze, Unsqueeze and
//   Transpose run on the uint8 tensor when their input is already quantised. A Relu, or a Clip
//   from 0, that is the only reader of a Conv / Add output is absorbed when its range gives a
//   zero point of 0 (as a calibrated Relu's does): saturation then does the clipping.
// - QDQ: the graph keeps its float operators, with QuantizeLinear -> DequantizeLinear pairs on
//   the activations they read and write and DequantizeLinear on int8 weights (and int32 biases),
//   the form runtimes fuse back into quantised kernels.
//
// Activations are uint8, asymmetric: scale = (max - min) / 255 over the range widened to hold 0,
// zero point round(-min / scale). Weights are int8, symmetric (zero point 0, scale =
// max |w| / 127), per output channel with per_channel, else per tensor. Biases are int32 at
// scale x_scale * w_scale. Quantised tensors leave the quantised region through
// DequantizeLinear and enter it through QuantizeLinear. A tool transform (`onyx quantize
// --static`), not an automatic pass.
#pragma once
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/status.h"
#include "ir/graph.h"

namespace onyx::optimizer {

struct TensorRange {
  float min = 0, max = 0;
};

enum class QuantFormat { kQOperator, kQdq };

struct StaticQuantizeOptions {
  QuantFormat format = QuantFormat::kQOperator;
  bool per_channel = false;
  std::set<std::string> exclude_op_types;  // e.g. {"Add"}
  std::set<std::string> exclude_nodes;     // node names
};

struct StaticQuantizeReport {
  struct NodeResult {
    std::string node;     // label
    std::string op_type;  // as found
    bool quantized = false;
    std::string result;   // the operator it became, or why it was kept
  };
  std::vector<NodeResult> nodes;  // every node of a quantisable op type
  int quantized = 0;
  int64_t weight_bytes_before = 0, weight_bytes_after = 0;
};

// The float32 activations whose ranges quantize_static reads: the inputs and outputs of every
// node of a quantisable op type (initializers excluded), in graph order.
std::vector<std::string> calibration_tensors(const ir::Model& model);

// Rewrites `model`'s main graph in place (the com.microsoft opset import is added when used).
// Tensors without a range stay float32; so do the nodes that read or write them.
Result<StaticQuantizeReport> quantize_static(ir::Model& model, const std::map<std::string, TensorRange>& ranges,
                                             const StaticQuantizeOptions& options);

}  // namespace onyx::optimizer
