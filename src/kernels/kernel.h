// The kernel interface every provider implements, and the self-registration macro.
//
// Lifecycle: the session creates one Kernel per node when it builds its plan and calls
// prepare(info) once (attributes parsed and checked, constant inputs pre-packed); then
// compute(ctx) runs for every Session::run, possibly from several threads at once, so
// compute is const and keeps per-run state on the stack or in ctx.
//
// A kernel file defines its classes and ends with ONYX_REGISTER_KERNEL lines; there is no
// central table to edit. One op per file, named by the op's snake_case stem.
#pragma once
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/status.h"
#include "core/tensor.h"
#include "core/value.h"
#include "ir/graph.h"

namespace onyx {

class ExecutionProvider;  // providers/execution_provider.h
class GraphPlan;  // session/graph_plan.h: a planned graph (If/Loop/Scan bodies too)
using SubgraphPlan = GraphPlan;
class Frame;         // session/graph_plan.h: the values of one running graph

class KernelRegistry;

// Session-wide choices that change how kernels compute (SessionOptions), the same for every
// node of a session and its subgraphs.
struct KernelSettings {
  // Float32 MatMul and Gemm with constant 2-D weights multiply in bfloat16: weights packed
  // as bf16, the activations rounded to bf16 on the way in, sums and outputs in float32.
  // About twice the speed on CPUs with AVX512_BF16 at ~3 significant digits; where the CPU
  // cannot, the product stays float32.
  bool bf16_gemm = false;
  // Kernels the session's caller brought (custom operators), looked up before the built-in
  // ones (find_kernel); null for none. The session keeps them alive.
  const KernelRegistry* session_kernels = nullptr;
};

// What a kernel may know when it is created: the node, its attributes, the model's opset
// for the node's domain, constant inputs, planned subgraphs and the session's settings.
class KernelInfo {
 public:
  KernelInfo(const ir::Node& node, int64_t opset, std::vector<const Tensor*> constant_inputs,
             std::function<Result<std::shared_ptr<const SubgraphPlan>>(const ir::Graph&)> plan_subgraph,
             KernelSettings settings = {}, ExecutionProvider* provider = nullptr)
      : node_(node), opset_(opset), constant_inputs_(std::move(constant_inputs)),
        plan_subgraph_(std::move(plan_subgraph)), settings_(settings), provider_(provider) {}

  const ir::Node& node() const { return node_; }
  // The provider the node was placed on (its stream, handles and memory); null for the CPU.
  // It outlives the kernel.
  ExecutionProvider* provider() const { return provider_; }
  int64_t opset() const { return opset_; }
  const KernelSettings& settings() const { return settings_; }
  int num_inputs() const { return int(node_.inputs.size()); }
  int num_outputs() const { return int(node_.outputs.size()); }
  bool has_input(int i) const { return i < num_inputs() && !node_.inputs[size_t(i)].empty(); }

  bool has_attr(const std::string& name) const { return node_.attribute(name) != nullptr; }
  const ir::Attribute* attr(const std::string& name) const { return node_.attribute(name); }
  int64_t attr_int(const std::string& name, int64_t fallback) const;
  float attr_float(const std::string& name, float fallback) const;
  std::string attr_string(const std::string& name, const std::string& fallback) const;
  std::vector<int64_t> attr_ints(const std::string& name, std::vector<int64_t> fallback = {}) const;
  std::vector<float> attr_floats(const std::string& name, std::vector<float> fallback = {}) const;
  std::vector<std::string> attr_strings(const std::string& name) const;
  const Tensor* attr_tensor(const std::string& name) const;

  // The value of input i when it is a constant initializer (not a feedable graph input); else null.
  const Tensor* constant_input(int i) const {
    return i < int(constant_inputs_.size()) ? constant_inputs_[size_t(i)] : nullptr;
  }
  // Plans the graph attribute `name` as a subgraph that may read this graph's values.
  Result<std::shared_ptr<const SubgraphPlan>> subgraph(const std::string& name) const;

 private:
  const ir::Node& node_;
  int64_t opset_;
  std::vector<const Tensor*> constant_inputs_;
  std::function<Result<std::shared_ptr<const SubgraphPlan>>(const ir::Graph&)> plan_subgraph_;
  KernelSettings settings_;
  ExecutionProvider* provider_;
};

// What compute() sees: the node's input values and its output slots for one run.
class KernelContext {
 public:
  KernelContext(const std::vector<const Value*>& inputs, std::vector<Value*>& outputs, const Frame* frame)
      : inputs_(inputs), outputs_(outputs), frame_(frame) {}

  int num_inputs() const { return int(inputs_.size()); }
  // True when input i was given and is not an absent optional.
  bool has_input(int i) const { return i < num_inputs() && inputs_[size_t(i)] && !inputs_[size_t(i)]->is_none(); }
  // Input i as a Value; a none Value when omitted.
  const Value& input_value(int i) const;
  // Input i as a tensor; an undefined tensor when omitted or not a tensor.
  const Tensor& input(int i) const;

  int num_outputs() const { return int(outputs_.size()); }
  // False when the node leaves output i unnamed; kernels may skip computing it.
  bool output_requested(int i) const { return i < num_outputs() && outputs_[size_t(i)] != nullptr; }
  // Allocates output i (zero-filled). Outputs the node leaves unnamed or does not have get a
  // scratch tensor, so kernels may always write their optional outputs.
  Result<Tensor*> allocate_output(int i, DataType dtype, const Shape& shape);
  // As allocate_output, without the zero fill: for kernels that write every element of the
  // output (its contents are unspecified until then).
  Result<Tensor*> allocate_output_uninitialized(int i, DataType dtype, const Shape& shape);
  // Stores a ready value (an aliasing tensor, a sequence, none) as output i.
  void set_output(int i, Value value);
  // A working tensor for this compute call, from the run's arena, so that the session's
  // memory_limit_bytes counts it: a request past the limit is a RUNTIME_ERROR instead of an
  // allocation. Its memory goes back when the returned tensor (and its copies) are dropped.
  // Kernels whose working memory grows with their inputs' or outputs' sizes take it here.
  Result<Tensor> allocate_scratch(DataType dtype, const Shape& shape, bool zero_fill = false) const;

  // CANCELLED when the run has been told to stop (RunOptions terminate, or its time limit has
  // passed); OK otherwise, and always OK outside a run (constant folding). The run checks
  // between nodes; a kernel whose work is not bounded by its tensors' sizes (a pooling window
  // far larger than its input) calls this every so often and returns the error.
  Status check_stop() const;

  // Runs a planned subgraph with these inputs; it reads outer-scope values from this frame.
  Result<std::vector<Value>> run_subgraph(const SubgraphPlan& plan, std::vector<Value> inputs) const;

  // Where outputs and scratch come from: the run's arena (null, the CPU) or the memory of the
  // device the node was placed on. Set by the plan before compute.
  void set_device_allocator(Allocator* allocator) { device_allocator_ = allocator; }

 private:
  Result<Tensor*> allocate_output_filled(int i, DataType dtype, const Shape& shape, bool zero_fill);

  Allocator* device_allocator_ = nullptr;
  const std::vector<const Value*>& inputs_;
  std::vector<Value*>& outputs_;
  const Frame* frame_;
  // Outputs the node does not use, by index; a deque so that growing it keeps the addresses
  // already handed out.
  std::deque<Value> scratch_;
};

class Kernel {
 public:
  virtual ~Kernel() = default;
  // Called once at plan time. Parse and validate attributes here.
  virtual Status prepare(const KernelInfo& info) { (void)info; return Status::Ok(); }
  // Called for every run; must be thread-safe (no mutation of members).
  virtual Status compute(KernelContext& ctx) const = 0;
  // Constant inputs whose values this kernel copied (e.g. packed) in prepare and never reads
  // again. When every reader of a constant says so, the plan drops its data: compute then
  // sees a tensor of the same dtype and shape whose data pointer is null.
  virtual std::vector<int> released_constant_inputs() const { return {}; }
  // How this node computes, for kernels with more than one way (e.g. "oneDNN int8" or
  // "reference"); empty for the rest. Known after prepare; reported by Session.
  virtual std::string implementation() const { return {}; }
  // (output k, input j) pairs where output k may be written over input j's memory: the kernel
  // computes each element of output k from the same element of input j (and anything else)
  // before writing it, and reads nothing of input j after. The session then lets a caller
  // bind output k to the very buffer it feeds as input j (an in-place update, e.g. an
  // optimizer step) when nothing else reads that input. Outputs so written are allocated
  // with allocate_output_uninitialized.
  virtual std::vector<std::pair<int, int>> in_place_outputs() const { return {}; }
};

using KernelFactory = std::function<std::unique_ptr<Kernel>()>;

inline constexpr int kLatestOpset = 1000;

// What a provider's kernel is asked before a node is placed on it: the node and the element
// types static inference knows for its inputs and outputs (kUndefined where it does not).
struct KernelQuery {
  const ir::Node& node;
  int64_t opset;
  std::vector<DataType> input_types;
  std::vector<DataType> output_types;
};

struct KernelDef {
  std::string provider;  // "CPU", "CUDA"
  std::string domain;    // "" for ai.onnx
  std::string op;
  int since_opset;       // first model opset (for the domain) this kernel serves
  int until_opset;       // last one, inclusive; kLatestOpset for open-ended
  KernelFactory factory;
  // Null: the kernel takes every node it is registered for. Otherwise "" when it takes this
  // node, or why not ("takes float32 and float16, not int64 (input 0)"), for the placement
  // report. Device kernels say no to types they cannot compute, so that such a node goes to
  // the CPU instead of failing at run.
  std::function<std::string(const KernelQuery&)> refuses;
  // Inputs a device kernel reads on the host (shapes, axes, sizes): the planner keeps them
  // there. Ignored for CPU kernels.
  std::vector<int> host_inputs;
  // A CPU kernel that never reads the elements of its other inputs (Reshape, Squeeze,
  // Identity: the output views the input's buffer): it serves every provider that has no
  // kernel of its own for the op, on that provider's device.
  bool any_device = false;
  // Inputs a CPU kernel reads only the dims of (Shape, Size): a value on a device reaches it
  // where it is, with no copy to the host (nor the wait for the device that copy needs).
  std::vector<int> shape_only_inputs;
};

class KernelRegistry {
 public:
  static KernelRegistry& global();
  void add(KernelDef def);
  // The kernel for a node on `provider` (or a CPU kernel with any_device), or null.
  const KernelDef* find(const std::string& provider, const std::string& domain, const std::string& op,
                        int64_t opset) const;
  const std::vector<KernelDef>& all() const { return defs_; }

 private:
  std::vector<KernelDef> defs_;
};

// The kernel for a node: from `session_kernels` (a session's custom operators; may be null)
// when it has one, otherwise from the global registry.
const KernelDef* find_kernel(const KernelRegistry* session_kernels, const std::string& provider,
                             const std::string& domain, const std::string& op, int64_t opset);

struct KernelRegistrar {
  explicit KernelRegistrar(KernelDef def) { KernelRegistry::global().add(std::move(def)); }
};

// A kernel of another provider, with its KernelDef::refuses check (a callable, or nullptr)
// and its host inputs (a braced list):
// ONYX_REGISTER_PROVIDER_KERNEL("CUDA", "", "Relu", 6, kLatestOpset, CudaRelu, float_types_only, {});
#define ONYX_REGISTER_PROVIDER_KERNEL(PROVIDER, DOMAIN, OP, SINCE, UNTIL, CLASS, REFUSES, ...)       \
  static ::onyx::KernelRegistrar ONYX_CONCAT(onyx_kernel_registrar_, __COUNTER__)(                 \
      ::onyx::KernelDef{PROVIDER, DOMAIN, OP, SINCE, UNTIL,                                         \
                        []() -> std::unique_ptr<::onyx::Kernel> { return std::make_unique<CLASS>(); }, \
                        REFUSES, std::vector<int> __VA_ARGS__, false, {}})

// A CPU kernel that serves every device (KernelDef::any_device), with its host inputs:
// ONYX_REGISTER_ANY_DEVICE_KERNEL("", "Reshape", 1, kLatestOpset, ReshapeKernel, {1});
#define ONYX_REGISTER_ANY_DEVICE_KERNEL(DOMAIN, OP, SINCE, UNTIL, CLASS, ...)                             \
  static ::onyx::KernelRegistrar ONYX_CONCAT(onyx_kernel_registrar_, __COUNTER__)(                    \
      ::onyx::KernelDef{"CPU", DOMAIN, OP, SINCE, UNTIL,                                                \
                        []() -> std::unique_ptr<::onyx::Kernel> { return std::make_unique<CLASS>(); },    \
                        nullptr, std::vector<int> __VA_ARGS__, true, {}})

// ONYX_REGISTER_KERNEL("", "Relu", 6, kLatestOpset, ReluKernel);
#define ONYX_REGISTER_KERNEL(DOMAIN, OP, SINCE, UNTIL, CLASS)                              \
  static ::onyx::KernelRegistrar ONYX_CONCAT(onyx_kernel_registrar_, __COUNTER__)(         \
      ::onyx::KernelDef{"CPU", DOMAIN, OP, SINCE, UNTIL,                                     \
                        []() -> std::unique_ptr<::onyx::Kernel> { return std::make_unique<CLASS>(); }, \
                        nullptr, {}, false, {}})

// A CPU kernel that reads only the dims of the listed inputs (KernelDef::shape_only_inputs):
// ONYX_REGISTER_SHAPE_READING_KERNEL("", "Shape", 1, kLatestOpset, ShapeKernel, {0});
#define ONYX_REGISTER_SHAPE_READING_KERNEL(DOMAIN, OP, SINCE, UNTIL, CLASS, ...)                   \
  static ::onyx::KernelRegistrar ONYX_CONCAT(onyx_kernel_registrar_, __COUNTER__)(                 \
      ::onyx::KernelDef{"CPU", DOMAIN, OP, SINCE, UNTIL,                                             \
                        []() -> std::unique_ptr<::onyx::Kernel> { return std::make_unique<CLASS>(); }, \
                        nullptr, {}, false, std::vector<int> __VA_ARGS__})

}  // namespace onyx
