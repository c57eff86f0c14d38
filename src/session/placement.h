// Placement: which provider runs each node of the main graph, and the copies between them.
//
// Each node goes to the first provider, in the session's priority order, whose kernel for the
// node's (domain, op, opset) exists and takes it (KernelDef::refuses); otherwise to the CPU,
// and the report says why each provider before it said no. Nodes with subgraphs (If, Loop,
// Scan) and nodes whose outputs a subgraph reads run on the CPU: subgraphs are planned for
// the CPU only. With `strict`, a node that falls back to the CPU while another provider was
// asked for is an error naming the node and the reasons.
//
// Where a value produced (or fed, or stored) on one device is read on another, the plan adds a
// copy step (op "MemcpyFromHost" or "MemcpyToHost", as ONNX Runtime names them), once per value
// and device; constants are copied once, when the plan is built. A copy step whose input is
// already where it should be (a device buffer bound as an input) passes it on untouched.
#pragma once
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/graph.h"
#include "kernels/kernel.h"
#include "providers/execution_provider.h"

namespace onyx {

struct PlacementOptions {
  // Priority order. The CPU takes what none of them takes, whether or not it is listed.
  std::vector<std::shared_ptr<ExecutionProvider>> providers;
  // A node that falls back to the CPU while another provider was asked for is an error.
  bool strict = false;
  // Static types of values (for KernelDef::refuses); null: all unknown.
  const std::unordered_map<std::string, ir::TypeInfo>* types = nullptr;
  // Plan the placement and the copies only: constants are not copied to devices and kernels
  // are not prepared, so the providers need no device and the plan cannot run. For reports
  // made without the device (onyx optimize --for-provider).
  bool dry_run = false;
  // The session's custom-operator kernels, looked up before the built-in ones; may be null.
  const KernelRegistry* session_kernels = nullptr;
};

// Where one node runs and, when that is not the first provider asked for, why.
struct NodePlacement {
  std::string node;      // its label: "'conv1' (Conv)"
  std::string op;        // "Conv", "com.microsoft:Attention", or "MemcpyFromHost" for a copy
  std::string provider;  // "CPU", "CUDA"
  std::string reason;    // "" when on the first choice; else each earlier provider's refusal
  bool is_copy = false;
};

// The provider for `node`: its index in `providers` (CPU appended when absent), and the
// refusals of the providers before it. `captured` holds the names subgraphs read from this
// graph. NOT_IMPLEMENTED when not even the CPU has a kernel; INVALID_ARGUMENT for a strict
// fallback.
struct NodeChoice {
  size_t provider = 0;
  std::string reason;
};
Result<NodeChoice> choose_provider(const ir::Node& node, int64_t opset,
                                   const std::vector<std::shared_ptr<ExecutionProvider>>& providers,
                                   const PlacementOptions& options, const std::set<std::string>& captured);

// The kernel of a copy step: moves its one input to `target` (the host when `target` is the
// CPU) through `provider` (the non-CPU side's copy), or passes it on when it is there already.
// A none input stays none; sequences and maps do not cross devices (NOT_IMPLEMENTED).
class DeviceCopyKernel final : public Kernel {
 public:
  DeviceCopyKernel(std::shared_ptr<ExecutionProvider> provider, Device target)
      : provider_(std::move(provider)), target_(target) {}
  Status compute(KernelContext& ctx) const override;

 private:
  std::shared_ptr<ExecutionProvider> provider_;
  Device target_;
};

}  // namespace onyx
