// onyx info MODEL: what a model is, without running it.
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "commands.h"
#include "onnx/loader.h"
#include "ops/infer_graph.h"

namespace onyx::cli {
namespace {

void count_ops(const ir::Graph& g, std::map<std::string, int>& histogram) {
  for (const auto& n : g.nodes) {
    ++histogram[(n.domain.empty() ? "" : n.domain + ":") + n.op_type];
    for (const auto& kv : n.attributes) {
      if (kv.second.g) count_ops(*kv.second.g, histogram);
      for (const auto& sg : kv.second.graphs) count_ops(*sg, histogram);
    }
  }
}

}  // namespace

int info_command(const std::vector<std::string>& args) {
  if (args.size() != 1) {
    std::fprintf(stderr, "usage: onyx info MODEL\n");
    return 2;
  }
  auto model = onnx_format::load_model_file(args[0]);
  if (!model.ok()) {
    std::fprintf(stderr, "onyx: %s\n", model.status().to_string().c_str());
    return 1;
  }
  const ir::Model& m = *model;
  std::printf("model:    %s\n", args[0].c_str());
  std::printf("ir:       %lld\n", (long long)m.ir_version);
  std::printf("opsets:  ");
  for (const auto& [domain, version] : m.opsets) std::printf(" %s=%lld", domain.empty() ? "ai.onnx" : domain.c_str(), (long long)version);
  std::printf("\nproducer: %s %s\n", m.producer_name.c_str(), m.producer_version.c_str());
  std::printf("inputs:\n");
  for (const auto& vi : m.graph.inputs) {
    if (m.graph.initializers.count(vi.name)) continue;
    std::printf("  %-24s %s\n", vi.name.c_str(), vi.type.to_string().c_str());
  }
  const ops::GraphTypes types = ops::infer_graph_types(m.graph, m.opsets);
  std::printf("outputs (declared; static inference):\n");
  for (const auto& vi : m.graph.outputs) {
    auto it = types.inferred.find(vi.name);
    std::printf("  %-24s %-24s %s\n", vi.name.c_str(), vi.type.to_string().c_str(),
                it == types.inferred.end() ? "?" : it->second.to_string().c_str());
  }
  for (const auto& w : types.warnings) std::printf("warning: %s\n", w.c_str());
  size_t weight_bytes = 0;
  for (const auto& kv : m.graph.initializers) weight_bytes += kv.second.nbytes();
  std::printf("initializers: %zu (%.2f MB)\n", m.graph.initializers.size(), double(weight_bytes) / 1e6);
  std::map<std::string, int> histogram;
  count_ops(m.graph, histogram);
  std::printf("ops:\n");
  for (const auto& [op, count] : histogram) std::printf("  %-28s %d\n", op.c_str(), count);
  return 0;
}

}  // namespace onyx::cli
