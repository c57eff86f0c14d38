// onyx quantize MODEL -o OUT --dynamic [--per-tensor] [--exclude OP|NODE]... [--level L]
//                            [--external-data NAME] [--no-compare]
// onyx quantize MODEL -o OUT --int4 [--block-size 16|32|64|128|...] [--symmetric]
//                            [--accuracy-level L] [--exclude OP|NODE]... [--level L] [--no-compare]
// onyx quantize MODEL -o OUT --static (--calibration DIR | --calibration-random N)
//                            [--method minmax|entropy|percentile] [--percentile P] [--per-channel]
//                            [--format qoperator|qdq] [--exclude OP|NODE]... [--threads N]
// Dynamic int8 quantisation (optimizer/quantize_dynamic.h): the model is first optimised at
// level L (default 2, so attention, GELU and LayerNorm fusions keep their fused kernels), then
// every float32 MatMul / plain Gemm with 2-D initializer weights becomes a com.microsoft
// DynamicQuantizeMatMul with int8 weights (per column of B unless --per-tensor). Prints, per
// MatMul and Gemm, whether it was quantised (or why not), the weight bytes saved, and then
// `onyx compare MODEL OUT` on random inputs (--no-compare skips it).
// 4-bit weights (optimizer/quantize_int4.h): after the same optimisation, float32 MatMul / plain
// Gemm with 2-D initializer weights become com.microsoft MatMulNBits in ONNX Runtime's layout,
// block-wise along K (default block 32, asymmetric with zero points).
// Static int8 quantisation (optimizer/quantize_static.h, tools/static_quantize.h): BatchNorm is
// folded into Conv, the activations are calibrated over the feed sets of DIR (each subfolder
// one set, read as --inputs-dir reads a folder) or over N random sets, and the quantisable
// nodes are rewritten in QOperator (default) or QDQ form with per-tensor (default) or
// per-channel weight scales. Prints per node what it became, how the int8 kernels of a session
// of OUT compute (and which fell back), and the accuracy change over the calibration sets.
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "cli_args.h"
#include "commands.h"
#include "model_rewrite.h"
#include "optimizer/quantize_dynamic.h"
#include "optimizer/quantize_int4.h"
#include "static_quantize.h"

namespace onyx::cli {
namespace {

constexpr const char* kUsage =
    "usage: onyx quantize MODEL -o OUT --dynamic [--per-tensor] [--exclude OP|NODE]... [--level L]\n"
    "                     [--external-data NAME] [--no-compare]\n"
    "       onyx quantize MODEL -o OUT --int4 [--bits 4|8] [--block-size B] [--symmetric] [--accuracy-level L]\n"
    "                     [--exclude OP|NODE]... [--level L] [--external-data NAME] [--no-compare]\n"
    "       onyx quantize MODEL -o OUT --static (--calibration DIR | --calibration-random N)\n"
    "                     [--method minmax|entropy|percentile] [--percentile P] [--per-channel]\n"
    "                     [--format qoperator|qdq] [--exclude OP|NODE]... [--threads N] [--external-data NAME]\n"
    "--dynamic: int8 weights for float MatMul/Gemm (DynamicQuantizeMatMul), then a comparison with MODEL on\n"
    "random inputs. --int4: 4-bit block-wise weights (com.microsoft MatMulNBits, ORT's layout; block 32 and\n"
    "zero points unless --block-size / --symmetric; --bits 8 for 8-bit codes). --static: BatchNorm folded into Conv, activations calibrated over the feed sets of DIR\n"
    "(one subfolder per set) or N random sets, int8 activations and weights in QOperator or QDQ form.\n";

struct QuantizeArgs {
  RewriteArgs rewrite;
  bool dynamic = false, compare = true, per_channel_given = false;
  optimizer::DynamicQuantizeOptions options;
  bool int4 = false;
  optimizer::Int4QuantizeOptions int4_options;
  bool is_static = false;
  StaticQuantizeArgs static_args;
};

Result<int> positive_int(const std::string& flag, const std::string& v) {
  char* end = nullptr;
  const long n = std::strtol(v.c_str(), &end, 10);
  if (v.empty() || *end != '\0' || n < 1 || n > 1000000) return invalid_argument(flag, " takes a positive integer, got '", v, "'");
  return int(n);
}

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
    } else if (a == "--int4") {
      r.int4 = true;
    } else if (a == "--bits") {
      ONYX_ASSIGN_OR_RETURN(std::string v, next());
      if (v != "4" && v != "8") return invalid_argument("--bits takes 4 or 8, got '", v, "'");
      r.int4_options.bits = v[0] - '0';
    } else if (a == "--block-size") {
      ONYX_ASSIGN_OR_RETURN(std::string v, next());
      ONYX_ASSIGN_OR_RETURN(int b, positive_int(a, v));
      if (b < 16 || (b & (b - 1)) != 0) return invalid_argument("--block-size takes a power of 2 of at least 16, got ", b);
      r.int4_options.block_size = b;
    } else if (a == "--symmetric") {
      r.int4_options.symmetric = true;
    } else if (a == "--accuracy-level") {
      ONYX_ASSIGN_OR_RETURN(std::string v, next());
      if (v.size() != 1 || v[0] < '0' || v[0] > '4') return invalid_argument("--accuracy-level takes 0 to 4, got '", v, "'");
      r.int4_options.accuracy_level = v[0] - '0';
    } else if (a == "--per-tensor") {
      r.options.per_column = false;
      r.static_args.options.per_channel = false;
    } else if (a == "--per-channel") {
      r.options.per_column = true;
      r.static_args.options.per_channel = true;
    } else if (a == "--static") {
      r.is_static = true;
    } else if (a == "--calibration") {
      ONYX_ASSIGN_OR_RETURN(r.static_args.calibration_dir, next());
    } else if (a == "--calibration-random") {
      ONYX_ASSIGN_OR_RETURN(std::string v, next());
      ONYX_ASSIGN_OR_RETURN(r.static_args.random_sets, positive_int(a, v));
    } else if (a == "--threads") {
      ONYX_ASSIGN_OR_RETURN(std::string v, next());
      ONYX_ASSIGN_OR_RETURN(r.static_args.threads, positive_int(a, v));
    } else if (a == "--method") {
      ONYX_ASSIGN_OR_RETURN(std::string v, next());
      if (v == "minmax") r.static_args.calibration.method = CalibrationMethod::kMinMax;
      else if (v == "entropy") r.static_args.calibration.method = CalibrationMethod::kEntropy;
      else if (v == "percentile") r.static_args.calibration.method = CalibrationMethod::kPercentile;
      else return invalid_argument("--method takes minmax, entropy or percentile, got '", v, "'");
    } else if (a == "--percentile") {
      ONYX_ASSIGN_OR_RETURN(std::string v, next());
      char* end = nullptr;
      const double p = std::strtod(v.c_str(), &end);
      if (v.empty() || *end != '\0' || !(p > 50 && p <= 100)) return invalid_argument("--percentile takes a value in (50, 100]");
      r.static_args.calibration.percentile = p;
    } else if (a == "--format") {
      ONYX_ASSIGN_OR_RETURN(std::string v, next());
      if (v == "qoperator") r.static_args.options.format = optimizer::QuantFormat::kQOperator;
      else if (v == "qdq") r.static_args.options.format = optimizer::QuantFormat::kQdq;
      else return invalid_argument("--format takes qoperator or qdq, got '", v, "'");
    } else if (a == "--no-compare") {
      r.compare = false;
    } else if (a == "--exclude") {
      ONYX_ASSIGN_OR_RETURN(std::string v, next());
      if (v == "MatMul" || v == "Gemm") r.options.exclude_op_types.insert(v), r.int4_options.exclude_op_types.insert(v);
      else r.options.exclude_nodes.insert(v), r.int4_options.exclude_nodes.insert(v);
      // Static: a name starting with a capital also excludes that op type.
      if (!v.empty() && std::isupper(static_cast<unsigned char>(v[0]))) r.static_args.options.exclude_op_types.insert(v);
      r.static_args.options.exclude_nodes.insert(v);
    } else if (!a.empty() && a[0] == '-') {
      return invalid_argument("unknown option '", a, "'");
    } else {
      return invalid_argument("unexpected argument '", a, "'");
    }
  }
  if (r.rewrite.model.empty() || r.rewrite.out.empty()) return invalid_argument("give a model and -o OUT");
  if (int(r.dynamic) + int(r.is_static) + int(r.int4) != 1) return invalid_argument("give one of --dynamic, --int4 and --static");
  if (r.is_static) {
    if (r.static_args.calibration_dir.empty() == (r.static_args.random_sets == 0))
      return invalid_argument("--static needs one of --calibration DIR and --calibration-random N");
    r.static_args.rewrite = r.rewrite;
  }
  return r;
}

Status quantize_4bit(const QuantizeArgs& a) {
  const RewriteArgs& w = a.rewrite;
  ONYX_ASSIGN_OR_RETURN(OptimizedModel m, load_and_optimize(w.model, w.level));
  ONYX_ASSIGN_OR_RETURN(optimizer::Int4QuantizeReport report, optimizer::quantize_int4(m.model, a.int4_options));
  ONYX_RETURN_IF_ERROR(save_rewritten(m.model, w.out, w.external_data));
  std::printf("%s -> %s (optimised at level %d, then %lld-bit weights, blocks of %lld, %s)\n\n", w.model.c_str(),
              w.out.c_str(), w.level, (long long)a.int4_options.bits, (long long)a.int4_options.block_size,
              a.int4_options.symmetric ? "symmetric" : "with zero points");
  std::printf("%-48s %-8s %s\n", "node", "op", "result");
  for (const auto& n : report.nodes)
    std::printf("%-48s %-8s %s\n", n.node.c_str(), n.op_type.c_str(),
                n.quantized ? (a.int4_options.bits == 8 ? "MatMulNBits (8-bit weights)" : "MatMulNBits (4-bit weights)")
                            : ("kept: " + n.reason).c_str());
  std::printf("\n%d of %zu MatMul/Gemm quantised; their weights %.1f MB -> %.1f MB\n", report.quantized,
              report.nodes.size(), double(report.weight_bytes_before) / 1e6, double(report.weight_bytes_after) / 1e6);
  std::printf("ops: %s\n", op_histogram(m.model.graph).c_str());
  return Status::Ok();
}

Status quantize(const QuantizeArgs& a) {
  if (a.int4) return quantize_4bit(a);
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
  if (asks_for_help(args)) return print_help(kUsage);
  auto parsed = parse(args);
  if (!parsed.ok()) return usage_error("quantize", parsed.status().message(), kUsage);
  Status s = parsed->is_static ? run_static_quantize(parsed->static_args) : quantize(*parsed);
  if (!s.ok()) {
    std::fprintf(stderr, "onyx quantize: %s\n", s.to_string().c_str());
    return 1;
  }
  if (!parsed->compare || parsed->is_static) return 0;
  const RewriteArgs& w = parsed->rewrite;
  std::printf("\naccuracy on random inputs (onyx compare %s %s --runs 1):\n", w.model.c_str(), w.out.c_str());
  std::fflush(stdout);
  compare_command({w.model, w.out, "--runs", "1"});  // informative: int8 and 4-bit differ beyond 1e-3
  return 0;
}

}  // namespace onyx::cli
