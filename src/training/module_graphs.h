// ORTModule's graphs (python/onyx/training/ortmodule): from a torch.nn.Module exported by
// torch.onnx.export in training mode, a forward graph that torch's autograd runs as one
// Function and a backward graph that its backward() runs.
//   forward:  inputs  = the module's inputs, then its parameters (trainable, then frozen, then
//                       the running statistics of training-mode BatchNormalization), all graph
//                       inputs: torch feeds its own tensors every step, nothing is copied;
//             outputs = the module's outputs, then "<stat>.updated" per running statistic, then
//                       the values the backward graph reads (`stashed`; one that is also a
//                       module output leaves again as "<name>/stashed").
//   backward: inputs  = the stashed values, then the forward inputs it reads, then
//                       "<output>_grad" for each floating output (the gradient torch hands in);
//             outputs = "<x>_grad" for each input requiring a gradient, then each trainable
//                       parameter kept: d(sum over outputs of <output, output_grad>)/dx.
// Activations live from the forward run to the backward run only as stashed outputs, so the
// backward graph recomputes nothing.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "core/status.h"
#include "ir/graph.h"

namespace onyx::training {

struct ModuleGraphSpec {
  std::vector<std::string> inputs_requiring_grad;  // graph inputs of the export
  // Parameters with requires_grad, and those without (fed like parameters, no gradient): each
  // an initializer of the export, or a graph input of it.
  std::vector<std::string> trainable;
  std::vector<std::string> frozen;
  // The module's buffers, for an export made without its parameters (torch.onnx.export with
  // export_params=False lists every parameter and buffer it reads as a graph input and writes
  // no weights): a graph input named here becomes an initializer holding this value, as
  // export_params=True would have written it.
  std::map<std::string, Tensor> buffers;
};

struct ModuleGraphs {
  ir::Model forward, backward;
  // The inputs and parameters of the spec that the export kept (it drops those nothing
  // reads), in order.
  std::vector<std::string> inputs_requiring_grad, trainable, frozen;
  std::vector<std::string> forward_inputs;  // the module's inputs, trainable, frozen, running statistics
  std::vector<std::string> running_statistics;  // their new values follow the module's outputs
  std::vector<std::string> outputs;             // the module's outputs
  std::vector<std::string> stashed;             // the forward outputs after those
  std::vector<std::string> backward_forward_inputs;  // forward inputs the backward graph reads
  std::vector<std::string> output_grads;  // per module output: its "<output>_grad" input, "" when none
  std::vector<std::string> gradients;     // backward outputs, per inputs_requiring_grad then trainable
};

// INVALID_ARGUMENT for a parameter that is not floating (inputs and parameters the export
// does not hold are left out); NOT_IMPLEMENTED (naming op, node and path) for an
// op with no gradient rule. With nothing requiring a gradient the backward graph is empty and
// only the forward graph is meant to run (eval, or torch.no_grad()).
Result<ModuleGraphs> make_module_graphs(const ir::Model& exported, const ModuleGraphSpec& spec);

}  // namespace onyx::training
