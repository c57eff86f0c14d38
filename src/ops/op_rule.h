// Per-op static rules: from what is known about a node's inputs at load (types, possibly
// symbolic shapes, constant values) say what its outputs will be. Best-effort by contract:
// a rule fills what it can, leaves the rest unknown, and never fails on something merely
// unknown. A rule returns an error only for a certain contradiction (e.g. MatMul inner dims
// 3 and 4), which the loader reports as a warning and the run-time check confirms.
//
// One op, one stem: the rule for GatherElements lives in src/ops/gather_elements.cc and ends
// with ONYX_REGISTER_OP_RULE. The same rule must agree with the kernel at run time: with
// SessionOptions::verify_shapes every kernel output is checked against it (onyx test does).
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "core/status.h"
#include "ir/graph.h"

namespace onyx::ops {

class InferenceContext {
 public:
  InferenceContext(const ir::Node& node, int64_t opset, std::vector<const ir::TypeInfo*> input_types,
                   std::vector<const Tensor*> constant_inputs)
      : node_(node), opset_(opset), input_types_(std::move(input_types)),
        constant_inputs_(std::move(constant_inputs)), output_types_(node.outputs.size()) {}

  const ir::Node& node() const { return node_; }
  int64_t opset() const { return opset_; }
  int num_inputs() const { return int(input_types_.size()); }
  int num_outputs() const { return int(output_types_.size()); }
  bool has_input(int i) const { return i < num_inputs() && !node_.inputs[size_t(i)].empty(); }
  // The static type of input i; null when omitted or unknown.
  const ir::TypeInfo* input_type(int i) const { return i < num_inputs() ? input_types_[size_t(i)] : nullptr; }
  // Element type of tensor input i, or kUndefined.
  DataType input_elem_type(int i) const;
  // Shape of tensor input i; has_rank=false when unknown. A known dim is in [0, 2^62]: a
  // declared one outside that range is read as unknown.
  SymbolicShape input_shape(int i) const;
  // The value of input i when known at load (an initializer or a Constant's output); else null.
  const Tensor* constant_input(int i) const {
    return i < int(constant_inputs_.size()) ? constant_inputs_[size_t(i)] : nullptr;
  }

  bool has_attr(const std::string& name) const { return node_.attribute(name) != nullptr; }
  int64_t attr_int(const std::string& name, int64_t fallback) const;
  float attr_float(const std::string& name, float fallback) const;
  std::string attr_string(const std::string& name, const std::string& fallback) const;
  std::vector<int64_t> attr_ints(const std::string& name, std::vector<int64_t> fallback = {}) const;

  // Sets output i to a tensor type; `shape` may have unknown dims or no rank.
  void set_output(int i, DataType elem, SymbolicShape shape);
  void set_output_type(int i, ir::TypeInfo type);
  std::vector<ir::TypeInfo>& output_types() { return output_types_; }

 private:
  const ir::Node& node_;
  int64_t opset_;
  std::vector<const ir::TypeInfo*> input_types_;
  std::vector<const Tensor*> constant_inputs_;
  std::vector<ir::TypeInfo> output_types_;
};

using InferFn = std::function<Status(InferenceContext&)>;

struct OpRule {
  std::string domain;  // "" for ai.onnx
  std::string op;
  int since_opset;
  int until_opset;
  InferFn infer;
};

class OpRuleRegistry {
 public:
  static OpRuleRegistry& global();
  void add(OpRule rule) { rules_.push_back(std::move(rule)); }
  const OpRule* find(const std::string& domain, const std::string& op, int64_t opset) const;
  const std::vector<OpRule>& all() const { return rules_; }

 private:
  std::vector<OpRule> rules_;
};

struct OpRuleRegistrar {
  explicit OpRuleRegistrar(OpRule rule) { OpRuleRegistry::global().add(std::move(rule)); }
};

// ONYX_REGISTER_OP_RULE("", "Relu", 1, 1000, infer_same_as_input0);
#define ONYX_REGISTER_OP_RULE(DOMAIN, OP, SINCE, UNTIL, FN) \
  static ::onyx::ops::OpRuleRegistrar ONYX_CONCAT(onyx_op_rule_, __COUNTER__)(::onyx::ops::OpRule{DOMAIN, OP, SINCE, UNTIL, FN})

// Common rules, shared by many ops.
// Output 0 has input 0's type and shape (unary elementwise).
Status infer_same_as_input0(InferenceContext& ctx);
// Output 0: input 0's element type, multidirectional broadcast of all tensor inputs' shapes.
Status infer_broadcast(InferenceContext& ctx);
// Output 0: bool, multidirectional broadcast of the inputs' shapes (comparisons, logic).
Status infer_broadcast_bool(InferenceContext& ctx);

// Broadcasts symbolic shapes; unknown where it cannot tell. Error only on a certain clash.
Result<SymbolicShape> broadcast_symbolic(const std::vector<SymbolicShape>& shapes);
// A rank-r shape of unknown dims.
// Ranks above this are left unknown by the rules (a hostile shape input may claim any rank).
inline constexpr int64_t kMaxStaticRank = 1024;
SymbolicShape unknown_dims(int64_t rank);
// The statistics shape of a normalisation over dims [axis, rank) of x: x.shape[:axis] +
// [1] * (rank - axis). Unknown when x's rank is; an error when axis is outside [-rank, rank).
Result<SymbolicShape> normalized_stats_shape(const SymbolicShape& x, int64_t axis);
SymbolicShape known_shape(const std::vector<int64_t>& dims);

}  // namespace onyx::ops
