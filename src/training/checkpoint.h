// The training checkpoint: the state that onnxruntime's on-device training keeps between steps
// (its CheckpointState), and onyx's file for it.
//
// In memory: the parameters in the training model's order, each with its value, whether it
// trains and its accumulated gradient; the optimizer's kind, configuration, step count and
// moments (AdamW: exp_avg, exp_avg_sq per trainable parameter); the user's properties (int,
// float or string). Tensors are owned by the state (never views of a file), so a step may
// update them in place.
//
// On disk: an ONNX ModelProto without nodes. Its initializers hold the parameters
// ("param/<name>") and, when saved with the optimizer state, the moments ("exp_avg/<name>",
// "exp_avg_sq/<name>"); its metadata_props hold the rest as JSON: "format"
// ("onyx.checkpoint.2"), "order" (the names), "requires_grad" ({name: bool}), "optimizer",
// "optimizer.config" ({key: number}), "optimizer.step", "properties" ({name: {"int"|"float"|
// "str": text}}), and for a nominal checkpoint "nominal" ({name: [dtype, shape]}) in place of
// the values. Written to a temporary file in the same folder, flushed and renamed over the
// target, so a crash mid-save leaves the old file whole. Read through the hardened ONNX
// loader with every field checked: a truncated or hostile file is an error, never a crash.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "core/status.h"
#include "core/tensor.h"

namespace onyx::training {

struct TrainingParameter {
  std::string name;
  Tensor data;
  bool requires_grad = false;
  Tensor grad;  // the accumulated gradient of a trainable parameter; undefined until a Module makes it
};

using CheckpointProperty = std::variant<int64_t, double, std::string>;

struct OptimizerState {
  std::string kind;                      // "AdamW", "SGD", or "" when the artifacts had none
  std::map<std::string, double> config;  // AdamW: beta1, beta2, epsilon, weight_decay
  int64_t step = 0;                      // steps taken
  std::map<std::string, Tensor> exp_avg, exp_avg_sq;  // AdamW's moments, by parameter
};

struct CheckpointState {
  std::vector<TrainingParameter> parameters;  // the training model's order
  OptimizerState optimizer;
  std::map<std::string, CheckpointProperty> properties;
  // Names, dtypes and shapes only (ONNX Runtime's nominal checkpoint): the values are unset
  // (never read; no memory touched) until Module::copy_buffer_to_parameters(..., trainable_only=false) loads them.
  bool nominal = false;

  // The parameter of that name; null when there is none.
  TrainingParameter* find(const std::string& name);
  const TrainingParameter* find(const std::string& name) const;
};

// Reads a checkpoint file. NOT_FOUND for a missing file; INVALID_MODEL ("cannot parse ...",
// or "not an onyx checkpoint ...") for one that is not a checkpoint or is damaged.
Result<CheckpointState> load_checkpoint(const std::string& path);
// The same from bytes; `what` names them in errors.
Result<CheckpointState> parse_checkpoint(const void* data, size_t size, const std::string& what);

// The checkpoint file's bytes; the moments only when `include_optimizer_state` (else the
// step is saved as 0). Nominal states save names, dtypes and shapes only.
Result<std::string> serialize_checkpoint(const CheckpointState& state, bool include_optimizer_state);
// Writes the checkpoint atomically (temporary file, fsync, rename). RUNTIME_ERROR when the
// file cannot be written; the old file, if any, is then unchanged.
Status save_checkpoint(const CheckpointState& state, const std::string& path, bool include_optimizer_state);

// Writes `bytes` to `path` atomically, as save_checkpoint does; for the artifacts too.
Status write_file_atomically(const std::string& path, const std::string& bytes);

}  // namespace onyx::training
