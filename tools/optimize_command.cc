// onyx optimize MODEL -o OUT [--level L] [--external-data NAME]
// Writes MODEL after onyx's graph optimisations at level L (default 2: simplifications and
// fusions, com.microsoft contrib ops where fused; 99 adds the channels-last layout) and prints
// the node counts before and after, which passes changed the graph, and the ops left.
// --external-data puts initializers of 1 KiB or more into the file NAME beside OUT.
// --float16 (fp16 conversion) is not built yet and is refused by name.
#include <cstdio>
#include <string>
#include <vector>

#include "commands.h"
#include "model_rewrite.h"

namespace onyx::cli {
namespace {

Result<RewriteArgs> parse(const std::vector<std::string>& args) {
  RewriteArgs r;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto next = [&]() -> Result<std::string> {
      if (i + 1 >= args.size()) return invalid_argument(a, " needs a value");
      return args[++i];
    };
    ONYX_ASSIGN_OR_RETURN(bool taken, parse_rewrite_arg(a, next, r));
    if (taken) continue;
    if (a == "--float16" || a == "--keep-io-types" || a == "--auto-mixed-precision" || a == "--model-type")
      return not_implemented(a, " is not built yet (issue 8, item 2): onyx optimize writes float32 models only");
    if (!a.empty() && a[0] == '-') return invalid_argument("unknown option '", a, "'");
    return invalid_argument("unexpected argument '", a, "'");
  }
  if (r.model.empty() || r.out.empty()) return invalid_argument("give a model and -o OUT");
  return r;
}

Status optimize(const RewriteArgs& a) {
  ONYX_ASSIGN_OR_RETURN(OptimizedModel m, load_and_optimize(a.model, a.level));
  ONYX_RETURN_IF_ERROR(save_rewritten(m.model, a.out, a.external_data));
  std::printf("%s -> %s (level %d)\n", a.model.c_str(), a.out.c_str(), a.level);
  std::printf("nodes: %zu -> %zu\n", m.report.nodes_before, m.model.graph.nodes.size());
  std::string fired;
  for (const auto& [pass, n] : m.report.changes)
    if (n > 0) fired += (fired.empty() ? "" : ", ") + pass;
  std::printf("passes that changed the graph: %s\n", fired.empty() ? "none" : fired.c_str());
  if (!m.report.skipped.empty()) std::printf("optimisation skipped: %s\n", m.report.skipped.c_str());
  std::printf("ops: %s\n", op_histogram(m.model.graph).c_str());
  return Status::Ok();
}

}  // namespace

int optimize_command(const std::vector<std::string>& args) {
  auto parsed = parse(args);
  if (!parsed.ok()) {
    std::fprintf(stderr, "onyx optimize: %s\nusage: onyx optimize MODEL -o OUT [--level 0|1|2|99] [--external-data NAME]\n",
                 parsed.status().message().c_str());
    return 2;
  }
  Status s = optimize(*parsed);
  if (!s.ok()) {
    std::fprintf(stderr, "onyx optimize: %s\n", s.to_string().c_str());
    return 1;
  }
  return 0;
}

}  // namespace onyx::cli
