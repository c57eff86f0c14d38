// The placement a session would make for a model with one provider first and the CPU after it,
// worked out from the kernels registered in this build (KernelDef::refuses with the statically
// inferred types), without making the provider: `onyx optimize --for-provider cuda` answers
// "would this model run wholly on the GPU?" on a machine that has none.
//
// It is the session's choose_provider() on every node of the main graph. What it cannot see:
// outputs read inside If/Loop/Scan bodies (a session keeps those producers on the CPU), the
// plan's rule that keeps integer arithmetic on host values on the CPU (shape chains; it needs
// to know where each value lives), and types static inference leaves unknown (a kernel
// accepts those and checks them at run). So it may count on the device a few shape-chain
// nodes a session runs on the CPU, never the reverse.
#pragma once
#include <string>

#include "core/status.h"
#include "ir/graph.h"

namespace onyx::cli {

// "placement for CUDA ...: N nodes on CUDA, M on the CPU" and one line per node left on the
// CPU with the provider's reason. INVALID_ARGUMENT for a provider this build does not have.
Result<std::string> static_placement_report(const ir::Model& model, const std::string& provider);

}  // namespace onyx::cli
