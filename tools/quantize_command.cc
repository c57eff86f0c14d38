// onyx quantize MODEL -o OUT --dynamic [--per-tensor] [--exclude OP|NODE]... [--level L]
//                            [--external-data NAME] [--no-compare]
// Dynamic int8 quantisation (optimizer/quantize_dynamic.h): the model is first optimised at
// level L (default 2, so attention, GELU and LayerNorm fusions keep their fused kernels), then
// every float32 MatMul / plain Gemm with 2-D initializer weights becomes a com.microsoft
// DynamicQuantizeMatMul with int8 weights (per column of B unless --per-tensor). Prints, per
// MatMul and Gemm, whether it was quantised (or why not), the weight bytes saved, and then
// `onyx compare MODEL OUT` on random inputs (--no-compare skips it).
// --static (calibrated QDQ / QOperator) is not built yet and is refused by name.
#include <cstdio>
#include <string>
#include <vector>

#include "commands.h"
#include "model_rewrite.h"
#include "optimizer/quantize_dynamic.h"

namespace onyx::cli {
namespace {

struct QuantizeArgs {
  RewriteArgs rewrite;
  bool dynamic = false, compare = true;
  optimizer::DynamicQuantizeOptions options;
};

Result<QuantizeArgs> parse(const std::vector<std::string>& args) {
  QuantizeArgs r;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto next = [&]() -> Result<std::string> {
      if (i + 1 >= args.size()) return invalid_argument(a, " needs a value");
      return args[++i];
    };
    ONYX_ASSIGN_OR_RETURN(bool taken, parse_rewrite_arg(a, next, r.rewrite));
    if (taken) continue;
    if (a == "--dynamic") {
      r.dynamic = true;
    } else if (a == "--per-tensor") {
      r.options.per_column = false;
    } else if (a == "--per-channel") {
      r.options.per_column = true;
    } else if (a == "--no-compare") {
      r.compare = false;
    } else if (a == "--exclude") {
      ONYX_ASSIGN_OR_RETURN(std::string v, next());
      if (v == "MatMul" || v == "Gemm") r.options.exclude_op_types.insert(v);
      else r.options.exclude_nodes.insert(v);
    } else if (a == "--static" || a == "--calibration" || a == "--method" || a == "--format") {
      return not_implemented(a, " is not built yet (issue 8, item 4): onyx quantize does --dynamic only");
    } else if (!a.empty() && a[0] == '-') {
      return invalid_argument("unknown option '", a, "'");
    } else {
      return invalid_argument("unexpected argument '", a, "'");
    }
  }
  if (r.rewrite.model.empty() || r.rewrite.out.empty()) return invalid_argument("give a model and -o OUT");
  if (!r.dynamic) return invalid_argument("give --dynamic (the only mode built so far)");
  return r;
}

Status quantize(const QuantizeArgs& a) {
  const RewriteArgs& w = a.rewrite;
  ONYX_ASSIGN_OR_RETURN(OptimizedModel m, load_and_optimize(w.model, w.level));
  ONYX_ASSIGN_OR_RETURN(optimizer::DynamicQuantizeReport report, optimizer::quantize_dynamic(m.model, a.options));
  ONYX_RETURN_IF_ERROR(save_rewritten(m.model, w.out, w.external_data));
  std::printf("%s -> %s (optimised at level %d, then dynamic int8, %s scales)\n\n", w.model.c_str(), w.out.c_str(),
              w.level, a.options.per_column ? "per-column" : "per-tensor");
  std::printf("%-48s %-8s %s\n", "node", "op", "result");
  for (const auto& n : report.nodes)
    std::printf("%-48s %-8s %s\n", n.node.c_str(), n.op_type.c_str(),
                n.quantized ? "DynamicQuantizeMatMul (int8 weights)" : ("kept: " + n.reason).c_str());
  std::printf("\n%d of %zu MatMul/Gemm quantised; their weights %.1f MB -> %.1f MB\n", report.quantized,
              report.nodes.size(), double(report.weight_bytes_before) / 1e6, double(report.weight_bytes_after) / 1e6);
  std::printf("ops: %s\n", op_histogram(m.model.graph).c_str());
  return Status::Ok();
}

}  // namespace

int quantize_command(const std::vector<std::string>& args) {
  auto parsed = parse(args);
  if (!parsed.ok()) {
    std::fprintf(stderr,
                 "onyx quantize: %s\nusage: onyx quantize MODEL -o OUT --dynamic [--per-tensor] [--exclude OP|NODE]... "
                 "[--level L] [--external-data NAME] [--no-compare]\n",
                 parsed.status().message().c_str());
    return 2;
  }
  Status s = quantize(*parsed);
  if (!s.ok()) {
    std::fprintf(stderr, "onyx quantize: %s\n", s.to_string().c_str());
    return 1;
  }
  if (!parsed->compare) return 0;
  const RewriteArgs& w = parsed->rewrite;
  std::printf("\naccuracy on random inputs (onyx compare %s %s --runs 1):\n", w.model.c_str(), w.out.c_str());
  std::fflush(stdout);
  compare_command({w.model, w.out, "--runs", "1"});  // informative: int8 differs beyond 1e-3
  return 0;
}

}  // namespace onyx::cli
