// The ONNX writer: ir::Model -> a model file that onyx and every ONNX tool load again.
// With the loader, the only room of onyx that sees protobuf.
#pragma once
#include <cstddef>
#include <string>

#include "core/status.h"
#include "ir/graph.h"

namespace onyx::onnx_format {

struct SaveOptions {
  // When set, every initializer (of any graph, subgraphs included) of at least
  // `external_min_bytes` is written to this file, a path relative to the model's folder that
  // stays inside it, each tensor at a 64-byte-aligned offset; the rest stay in the model.
  // Empty: everything is embedded (then the model must fit protobuf's 2 GB).
  std::string external_data_file;
  size_t external_min_bytes = 1024;
};

// Writes `model` to `path` (replacing it). Types keep their symbolic dims and denotations;
// model-local functions are saved inlined, as the IR holds them. INVALID_ARGUMENT for an
// external-data name that is absolute or leaves the folder, or for a model over 2 GB with
// nothing external; RUNTIME_ERROR when a file cannot be written.
Status save_model(const ir::Model& model, const std::string& path, const SaveOptions& options = {});

// The same model as serialized ModelProto bytes, every initializer embedded.
Result<std::string> serialize_model(const ir::Model& model);

}  // namespace onyx::onnx_format
