// Custom operators through the C API: what ORT's OrtCustomOpDomain, OrtKernelInfo,
// OrtKernelContext and OrtLogger handles are in onyx, and how a session options' custom-op
// domains become onyx kernels. A custom op runs on the CPU as an onyx Kernel (CustomOpKernel in
// custom_ops.cc) that calls the library's CreateKernel(V2) once, when the session is made, and
// KernelCompute(V2) at every run, handing it OrtKernelInfo and OrtKernelContext views of the
// node and of the run. Ops for another execution provider are not registered (a model that
// needs one fails with "no CPU kernel" naming it).
#pragma once
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "capi/capi_internal.h"
#include "kernels/kernel.h"

// A domain handle. It shares its state with every OrtSessionOptions it is added to, so ops
// added after AddCustomOpDomain still count, and ReleaseCustomOpDomain frees only the handle.
struct OrtCustomOpDomain {
  std::shared_ptr<onyx::capi::CustomOpDomainState> state = std::make_shared<onyx::capi::CustomOpDomainState>();
};

struct OrtLogger {
  std::string node;  // the node's label, written before each message
  int log_level = 2;
};

// Everything a custom op may ask about its node, copied so that it stays valid after kernel
// creation; a plain value, so CopyKernelInfo is a copy. Pointers handed out into it (constant
// inputs, the logger) stay valid while it lives: nothing changes it after the kernel is made.
struct OrtKernelInfo {
  onyx::ir::Node node;
  int64_t opset = 1;
  std::vector<std::optional<OrtValue>> constant_inputs;  // empty where the input is not constant
  std::vector<OrtTypeInfo> input_types, output_types;   // static, where onyx inferred them
  std::map<std::string, std::string> config;  // the session's config entries (KernelInfo_GetConfigEntries)
  OrtLogger logger;                           // the node's label and the session's log level
};

// One compute call's view for the custom op: its inputs as OrtValues (null where omitted) and
// the outputs it asked for (the values own views of the run's output tensors). Its logger is
// the kernel info's.
struct OrtKernelContext {
  onyx::KernelContext* ctx = nullptr;
  const OrtCustomOp* op = nullptr;
  const OrtKernelInfo* info = nullptr;
  std::vector<std::unique_ptr<OrtValue>> inputs;
  std::vector<std::unique_ptr<OrtValue>> outputs;
};

namespace onyx::capi {

// The kernels of every CPU op in the options' custom domains (one KernelDef each, for the
// opsets the op serves); null when there are none. The options' custom-op libraries are kept
// open by every kernel made; `config` (the session's config entries) and `log_level` are what
// the kernels' OrtKernelInfo reports. INVALID_ARGUMENT for an op without a name or kernel
// functions.
Result<std::shared_ptr<const KernelRegistry>> custom_kernels_of(const OrtSessionOptions& options,
                                                                const std::map<std::string, std::string>& config,
                                                                int log_level);

// Opens the shared library at `path` and calls its RegisterCustomOps(options, api base), which
// adds its domains to `options`; the library stays open while `options` or a session made
// with them lives. NO_SUCHFILE when it cannot be opened, FAIL when it has no RegisterCustomOps
// or that returns an error (whose message is kept).
OrtStatus* register_custom_ops_library(OrtSessionOptions* options, const std::string& path);

}  // namespace onyx::capi
