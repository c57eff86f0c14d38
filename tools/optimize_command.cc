// onyx optimize MODEL -o OUT [--level L] [--external-data NAME] [--model-type T] [--disable-passes P,...]
//               [--for-provider NAME]
//               [--float16 [--keep-io-types] [--op-block-list OP,OP,...] [--no-compare]
//                [--auto-mixed-precision --tolerance T [--inputs-dir DIR | --runs N] [--threads N]]]
// Writes MODEL after onyx's graph optimisations at level L (default 2: simplifications and
// fusions, com.microsoft contrib ops where fused; 99 adds the channels-last layout) and prints
// the node counts before and after, which passes changed the graph, and the ops left.
// --external-data puts initializers of 1 KiB or more into the file NAME beside OUT.
// --float16 then converts the optimised graph to float16 (optimizer/float16_conversion.h): the
// ops of the block list (ONNX Runtime's default list, or --op-block-list, which replaces it)
// stay float32 with Casts around them; --keep-io-types keeps float32 graph inputs and outputs.
// It reports what it converted and compares the result with the float32 model on random
// inputs (--no-compare skips that). --auto-mixed-precision keeps the fewest nodes in float32 for
// the outputs to stay within T (absolute) of the float32 model's on the feed sets of DIR (as
// quantize --calibration reads them) or on N random sets (default 2), fp16 overflow avoided
// (tools/mixed_precision.h).
// --model-type bert|gpt2|vit|unet turns off the fusions that type never has and then checks
// the result against the fusion families the type should end with (optimizer/model_type.h):
// per family the fused ops, what was left unfused, and a verdict. --disable-passes P,... skips
// those passes (onyx's names or ONNX Runtime's CamelCase ones, as SessionOptions takes them).
// --for-provider NAME (cuda) optimises as a session whose first provider NAME is would (no
// fusion into an op NAME lacks where NAME runs the unfused nodes), lists the fusions declined
// for it, and reports where each node would run, from this build's kernels: no device needed
// (static_placement.h).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "cli_args.h"
#include "commands.h"
#include "model_rewrite.h"
#include "mixed_precision.h"
#include "optimizer/float16_conversion.h"
#include "optimizer/model_type.h"
#include "providers/execution_provider.h"
#include "static_placement.h"

namespace onyx::cli {
namespace {

constexpr const char* kUsage =
    "usage: onyx optimize MODEL -o OUT [--level 0|1|2|99] [--external-data NAME] [--model-type bert|gpt2|vit|unet]\n"
    "                     [--disable-passes PASS,...] [--for-provider NAME]\n"
    "                     [--float16 [--keep-io-types] [--op-block-list OP,...] [--no-compare]\n"
    "                      [--auto-mixed-precision --tolerance T [--inputs-dir DIR | --runs N] [--threads N]]]\n"
    "Writes MODEL after onyx's graph optimisations (default level 2) and prints the node counts and the\n"
    "passes that changed it; --float16 then converts it to float16 and compares it with the original;\n"
    "--model-type checks the fusions that type should end with; --for-provider says where each node\n"
    "would run.\n";

struct OptimizeArgs {
  RewriteArgs rewrite;
  bool float16 = false, compare = true;
  optimizer::Float16Options fp16;
  bool amp = false;
  double tolerance = -1;
  std::string inputs_dir;
  int random_sets = 2, threads = 0;
  const optimizer::ModelType* model_type = nullptr;
  std::set<std::string> disabled_passes;
  std::string for_provider;  // canonical registry name, or empty
};

std::set<std::string> comma_list(const std::string& v) {
  std::set<std::string> out;
  for (size_t start = 0; start <= v.size();) {
    const size_t comma = std::min(v.find(',', start), v.size());
    if (comma > start) out.insert(v.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

Result<int> positive(const std::string& flag, const std::string& v) {
  char* end = nullptr;
  const long n = std::strtol(v.c_str(), &end, 10);
  if (v.empty() || *end != '\0' || n < 1 || n > 100000) return invalid_argument(flag, " takes a positive integer, got '", v, "'");
  return int(n);
}

Result<OptimizeArgs> parse(const std::vector<std::string>& args) {
  OptimizeArgs o;
  RewriteArgs& r = o.rewrite;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto next = [&]() -> Result<std::string> {
      if (i + 1 >= args.size()) return invalid_argument(a, " needs a value");
      return args[++i];
    };
    ONYX_ASSIGN_OR_RETURN(bool taken, parse_rewrite_arg(a, next, r));
    if (taken) continue;
    if (a == "--float16") {
      o.float16 = true;
      continue;
    }
    if (a == "--keep-io-types") {
      o.fp16.keep_io_types = true;
      continue;
    }
    if (a == "--no-compare") {
      o.compare = false;
      continue;
    }
    if (a == "--op-block-list") {
      ONYX_ASSIGN_OR_RETURN(std::string v, next());
      o.fp16.op_block_list = comma_list(v);
      continue;
    }
    if (a == "--auto-mixed-precision") {
      o.amp = true;
      continue;
    }
    if (a == "--tolerance") {
      ONYX_ASSIGN_OR_RETURN(std::string v, next());
      char* end = nullptr;
      o.tolerance = std::strtod(v.c_str(), &end);
      if (v.empty() || *end != '\0' || !(o.tolerance >= 0) || !std::isfinite(o.tolerance))
        return invalid_argument("--tolerance takes a number >= 0, got '", v, "'");
      continue;
    }
    if (a == "--inputs-dir") {
      ONYX_ASSIGN_OR_RETURN(o.inputs_dir, next());
      continue;
    }
    if (a == "--runs" || a == "--threads") {
      ONYX_ASSIGN_OR_RETURN(std::string v, next());
      ONYX_ASSIGN_OR_RETURN(int n, positive(a, v));
      (a == "--runs" ? o.random_sets : o.threads) = n;
      continue;
    }
    if (a == "--model-type") {
      ONYX_ASSIGN_OR_RETURN(std::string v, next());
      ONYX_ASSIGN_OR_RETURN(o.model_type, optimizer::find_model_type(v));
      continue;
    }
    if (a == "--for-provider") {
      ONYX_ASSIGN_OR_RETURN(std::string v, next());
      o.for_provider = ProviderRegistry::global().canonical(v);
      if (o.for_provider.empty()) return invalid_argument("--for-provider: '", v, "' is not a provider of this build");
      continue;
    }
    if (a == "--disable-passes") {
      ONYX_ASSIGN_OR_RETURN(std::string v, next());
      const std::set<std::string> names = comma_list(v);
      o.disabled_passes.insert(names.begin(), names.end());
      continue;
    }
    if (!a.empty() && a[0] == '-') return invalid_argument("unknown option '", a, "'");
    return invalid_argument("unexpected argument '", a, "'");
  }
  if (r.model.empty() || r.out.empty()) return invalid_argument("give a model and -o OUT");
  if (!o.float16 && (o.fp16.keep_io_types || !o.compare || o.amp))
    return invalid_argument("--keep-io-types, --no-compare and --auto-mixed-precision go with --float16");
  if (o.amp != (o.tolerance >= 0)) return invalid_argument("--auto-mixed-precision and --tolerance T go together");
  return o;
}

Status optimize(const OptimizeArgs& o) {
  const RewriteArgs& a = o.rewrite;
  std::set<std::string> disabled = o.disabled_passes;
  if (o.model_type) disabled.insert(o.model_type->disabled_passes.begin(), o.model_type->disabled_passes.end());
  ONYX_ASSIGN_OR_RETURN(OptimizedModel m, load_and_optimize(a.model, a.level, nullptr, disabled, o.for_provider));

  // The fusion check looks at the graph the fusions left, before any float16 Casts.
  std::string fusion_check;
  if (o.model_type) fusion_check = optimizer::check_fusions(m.model.graph, *o.model_type).to_string(*o.model_type);
  if (o.float16) {
    optimizer::Float16Options fp16 = o.fp16;
    if (o.amp) {
      name_nodes(m.model);
      SessionOptions so;
      so.intra_op_threads = o.threads;
      ONYX_ASSIGN_OR_RETURN(std::unique_ptr<Session> session, Session::from_loaded_model(m.model, so));
      ONYX_ASSIGN_OR_RETURN(std::vector<FeedSet> sets, feed_sets(*session, o.inputs_dir, o.random_sets));
      ONYX_ASSIGN_OR_RETURN(MixedPrecisionResult mp, find_mixed_precision(m.model, fp16, sets, o.tolerance, o.threads));
      fp16.node_block_list = mp.kept;
      std::printf("mixed precision: %zu node(s) kept float32 (%zu for float16 overflow) after %d tries; max abs difference "
                  "%g within %g over %zu feed set(s)\n",
                  mp.kept.size(), mp.overflow.size(), mp.tries, mp.max_abs, o.tolerance, sets.size());
      for (const auto& n : m.model.graph.nodes)
        if (mp.kept.count(n.name))
          std::printf("  kept float32: %s%s\n", n.label().c_str(), mp.overflow.count(n.name) ? " (overflow)" : "");
    }
    ONYX_ASSIGN_OR_RETURN(optimizer::Float16Report f, optimizer::convert_to_float16(m.model, fp16));
    std::printf("float16: %d node(s) converted, %d kept float32, %d Cast(s) added; converted initializers %.1f MB -> %.1f MB",
                f.converted_nodes, f.kept_nodes, f.casts_added, double(f.initializer_bytes_before) / 1e6,
                double(f.initializer_bytes_after) / 1e6);
    if (f.saturated_values) std::printf("; %lld value(s) beyond +-65504 saturated", (long long)f.saturated_values);
    std::printf("%s\n", o.fp16.keep_io_types ? "; inputs and outputs kept float32" : "");
  }
  // Where the written model's nodes would run (after any float16 conversion).
  std::string placement;
  if (!o.for_provider.empty()) {
    for (const auto& [why, at] : m.report.declined_for_provider)
      placement += "not fused for " + o.for_provider + ": " + why + " (" + std::to_string(at.size()) + " match" +
                   (at.size() == 1 ? "" : "es") + ")\n";
    ONYX_ASSIGN_OR_RETURN(std::string where, static_placement_report(m.model, o.for_provider));
    placement += where;
  }
  ONYX_RETURN_IF_ERROR(save_rewritten(m.model, a.out, a.external_data));
  std::printf("%s -> %s (level %d)\n", a.model.c_str(), a.out.c_str(), a.level);
  std::printf("nodes: %zu -> %zu\n", m.report.nodes_before, m.model.graph.nodes.size());
  std::string fired;
  for (const auto& [pass, n] : m.report.changes)
    if (n > 0) fired += (fired.empty() ? "" : ", ") + pass;
  std::printf("passes that changed the graph: %s\n", fired.empty() ? "none" : fired.c_str());
  if (!m.report.skipped.empty()) std::printf("optimisation skipped: %s\n", m.report.skipped.c_str());
  std::printf("ops: %s\n", op_histogram(m.model.graph).c_str());
  if (o.model_type) std::printf("%s", fusion_check.c_str());
  std::printf("%s", placement.c_str());
  return Status::Ok();
}

}  // namespace

int optimize_command(const std::vector<std::string>& args) {
  if (asks_for_help(args)) return print_help(kUsage);
  auto parsed = parse(args);
  if (!parsed.ok()) return usage_error("optimize", parsed.status().message(), kUsage);
  Status s = optimize(*parsed);
  if (!s.ok()) {
    std::fprintf(stderr, "onyx optimize: %s\n", s.to_string().c_str());
    return 1;
  }
  if (!parsed->float16 || !parsed->compare) return 0;
  const RewriteArgs& w = parsed->rewrite;
  std::printf("\nfloat16 against float32 on random inputs (onyx compare %s %s --runs 1 --level %d):\n", w.model.c_str(),
              w.out.c_str(), w.level);
  std::fflush(stdout);
  compare_command({w.model, w.out, "--runs", "1", "--level", std::to_string(w.level)});  // informative
  return 0;
}

}  // namespace onyx::cli
