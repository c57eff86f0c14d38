// The placement a session would make for a model with one provider first and the CPU after it,
// worked out without making the provider: `onyx optimize --for-provider cuda` answers "would
// this model run wholly on the GPU, and could its runs be recorded as CUDA graphs?" on a
// machine that has no GPU.
//
// It is the session's own planner (GraphPlan::build) in its dry-run mode over a stand-in for
// the provider: the same kernels, refusals, host-arithmetic rule and copies, with no constant
// uploaded and no kernel prepared. What it cannot see: types static inference leaves unknown
// (a kernel accepts those and checks them at run).
#pragma once
#include <string>

#include "core/status.h"
#include "ir/graph.h"

namespace onyx::cli {

// "placement for CUDA ...: N node(s) on CUDA, M on the CPU, K copy step(s)", one line per node
// left on the CPU with the reason, and whether a run with every input bound on the device can
// be recorded (session/run_capture.h), with what prevents it. INVALID_ARGUMENT for a provider
// this build does not have.
Result<std::string> static_placement_report(const ir::Model& model, const std::string& provider);

}  // namespace onyx::cli
