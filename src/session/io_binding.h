// IoBinding: a session's inputs and outputs bound once and reused across runs (ONNX
// Runtime's IOBinding), so that a run copies nothing it need not copy.
//
//   IoBinding b(*session);
//   b.bind_input("x", Value(x));          // checked now as a feed is at run
//   b.bind_output("y", y_buffer);         // a caller buffer of the exact dtype and shape
//   b.bind_output("mask");                // any shape: onyx allocates it (NonZero, ...)
//   session->run(b);                      // b.outputs() holds the values, in bind order
//
// An output bound to a buffer is written straight into it by the kernel that produces it
// when that kernel allocates exactly that dtype and shape; an output that arrives any other
// way (a graph input or initializer passed through, an aliasing Reshape) is copied into it
// once. A produced value of another dtype or shape is an INVALID_ARGUMENT error that names
// both, and nothing is written past the buffer. A buffer that overlaps a bound input is
// filled by a copy after the run, never while kernels still read the input, except an
// in-place update: an output bound to exactly the tensor fed as an input that its producing
// kernel may write over (Kernel::in_place_outputs, e.g. AdamW's parameter and moments) and
// that nothing else reads is written straight into it.
//
// Outputs left on a device are complete when run() returns: it waits for the session's device
// providers, as ONNX Runtime does, unless the run config entry
// "disable_synchronize_execution_providers" is "1" (then the caller waits, through
// Session::provider_for(device)->synchronize(), before reading them).
//
// One binding is used by one thread at a time; several bindings may run one session at once.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "core/allocator.h"
#include "core/value.h"

namespace onyx {

class Session;

class IoBinding {
 public:
  // The session must outlive the binding.
  explicit IoBinding(const Session& session) : session_(session) {}

  // Binds graph input `name` (rebinding replaces it; the other bindings stay). The value is
  // checked against the declared type now: NOT_FOUND for an unknown name, INVALID_ARGUMENT
  // for a wrong kind, dtype, rank or fixed dim. Tensors are used without a copy.
  Status bind_input(const std::string& name, Value value);
  // Binds output `name` to `buffer`, a defined tensor (Tensor::borrow wraps caller memory).
  // INVALID_ARGUMENT at once when its dtype or rank contradicts the declared output type.
  Status bind_output(const std::string& name, Tensor buffer);
  // Binds output `name` to a device: the run allocates it there with the shape it produces.
  // An output produced on that device stays there (its copy to the host is skipped); one
  // produced elsewhere is copied there. A device no provider of the session uses is
  // INVALID_ARGUMENT. A buffer bound with bind_output(name, buffer) may be device memory too
  // (Tensor::borrow with a device): the result is copied into it by that device's provider.
  Status bind_output(const std::string& name, Device device = Device{});
  void clear_inputs() { inputs_.clear(); }
  void clear_outputs() {
    outputs_.clear();
    values_.clear();
  }

  const std::vector<std::pair<std::string, Value>>& inputs() const { return inputs_; }
  struct BoundOutput {
    std::string name;
    size_t index = 0;  // among the session's outputs
    Tensor buffer;     // undefined: bound to a device only
    Device device;
  };
  const std::vector<BoundOutput>& bound_outputs() const { return outputs_; }
  // The outputs of the last successful run, in bind order (a buffer-bound output is a
  // tensor over that buffer); empty before the first run and after clear_outputs().
  const std::vector<Value>& outputs() const { return values_; }
  // How many buffer-bound outputs the last run had to copy into their buffers (0 when every
  // producing kernel wrote straight into them).
  size_t copied_outputs() const { return copied_; }

 private:
  friend class Session;
  // Adds `out`, or replaces the binding of the same name; the last run's outputs are dropped.
  void store(BoundOutput out);
  const Session& session_;
  std::vector<std::pair<std::string, Value>> inputs_;
  std::vector<BoundOutput> outputs_;
  std::vector<Value> values_;
  size_t copied_ = 0;
};

}  // namespace onyx
