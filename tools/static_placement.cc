#include "static_placement.h"

#include <map>
#include <memory>

#include "ops/infer_graph.h"
#include "providers/execution_provider.h"
#include "session/graph_plan.h"
#include "session/placement.h"

namespace onyx::cli {
namespace {

// Stands in for a provider in a dry-run plan, which reads its name and device only.
class StandInProvider final : public ExecutionProvider {
 public:
  StandInProvider(std::string name, Device device) : name_(std::move(name)), device_(device) {}
  std::string name() const override { return name_; }
  Device device() const override { return device_; }
  Status copy(const Tensor&, Tensor&) const override {
    return error(StatusCode::kInternal, "the stand-in for ", name_, " holds no memory");
  }

 private:
  std::string name_;
  Device device_;
};

}  // namespace

Result<std::string> static_placement_report(const ir::Model& model, const std::string& provider) {
  const std::string name = ProviderRegistry::global().canonical(provider);
  if (name.empty()) return invalid_argument("provider '", provider, "' is not part of this build");
  const ops::GraphTypes types = ops::infer_graph_types(model.graph, model.opsets);
  PlacementOptions options;
  options.types = &types.all;
  options.dry_run = true;
  if (name != "CPU")
    options.providers = {std::make_shared<StandInProvider>(
        name, Device{name == "CUDA" ? Device::Type::kCuda : Device::Type::kSimulated, 0})};
  ONYX_ASSIGN_OR_RETURN(std::shared_ptr<GraphPlan> plan,
                        GraphPlan::build(model.graph, model.opsets, nullptr, nullptr, nullptr, {}, &options));
  std::map<std::string, int> per_provider;
  int copies = 0;
  std::string fallbacks;
  for (const NodePlacement& p : plan->placement()) {
    if (p.is_copy) {
      ++copies;
      continue;
    }
    ++per_provider[p.provider];
    if (name != "CPU" && p.provider == "CPU") fallbacks += "  on the CPU: " + p.node + ": " + p.reason + "\n";
  }
  std::string out = "placement for " + name + " (from this build's kernels, no device needed): ";
  out += std::to_string(per_provider[name]) + " node(s) on " + name;
  if (name == "CPU") return out + "\n";
  out += ", " + std::to_string(per_provider["CPU"]) + " on the CPU, " + std::to_string(copies) + " copy step(s)\n" +
         fallbacks;
  const std::vector<std::string> blockers = plan->recording_blockers();
  out += "recorded runs (CUDA graphs, every input bound on " + name + "): ";
  if (blockers.empty()) return out + "possible\n";
  out += "not possible:\n";
  for (const std::string& why : blockers) out += "  " + why + "\n";
  return out;
}

}  // namespace onyx::cli
