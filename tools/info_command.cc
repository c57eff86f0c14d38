// onyx info MODEL [--free-dim NAME=VALUE]... [--free-dim-denotation DATA_BATCH=VALUE]...
// What a model is, without running it; with free-dimension overrides applied (as a session
// would apply them) before static inference.
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "cli_args.h"
#include "commands.h"
#include "onnx/loader.h"
#include "ops/infer_graph.h"
#include "session/free_dims.h"

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

std::string usage() {
  return std::string("usage: onyx info MODEL ") + kFreeDimUsage +
         "\nPrints what MODEL is without running it: IR version, opsets, producer, inputs (with their\n"
         "symbolic dims, after any --free-dim overrides), outputs, initializers and an op histogram.\n";
}

}  // namespace

int info_command(const std::vector<std::string>& args) {
  if (asks_for_help(args)) return print_help(usage());
  std::string path;
  SessionOptions options;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string error;
    if (is_free_dim_flag(args[i])) {
      auto handled = i + 1 < args.size() ? parse_free_dim_flag(args[i], args[i + 1], options)
                                         : Result<bool>(invalid_argument(args[i], " needs a value"));
      ++i;
      if (!handled.ok()) error = handled.status().message();
    } else if (!args[i].empty() && args[i][0] == '-') {
      error = "unknown option '" + args[i] + "'";
    } else if (path.empty()) {
      path = args[i];
    } else {
      error = "unexpected argument '" + args[i] + "'";
    }
    if (!error.empty()) return usage_error("info", error, usage());
  }
  if (path.empty()) return usage_error("info", "no model given", usage());
  auto model = onnx_format::load_model_file(path);
  if (!model.ok()) {
    std::fprintf(stderr, "onyx: %s\n", model.status().to_string().c_str());
    return 1;
  }
  ir::Model& m = *model;
  auto fixed = apply_free_dimension_overrides(m.graph, options.free_dimension_overrides_by_name,
                                              options.free_dimension_overrides_by_denotation);
  if (!fixed.ok()) {
    std::fprintf(stderr, "onyx: %s\n", fixed.status().to_string().c_str());
    return 1;
  }
  for (const auto& w : fixed->warnings) std::printf("warning: %s\n", w.c_str());
  std::printf("model:    %s\n", path.c_str());
  std::printf("ir:       %lld\n", (long long)m.ir_version);
  std::printf("opsets:  ");
  for (const auto& [domain, version] : m.opsets) std::printf(" %s=%lld", domain.empty() ? "ai.onnx" : domain.c_str(), (long long)version);
  std::printf("\nproducer: %s %s\n", m.producer_name.c_str(), m.producer_version.c_str());
  std::printf("inputs:\n");
  for (const auto& vi : m.graph.inputs) {
    if (m.graph.initializers.count(vi.name)) continue;
    std::string denotations;
    bool any = false;
    for (const Dim& d : vi.type.shape.dims) {
      denotations += (denotations.empty() ? "" : ",") + (d.denotation.empty() ? std::string("-") : d.denotation);
      any |= !d.denotation.empty();
    }
    std::printf("  %-24s %s%s\n", vi.name.c_str(), vi.type.to_string().c_str(),
                any ? ("  denotation [" + denotations + "]").c_str() : "");
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
