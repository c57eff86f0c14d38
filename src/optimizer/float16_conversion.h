// float32 -> float16 conversion of a model's main graph (`onyx optimize --float16`), as ONNX
// Runtime's float16 converter does it: every node not blocked computes in float16, so its
// float32 inputs become float16 (initializers converted, activations through a Cast where
// their producer stays float32) and its float32 outputs float16; blocked nodes (by op type or
// by name) keep float32, with Casts back where they read float16 values. Graph inputs and
// outputs become float16 too, unless keep_io_types (then Casts sit at the edges). Initializer
// values beyond float16's range saturate to +-65504 (counted). Nodes with subgraphs are
// blocked; Constant and ConstantOfShape values and Cast(to = float) inside the converted
// region follow. Graphs with control-flow subgraphs are refused (NOT_IMPLEMENTED). A tool
// transform, not an automatic pass.
#pragma once
#include <cstdint>
#include <set>
#include <string>

#include "core/status.h"
#include "ir/graph.h"

namespace onyx::optimizer {

struct Float16Options {
  // The op types ONNX Runtime's converter keeps in float32 by default: the classic-ML ops,
  // ops whose float16 results are unreliable (TopK, CumSum, Range, Min, Max, RoiAlign,
  // NonMaxSuppression, Upsample) and random generators whose dtype stays float32; plus
  // Quantize/DequantizeLinear (float16 scales need opset 19).
  static std::set<std::string> default_float16_block_list();

  bool keep_io_types = false;
  std::set<std::string> op_block_list = default_float16_block_list();
  std::set<std::string> node_block_list;  // node names kept float32 (mixed precision)
};

struct Float16Report {
  int converted_nodes = 0, kept_nodes = 0, casts_added = 0;
  int64_t saturated_values = 0;  // initializer values clipped to +-65504
  int64_t initializer_bytes_before = 0, initializer_bytes_after = 0;  // of the converted ones
};

Result<Float16Report> convert_to_float16(ir::Model& model, const Float16Options& options);

}  // namespace onyx::optimizer
