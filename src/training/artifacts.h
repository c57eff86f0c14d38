// The artifacts of onnxruntime's on-device training (its generate_artifacts), made from a
// forward model: "<prefix>training_model.onnx", "<prefix>eval_model.onnx" (training_graph.h),
// "<prefix>optimizer_model.onnx" when an optimizer is asked for, "<prefix>checkpoint" and, on
// request, "<prefix>nominal_checkpoint" (checkpoint.h). Behind onyx.training.artifacts and
// `onyx train-artifacts`.
//
// The loss is appended to the forward model's first output (or `loss_input`), and named
// "loss": MSELoss and L1Loss (mean, against a new graph input "target" of the output's type
// and shape), CrossEntropyLoss (mean SoftmaxCrossEntropyLoss against int64 "labels" of the
// output's shape without the class dim), BCEWithLogitsLoss (mean of softplus(x) - x * t,
// against "target").
// The optimizer model computes PyTorch's update: inputs learning_rate (float scalar) and step
// (int64 scalar, the step being taken, from 1), then per trainable parameter p: p,
// p.gradient (AdamW: and p.exp_avg, p.exp_avg_sq); outputs p.updated (AdamW: and
// p.exp_avg.updated, p.exp_avg_sq.updated). AdamW is onyx's fused ai.onyx.training AdamW
// kernel (decoupled weight decay, bias correction); SGD is p - lr * g.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "ir/graph.h"

namespace onyx::training {

enum class LossKind { kMSE, kCrossEntropy, kBCEWithLogits, kL1 };
enum class OptimizerKind { kNone, kAdamW, kSGD };

// "MSELoss", "CrossEntropyLoss", "BCEWithLogitsLoss", "L1Loss" (onnxruntime's LossType names);
// INVALID_ARGUMENT otherwise.
Result<LossKind> loss_kind_named(const std::string& name);
// "AdamW", "SGD"; INVALID_ARGUMENT otherwise.
Result<OptimizerKind> optimizer_kind_named(const std::string& name);
const char* optimizer_name(OptimizerKind kind);

// onnxruntime's AdamW defaults (PyTorch's differ: eps 1e-8, weight decay 1e-2).
std::map<std::string, double> adamw_defaults();

struct ArtifactsSpec {
  // Initializers to train; unset: every floating initializer not in `frozen` and not a
  // BatchNormalization's running statistics (buffers the training model updates).
  std::optional<std::vector<std::string>> requires_grad;
  std::vector<std::string> frozen;
  LossKind loss = LossKind::kMSE;
  std::string loss_input;  // the output the loss takes; empty: the first
  OptimizerKind optimizer = OptimizerKind::kNone;
  std::map<std::string, double> optimizer_config;  // over adamw_defaults(); unknown keys refused
  std::vector<std::string> additional_outputs;
  std::string directory = ".";  // made when missing
  std::string prefix;
  bool nominal_checkpoint = false;
};

// The forward model with the loss appended (its only output "loss").
Result<ir::Model> append_loss(const ir::Model& forward, LossKind loss, const std::string& loss_input);
// The optimizer model over these parameters (float32 only; NOT_IMPLEMENTED otherwise).
Result<ir::Model> make_optimizer_model(const std::vector<std::pair<std::string, Tensor>>& parameters,
                                       OptimizerKind optimizer, const std::map<std::string, double>& config);

// Builds every artifact in memory first, then writes the files (each atomically): on any
// error nothing is written. Returns the paths written.
Result<std::vector<std::string>> generate_artifacts(const ir::Model& forward, const ArtifactsSpec& spec);

}  // namespace onyx::training
