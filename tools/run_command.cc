// onyx run MODEL [--input NAME=FILE]... [--inputs-dir DIR] [--outputs-dir DIR] [--random-inputs]
//               [--free-dim NAME=VALUE]... [--free-dim-denotation DATA_BATCH=VALUE]... [--profile FILE]
//               [--save-optimized FILE [--save-optimized-external NAME]] [--bf16-gemm]
// Runs a model once and prints its outputs and the time taken. FILE is .npy or an ONNX
// TensorProto/SequenceProto/OptionalProto .pb; DIR holds <name>.npy per input, or
// input_K.pb in graph-input order; --outputs-dir writes output_K.pb/.npy and <name>.npy.
// --profile writes a Chrome-trace JSON of the session (load, planning, the run, each kernel).
// --save-optimized writes the graph after optimisation as an ONNX model (large initializers
// in the external file NAME beside it with --save-optimized-external).
// --bf16-gemm: SessionOptions::bf16_gemm (float32 MatMul/Gemm with constant weights in bf16).
// --disable-optimizer NAME (repeatable): that pass left out (SessionOptions::disabled_optimizers),
// as for onyx bench, so an A/B timing can check the outputs of both sides.
// --provider cuda[,cpu] [--provider-option KEY=VALUE]... [--strict-placement]: execution
// providers in priority order (SessionOptions::providers); --placement prints where the nodes
// run, which fell back to the CPU and why, and the copies between devices.
// --random-inputs prints on stderr the shape made for each random input with symbolic dims.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "cli_args.h"
#include "commands.h"
#include "feeds.h"
#include "session/session.h"

namespace onyx::cli {
namespace fs = std::filesystem;
namespace {

std::string usage() {
  const std::string indent = "\n                ";
  return "usage: onyx run MODEL [--input NAME=FILE]... [--inputs-dir DIR] [--outputs-dir DIR] [--random-inputs]" +
         indent + "[--profile FILE] [--bf16-gemm] [--placement] [--disable-optimizer NAME]..." + indent + kFreeDimUsage + indent + kSaveUsage +
         indent + kProviderUsage +
         "\n"
         "Runs MODEL once; prints its outputs and the time taken. FILE is .npy or an ONNX TensorProto .pb; DIR\n"
         "holds <name>.npy or input_K.pb per input. --random-inputs fills the inputs not given (floats in\n"
         "[0, 1), integer ids within the table they index, masks all ones) and prints, on stderr, the shape\n"
         "made for each input with symbolic dims (1 unless fixed with --free-dim NAME=VALUE).\n";
}

struct RunArgs {
  std::string model;
  FeedArgs feeds;
  std::string outputs_dir;
  std::string profile;
  bool placement = false;
  SessionOptions options;
};

Result<RunArgs> parse(const std::vector<std::string>& args) {
  RunArgs r;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto next = [&]() -> Result<std::string> {
      if (i + 1 >= args.size()) return invalid_argument(a, " needs a value");
      return args[++i];
    };
    ONYX_ASSIGN_OR_RETURN(bool feed_flag, parse_feed_flag(a, next, r.feeds));
    if (feed_flag) continue;
    if (a == "--outputs-dir") {
      ONYX_ASSIGN_OR_RETURN(r.outputs_dir, next());
    } else if (a == "--profile") {
      ONYX_ASSIGN_OR_RETURN(r.profile, next());
    } else if (a == "--bf16-gemm") {
      r.options.bf16_gemm = true;
    } else if (a == "--placement") {
      r.placement = true;
    } else if (a == "--disable-optimizer") {
      ONYX_ASSIGN_OR_RETURN(std::string v, next());
      r.options.disabled_optimizers.insert(v);
    } else if (is_save_flag(a)) {
      ONYX_ASSIGN_OR_RETURN(std::string v, next());
      parse_save_flag(a, v, r.options);
    } else if (is_free_dim_flag(a)) {
      ONYX_ASSIGN_OR_RETURN(std::string v, next());
      ONYX_RETURN_IF_ERROR(parse_free_dim_flag(a, v, r.options).status());
    } else if (is_provider_flag(a)) {
      ONYX_ASSIGN_OR_RETURN(std::string v, next());
      ONYX_RETURN_IF_ERROR(parse_provider_flag(a, v, r.options).status());
    } else if (a == "--strict-placement") {
      ONYX_RETURN_IF_ERROR(parse_provider_flag(a, "", r.options).status());
    } else if (!a.empty() && a[0] == '-') {
      return invalid_argument("unknown option '", a, "'");
    } else if (r.model.empty()) {
      r.model = a;
    } else {
      return invalid_argument("unexpected argument '", a, "'");
    }
  }
  if (r.model.empty()) return invalid_argument("no model given");
  return r;
}

void print_value(const std::string& name, const Value& v) {
  std::printf("%s: %s", name.c_str(), v.describe().c_str());
  if (v.is_tensor() && v.tensor().dtype() != DataType::kString && v.tensor().dtype() != DataType::kComplex64 &&
      v.tensor().dtype() != DataType::kComplex128) {
    const Tensor& t = v.tensor();
    std::printf(" = [");
    const int64_t shown = std::min<int64_t>(t.numel(), 10);
    for (int64_t i = 0; i < shown; ++i) std::printf("%s%.6g", i ? ", " : "", t.get_double(i));
    std::printf("%s]", t.numel() > shown ? ", ..." : "");
  } else if (v.is_tensor() && v.tensor().dtype() == DataType::kString && v.tensor().numel() > 0) {
    std::printf(" = [\"%s\"%s]", v.tensor().data<std::string>()[0].c_str(), v.tensor().numel() > 1 ? ", ..." : "");
  }
  std::printf("\n");
}

Status run(const RunArgs& a) {
  const auto t0 = std::chrono::steady_clock::now();
  SessionOptions options = a.options;
  if (!a.profile.empty()) {
    options.enable_profiling = true;
    options.profile_file_prefix = a.profile + ".tmp";  // same folder, so the rename below stays on one filesystem
  }
  ONYX_ASSIGN_OR_RETURN(auto session, Session::load_file(a.model, options));
  const auto t1 = std::chrono::steady_clock::now();
  if (a.placement) print_placement(*session);
  std::vector<RandomShape> random_shapes;
  ONYX_ASSIGN_OR_RETURN(auto feeds, gather_feeds(*session, a.feeds, &random_shapes));
  print_random_shapes(random_shapes, "--free-dim NAME=VALUE", stderr);
  const auto t2 = std::chrono::steady_clock::now();
  auto run_result = session->run(feeds);
  const auto t3 = std::chrono::steady_clock::now();
  if (!a.profile.empty()) {  // written even when the run failed: it shows how far it got
    ONYX_ASSIGN_OR_RETURN(std::string written, session->end_profiling());
    std::error_code ec;
    fs::rename(written, a.profile, ec);
    if (ec) return invalid_argument("cannot move the profile '", written, "' to '", a.profile, "': ", ec.message());
    std::fprintf(stderr, "profile: %s\n", a.profile.c_str());
  }
  ONYX_ASSIGN_OR_RETURN(auto outputs, std::move(run_result));
  for (size_t k = 0; k < outputs.size(); ++k) print_value(session->outputs()[k].name, outputs[k]);
  if (!a.outputs_dir.empty()) ONYX_RETURN_IF_ERROR(write_outputs(*session, outputs, a.outputs_dir));
  auto ms = [](auto a, auto b) { return std::chrono::duration<double, std::milli>(b - a).count(); };
  std::printf("load %.2f ms, run %.3f ms\n", ms(t0, t1), ms(t2, t3));
  return Status::Ok();
}

}  // namespace

int run_command(const std::vector<std::string>& args) {
  if (asks_for_help(args)) return print_help(usage());
  auto parsed = parse(args);
  if (!parsed.ok()) return usage_error("run", parsed.status().message(), usage());
  Status s = run(*parsed);
  if (!s.ok()) {
    std::fprintf(stderr, "onyx run: %s\n", s.to_string().c_str());
    return 1;
  }
  return 0;
}

}  // namespace onyx::cli
