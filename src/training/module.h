// The training API's Module: the model being trained (onnxruntime's training Module), over
// the training model and (optionally) the eval model that make_training_models writes, and a
// CheckpointState that holds the parameters.
//
//   auto state = std::make_shared<CheckpointState>(*load_checkpoint("out/checkpoint"));
//   auto module = Module::create("out/training_model.onnx", state, "out/eval_model.onnx");
//   auto optimizer = Optimizer::create("out/optimizer_model.onnx", **module);
//   auto loss = (*module)->train_step({x, labels});  // forward, backward, gradients accumulated
//   (*optimizer)->step();                            // parameters updated in place
//   (*module)->lazy_reset_grad();                    // the next step starts its gradients at zero
//
// A training step feeds the state's parameter tensors to the session without a copy, adds
// this step's gradients into each trainable parameter's `grad` in place (or starts it afresh
// after lazy_reset_grad, and at the first step), and writes the new running statistics of
// training-mode BatchNormalization into their tensors in place. The state's tensors are never
// replaced, only written, so views of them (numpy arrays in Python) stay valid.
// A Module is used by one thread at a time.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "core/value.h"
#include "session/session.h"
#include "training/checkpoint.h"

namespace onyx::training {

class Module {
 public:
  // INVALID_ARGUMENT when the training model is not one make_training_models wrote or does
  // not match the state (a parameter missing, or of another dtype or shape); NOT_IMPLEMENTED
  // for providers other than the CPU. The sessions flush denormals to zero
  // (SessionOptions::denormal_as_zero), whatever `options` say.
  static Result<std::unique_ptr<Module>> create(const std::string& training_model_path,
                                                std::shared_ptr<CheckpointState> state,
                                                const std::string& eval_model_path = "",
                                                const SessionOptions& options = {});

  // One training step on the user inputs (input_names(true) order): the loss, then the
  // additional outputs. A step that fails part-way may leave gradients partly accumulated. FAIL-like RUNTIME_ERROR on a nominal state whose values were never loaded.
  Result<std::vector<Value>> train_step(const std::vector<Value>& inputs);
  // The eval model on the user inputs (input_names(false) order): the loss and the additional
  // outputs; nothing in the state changes. RUNTIME_ERROR when no eval model was given.
  Result<std::vector<Value>> eval_step(const std::vector<Value>& inputs) const;
  // The next training step sets the gradients instead of adding to them.
  void lazy_reset_grad() { reset_grad_ = true; }

  // The inputs a step takes (the training or the eval model's), and the outputs it returns.
  const std::vector<std::string>& input_names(bool training = true) const {
    return training ? train_inputs_ : eval_inputs_;
  }
  const std::vector<std::string>& output_names() const { return outputs_; }
  // The declared types of those inputs, in the same order.
  std::vector<ir::ValueInfo> input_infos(bool training = true) const;
  bool has_eval_model() const { return eval_ != nullptr; }
  const std::vector<std::string>& trainable_parameters() const { return trainable_; }
  CheckpointState& state() { return *state_; }
  const std::shared_ptr<CheckpointState>& shared_state() const { return state_; }
  // The options the module's sessions were made with (the optimizer's session takes them too).
  const SessionOptions& session_options() const { return options_; }

  // Elements in the parameters (the trainable ones, or all).
  int64_t parameters_size(bool trainable_only) const;
  // The parameters flattened into one float32 tensor, in the state's order (a copy).
  // NOT_IMPLEMENTED when a parameter is not float32.
  Result<Tensor> contiguous_parameters(bool trainable_only) const;
  // Writes a flat float32 buffer (as contiguous_parameters gives) back into the parameters;
  // INVALID_ARGUMENT when its element count differs. Loading every parameter
  // (trainable_only = false) makes a nominal state whole.
  Status copy_buffer_to_parameters(const Tensor& buffer, bool trainable_only);
  // Writes the eval model with the current parameters as initializers and the named values as
  // its outputs, keeping only the nodes they need (so the loss and its target go).
  Status export_model_for_inferencing(const std::string& path, const std::vector<std::string>& output_names) const;

 private:
  Module() = default;
  Status check_loaded() const;
  std::shared_ptr<CheckpointState> state_;
  std::unique_ptr<Session> train_, eval_;
  ir::Model eval_model_;  // as loaded, for export
  SessionOptions options_;
  std::vector<std::string> train_inputs_, eval_inputs_, outputs_;
  std::vector<std::string> trainable_;  // in the training model's input order
  std::vector<std::string> updated_;    // buffers the step returns as "<name>.updated"
  std::vector<std::string> fed_parameters_, eval_parameters_;  // state parameters each model takes
  bool reset_grad_ = true;
};

// Steps the trainable parameters of a Module with the optimizer model (onnxruntime's
// Optimizer): AdamW or SGD as generate_artifacts writes it. The learning rate starts at 1e-3.
class Optimizer {
 public:
  // `module` must outlive the optimizer; its session options (threads, ...) make the
  // optimizer's session too. INVALID_ARGUMENT when the optimizer model lacks an input for a
  // trainable parameter of the module.
  static Result<std::unique_ptr<Optimizer>> create(const std::string& optimizer_model_path, Module& module);
  // One update of every trainable parameter (and AdamW's moments), written in place; the
  // state's step count goes up by one. Before any training step the gradients are zeros. A
  // run that fails part-way may leave some parameters updated (the step is not counted).
  Status step();
  void set_learning_rate(double lr) { learning_rate_ = lr; }
  double learning_rate() const { return learning_rate_; }

 private:
  Optimizer(Module& module) : module_(module) {}  // NOLINT
  Module& module_;
  std::unique_ptr<Session> session_;
  bool adamw_ = false;
  double learning_rate_ = 1e-3;
};

// Linear warm-up from 0 to initial_lr over warmup_steps, then linear decay to 0 at
// total_steps (onnxruntime's LinearLRScheduler); construction sets the rate of step 0.
class LinearLRScheduler {
 public:
  static Result<LinearLRScheduler> create(Optimizer& optimizer, int64_t warmup_steps, int64_t total_steps,
                                          double initial_lr);
  // Advances one step and sets the optimizer's learning rate.
  void step();
  double rate() const;

 private:
  LinearLRScheduler(Optimizer& o, int64_t w, int64_t t, double lr) : optimizer_(&o), warmup_(w), total_(t), lr0_(lr) {}
  Optimizer* optimizer_;
  int64_t warmup_, total_, step_ = 0;
  double lr0_;
};

}  // namespace onyx::training
