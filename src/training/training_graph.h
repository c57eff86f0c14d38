// The training and eval models of onnxruntime's on-device training, from a forward model that
// ends in a scalar loss (onyx.training.artifacts appends the loss first):
//   training model: inputs = the forward model's inputs, then the parameters (trainable, then
//     frozen) as graph inputs, then one "<p>_grad.accumulation.buffer" per trainable parameter
//     and the bool scalar "lazy_reset_grad"; outputs = the loss, the additional outputs, then
//     "<p>_grad.accumulation.out" = lazy_reset_grad ? dLoss/dp : buffer + dLoss/dp (onyx's
//     GradAccumulate kernel, ai.onyx.training, for float32 and float64 parameters; GatherGrad
//     itself for an embedding; Add and Where for the others).
//   eval model: the same inputs up to the parameters; outputs = the loss and the additional
//     outputs; BatchNormalization uses its running statistics and Dropout is off.
//   BatchNormalization in training mode: its running statistics are fed like frozen parameters
//     and the training model returns their new values as "<name>.updated" (after the
//     gradients), for the caller to keep.
// The parameters' values leave the models (they live in the checkpoint), so a step feeds them
// without a copy and the optimizer updates them in place.
#pragma once
#include <string>
#include <vector>

#include "core/status.h"
#include "ir/graph.h"

namespace onyx::training {

struct TrainingSpec {
  std::vector<std::string> requires_grad;       // initializers to train
  std::vector<std::string> frozen;              // initializers fed but not trained
  std::string loss;                             // a scalar value of the forward graph
  std::vector<std::string> additional_outputs;  // forward values also returned by a step
};

struct TrainingModels {
  ir::Model training, eval;
  // Trainable, then frozen, then the running statistics of training-mode BatchNormalization
  // (`buffers`), in input order. The training model returns each buffer's new value as
  // "<name>.updated" after the gradients; the eval model reads them as inference does.
  std::vector<std::string> parameters;
  std::vector<std::string> buffers;
};

// INVALID_ARGUMENT for a requires_grad or frozen name that is not a floating initializer, a
// loss that is not a value of the graph or not a scalar, an additional output the graph does
// not have; NOT_IMPLEMENTED (naming op, node and path) for an op on the path with no rule.
Result<TrainingModels> make_training_models(const ir::Model& forward, const TrainingSpec& spec);

// Shared with module_graphs (ORTModule's graphs), see training_graph.cc:
// the simplify phase, GELU fusion and transpose folding over a model whose parameters are
// graph inputs (`keep`: values to keep alive; `onyx_ops`: onyx's own ops allowed); left as
// it was when anything fails.
void simplify_for_training(ir::Model& m, const std::vector<std::string>& keep, bool onyx_ops);
// Sum(a, GatherGrad(dY, indices, data)) -> GatherGrad(dY, indices, data, a, false).
void fold_gather_grads_into_sums(ir::Graph& g);
// A graph input or output named `name` typed as `like` (its dtype and static shape).
ir::ValueInfo tensor_info(const std::string& name, const Tensor& like);

}  // namespace onyx::training
