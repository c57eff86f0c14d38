// Dynamic int8 quantisation of a model's weights, as ONNX Runtime's quantize_dynamic does it
// for MatMuls: every float32 MatMul (and Gemm of the plain form) whose weights B are a 2-D
// initializer becomes a com.microsoft DynamicQuantizeMatMul with B quantised to int8
// symmetrically (zero point 0), per column of B or per tensor; activations are quantised at
// run time by the kernel. A tool transform (`onyx quantize --dynamic`), not an automatic pass.
#pragma once
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "core/status.h"
#include "ir/graph.h"

namespace onyx::optimizer {

struct DynamicQuantizeOptions {
  bool per_column = true;                 // one scale per column of B (else one per tensor)
  std::set<std::string> exclude_op_types;  // e.g. {"Gemm"}
  std::set<std::string> exclude_nodes;     // node names
};

struct DynamicQuantizeReport {
  struct NodeResult {
    std::string node;     // label
    std::string op_type;  // as found
    bool quantized = false;
    std::string reason;   // why not, when not
  };
  std::vector<NodeResult> nodes;  // every MatMul and Gemm of the main graph
  int quantized = 0;
  int64_t weight_bytes_before = 0, weight_bytes_after = 0;  // of the weights that were quantised
};

// Rewrites `model`'s main graph in place (adding the com.microsoft opset import when needed;
// float weights no other node reads are dropped).
Result<DynamicQuantizeReport> quantize_dynamic(ir::Model& model, const DynamicQuantizeOptions& options);

}  // namespace onyx::optimizer
