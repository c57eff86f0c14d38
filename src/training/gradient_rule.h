// Gradient rules: one per op, in src/training/gradients/<stem>.cc, registering themselves as
// kernels do. A rule is given a forward node and the gradients of its outputs and emits
// ordinary ONNX nodes (through GradientEmitter) for the gradients of the inputs that need one.
//
// Contract of a rule:
//   - ctx.output_grads[k] names the gradient of output k, or "" when none flows into it (a
//     rule may then treat it as zero, or refuse when it needs it);
//   - ctx.needs_grad[i] says whether input i needs a gradient; the rule sets
//     ctx.input_grads[i] for those (leaving "" where the input has no gradient, e.g. an index);
//   - a gradient has the shape of its input: broadcasting is undone with
//     GradientEmitter::sum_to_shape_of;
//   - a rule that cannot differentiate this node (an attribute or rank it does not handle)
//     returns NOT_IMPLEMENTED saying what; the builder adds the node and the path from the loss.
#pragma once
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/status.h"
#include "ir/graph.h"

namespace onyx::training {

// Emits the backward graph's nodes and constants into the graph being differentiated, with
// fresh names, and answers questions about static types.
class GradientEmitter {
 public:
  virtual ~GradientEmitter() = default;
  // The model's opset for ai.onnx: rules emit the forms valid there (ReduceSum's axes input
  // from 13, ...).
  virtual int64_t opset() const = 0;
  // A node with `outputs` fresh outputs (named after `hint`); returns their names.
  virtual std::vector<std::string> node(const std::string& op, const std::vector<std::string>& inputs,
                                        std::map<std::string, ir::Attribute> attributes = {}, size_t outputs = 1,
                                        const std::string& domain = "") = 0;
  // One-output node.
  std::string op(const std::string& op, const std::vector<std::string>& inputs,
                 std::map<std::string, ir::Attribute> attributes = {}) {
    return node(op, inputs, std::move(attributes), 1).front();
  }
  // An initializer holding `t`.
  virtual std::string constant(Tensor t, const std::string& hint) = 0;
  // A scalar of `dtype` holding `value` (float and integer types).
  virtual Result<std::string> scalar(DataType dtype, double value) = 0;
  // A 1-D int64 initializer.
  virtual std::string int64s(const std::vector<int64_t>& values) = 0;
  // The initializer `name` (a constant input such as axes or a shape), or null.
  virtual const Tensor* initializer(const std::string& name) const = 0;
  // The static type of a value (kUnknown when inference could not tell).
  virtual const ir::TypeInfo& type_of(const std::string& value) const = 0;

  // `grad`, a value with the shape of the forward value `shaped_as` (a broadcasting op's
  // output), summed over the dims that broadcasting added or stretched, so that it has the
  // shape of `like` (one of that op's inputs). Both forward values need static ranks, and
  // known sizes (or the same symbol) wherever they may differ; `grad` itself when they agree.
  virtual Result<std::string> sum_to_shape_of(const std::string& grad, const std::string& shaped_as,
                                              const std::string& like) = 0;
  // The same with the static shape of `grad` given directly.
  virtual Result<std::string> sum_to_shape(const std::string& grad, const SymbolicShape& grad_shape,
                                           const std::string& like) = 0;
  // ReduceSum over `axes` in the model's opset form.
  virtual std::string reduce_sum(const std::string& x, const std::vector<int64_t>& axes, bool keepdims) = 0;
  // Unsqueeze at `axes` in the model's opset form (axes an input from opset 13).
  std::string unsqueeze(const std::string& x, const std::vector<int64_t>& axes);

  // Attribute helpers.
  static ir::Attribute int_attr(const std::string& name, int64_t v);
  static ir::Attribute ints_attr(const std::string& name, std::vector<int64_t> v);
  static ir::Attribute float_attr(const std::string& name, float v);
  static ir::Attribute string_attr(const std::string& name, std::string v);
};

// Thrown by GradientContext::input / output past the node's own (caught by the builder).
struct MissingNodeSlot {};

// output_grads, needs_grad and input_grads hold at least kMinSlots entries (past the node's own:
// "", false and ignored), so a rule may index its op's inputs and outputs as the op defines
// them; input() and output() throw MissingNodeSlot past the node's own, which the builder
// reports as a node with too few inputs or outputs (a broken or hostile model).
struct GradientContext {
  static constexpr size_t kMinSlots = 8;
  const ir::Node& node;
  std::vector<std::string> output_grads;
  std::vector<bool> needs_grad;
  std::vector<std::string> input_grads;
  GradientEmitter& emit;

  const std::string& input(size_t i) const {
    if (i >= node.inputs.size()) throw MissingNodeSlot{};
    return node.inputs[i];
  }
  const std::string& output(size_t i) const {
    if (i >= node.outputs.size()) throw MissingNodeSlot{};
    return node.outputs[i];
  }
  DataType elem_type(const std::string& value) const { return emit.type_of(value).elem_type; }
};

using GradientRule = std::function<Status(GradientContext&)>;

class GradientRegistry {
 public:
  static GradientRegistry& global();
  void add(const std::string& domain, const std::string& op, GradientRule rule);
  // The rule for (domain, op), or null.
  const GradientRule* find(const std::string& domain, const std::string& op) const;
  // "Add, Mul, ..." for messages.
  std::string names() const;

 private:
  std::map<std::pair<std::string, std::string>, GradientRule> rules_;
};

struct GradientRegistrar {
  GradientRegistrar(const char* domain, const char* op, GradientRule rule) {
    GradientRegistry::global().add(domain, op, std::move(rule));
  }
};

#define ONYX_GRADIENT_CONCAT_INNER(a, b) a##b
#define ONYX_GRADIENT_CONCAT(a, b) ONYX_GRADIENT_CONCAT_INNER(a, b)
// ONYX_REGISTER_GRADIENT("", "Add", add_gradient);
#define ONYX_REGISTER_GRADIENT(domain, op, rule) \
  static const ::onyx::training::GradientRegistrar ONYX_GRADIENT_CONCAT(kGradientRegistrar, __COUNTER__)(domain, op, rule)

}  // namespace onyx::training
