#include "static_placement.h"

#include <map>
#include <memory>
#include <set>

#include "ops/infer_graph.h"
#include "providers/execution_provider.h"
#include "session/placement.h"

namespace onyx::cli {
namespace {

// Stands in for a provider in choose_provider(), which reads only its name.
class StandInProvider final : public ExecutionProvider {
 public:
  explicit StandInProvider(std::string name) : name_(std::move(name)) {}
  std::string name() const override { return name_; }
  Device device() const override { return Device{}; }
  Status copy(const Tensor&, Tensor&) const override {
    return error(StatusCode::kInternal, "the stand-in for ", name_, " holds no memory");
  }

 private:
  std::string name_;
};

}  // namespace

Result<std::string> static_placement_report(const ir::Model& model, const std::string& provider) {
  const std::string name = ProviderRegistry::global().canonical(provider);
  if (name.empty()) return invalid_argument("provider '", provider, "' is not part of this build");
  const ops::GraphTypes types = ops::infer_graph_types(model.graph, model.opsets);
  PlacementOptions options;
  options.types = &types.all;
  options.providers = {std::make_shared<StandInProvider>(name)};
  if (name != "CPU") options.providers.push_back(CpuProvider::shared());
  std::map<std::string, int> per_provider;
  std::string fallbacks;
  for (const ir::Node& node : model.graph.nodes) {
    const auto opset = model.opsets.find(node.domain);
    const int64_t version = opset == model.opsets.end() ? 1 : opset->second;
    ONYX_ASSIGN_OR_RETURN(NodeChoice choice, choose_provider(node, version, options.providers, options, {}));
    const std::string where = options.providers[choice.provider]->name();
    ++per_provider[where];
    if (choice.provider > 0) fallbacks += "  on the CPU: " + node.label() + ": " + choice.reason + "\n";
  }
  std::string out = "placement for " + name + " (from this build's kernels, no device needed): ";
  out += std::to_string(per_provider[name]) + " node(s) on " + name;
  if (name != "CPU") out += ", " + std::to_string(per_provider["CPU"]) + " on the CPU";
  return out + "\n" + fallbacks;
}

}  // namespace onyx::cli
