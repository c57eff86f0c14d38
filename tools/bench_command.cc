// onyx bench MODEL [--threads N] [--runs N] [--warmup N] [--batch N] [--seq N]
//                  [--input NAME=FILE]... [--inputs-dir DIR] [FREE-DIMS] [--level L] [--json FILE]
//                  [--profile FILE] [--save-optimized FILE [--save-optimized-external NAME]] [--bf16-gemm]
// Measures a model the way ORT's perf_test does: session-create time, the first run, then
// `warmup` untimed runs and `runs` timed ones; prints min / median / p90 latency and the
// process's peak RSS, and writes them as JSON (keys create_ms, first_run_ms, min_ms,
// median_ms, p90_ms, peak_rss_mb, plus runs, threads, model). Inputs not given are random
// (floats in [0, 1), integer ids within the table they index, masks all ones: feeds.h);
// --batch and --seq size the first and second symbolic dims of those random inputs (else 1),
// and the shape made for each random input with symbolic dims is printed on stderr.
// --profile writes a Chrome-trace JSON of every run (`onyx profile-summary` reads it).
// --save-optimized writes the graph after optimisation as an ONNX model (large initializers
// in the external file NAME beside it with --save-optimized-external).
// --provider cuda[,cpu] [--provider-option KEY=VALUE]... [--strict-placement] runs on those
// execution providers (outputs come back to the host in every timed run).
// --device-io (with a device provider first) binds the floating inputs, uploaded once, and every
// output on that provider's device through IoBinding (integer and bool inputs stay on the host),
// and waits for the device at the end of each timed run: the latency of the model on the
// device without host copies of activations (as a PyTorch user with tensors already on the GPU
// measures it). When the session records runs (--provider-option enable_cuda_graph=1), every
// input is uploaded, integer ones too, since a recorded run takes its inputs on the device:
// the first run is then unrecorded, the next (the first warm-up run) recorded, the rest replays.
// --bf16-gemm turns on SessionOptions::bf16_gemm (float32 MatMul/Gemm with constant weights
// multiplied in bfloat16). --disable-optimizer NAME (repeatable) leaves that pass out
// (SessionOptions::disabled_optimizers, ORT's disabled_optimizers), for A/B measurements.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <sys/resource.h>

#include "cli_args.h"
#include "commands.h"
#include "core/json.h"
#include "feeds.h"
#include "session/io_binding.h"
#include "session/session.h"

namespace onyx::cli {
namespace {

std::string usage() {
  const std::string indent = "\n                  ";
  return "usage: onyx bench MODEL [--threads N] [--runs N] [--warmup N] [--batch N] [--seq N] [--json FILE]" + indent +
         "[--input NAME=FILE]... [--inputs-dir DIR] [--level 0|1|2|99] [--bf16-gemm] [--device-io]" + indent +
         "[--profile FILE] [--disable-optimizer NAME]..." + indent + kFreeDimUsage + indent + kSaveUsage + indent + kProviderUsage +
         "\n"
         "Times MODEL: session-create time, first run, min/median/p90 latency over --runs runs (after\n"
         "--warmup untimed ones), peak RSS; --json writes them. Inputs not given are random (floats in\n"
         "[0, 1), integer ids within the table they index, masks all ones); --batch and --seq size their\n"
         "first and second symbolic dims (else 1, or by name with --free-dim NAME=VALUE), and the shape\n"
         "made for each input with symbolic dims is printed on stderr.\n";
}

struct BenchArgs {
  std::string model;
  FeedArgs feeds;
  int threads = 0;
  int runs = 20;
  int warmup = 3;
  std::string json;
  std::string profile;
  bool device_io = false;
  SessionOptions options;
};

Result<int64_t> parse_count(const std::string& flag, const std::string& v, int64_t min) {
  char* end = nullptr;
  const long long n = std::strtoll(v.c_str(), &end, 10);
  if (v.empty() || *end != '\0' || n < min) return invalid_argument(flag, " takes an integer >= ", min, ", got '", v, "'");
  return int64_t(n);
}

Result<BenchArgs> parse(const std::vector<std::string>& args) {
  BenchArgs r;
  r.feeds.random_inputs = true;  // whatever is not given is random
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto next = [&]() -> Result<std::string> {
      if (i + 1 >= args.size()) return invalid_argument(a, " needs a value");
      return args[++i];
    };
    ONYX_ASSIGN_OR_RETURN(bool feed_flag, parse_feed_flag(a, next, r.feeds));
    if (feed_flag) continue;
    if (a == "--threads" || a == "--runs" || a == "--warmup" || a == "--batch" || a == "--seq" || a == "--level") {
      ONYX_ASSIGN_OR_RETURN(std::string v, next());
      ONYX_ASSIGN_OR_RETURN(int64_t n, parse_count(a, v, a == "--runs" || a == "--batch" || a == "--seq" ? 1 : 0));
      if (a == "--threads") r.threads = int(n);
      else if (a == "--runs") r.runs = int(n);
      else if (a == "--warmup") r.warmup = int(n);
      else if (a == "--batch") r.feeds.random_batch = n;
      else if (a == "--seq") r.feeds.random_seq = n;
      else r.options.graph_optimization_level = int(n);
    } else if (a == "--bf16-gemm") {
      r.options.bf16_gemm = true;
    } else if (a == "--device-io") {
      r.device_io = true;
    } else if (a == "--disable-optimizer") {
      ONYX_ASSIGN_OR_RETURN(std::string v, next());
      r.options.disabled_optimizers.insert(v);
    } else if (a == "--json") {
      ONYX_ASSIGN_OR_RETURN(r.json, next());
    } else if (a == "--profile") {
      ONYX_ASSIGN_OR_RETURN(r.profile, next());
      r.options.enable_profiling = true;
      r.options.profile_file_prefix = r.profile + ".tmp";
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
  if (r.device_io && r.options.providers.empty())
    return invalid_argument("--device-io needs a device provider (--provider cuda)");
  r.options.intra_op_threads = r.threads;
  return r;
}

// Peak resident memory of this process image in MB: VmHWM from /proc/self/status (reset by
// exec, unlike getrusage's ru_maxrss, which keeps the high-water mark of the process that
// forked us), else ru_maxrss.
double peak_rss_mb() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmHWM:", 0) == 0) return std::strtod(line.c_str() + 6, nullptr) / 1024.0;  // in kB
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return double(usage.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
}

// The q-quantile (0..1) of sorted values, nearest rank.
double quantile(const std::vector<double>& sorted, double q) {
  const size_t idx = std::min(sorted.size() - 1, size_t(q * double(sorted.size() - 1) + 0.5));
  return sorted[idx];
}

// One timed run: Session::run on host feeds, or with --device-io a run through an IoBinding whose
// inputs were uploaded to the first provider's device and whose outputs stay there, followed by
// a wait for that device.
Result<std::function<Status()>> make_runner(Session& session, const std::vector<std::pair<std::string, Value>>& feeds,
                                            bool device_io) {
  if (!device_io) return std::function<Status()>([&session, &feeds] { return session.run(feeds).status(); });
  // The session's device: the first non-host device one of its providers owns.
  ExecutionProvider* provider = nullptr;
  Device device;
  for (Device::Type type : {Device::Type::kCuda, Device::Type::kSimulated})
    for (int index = 0; index < 64 && !provider; ++index)
      if ((provider = session.provider_for(Device{type, index}))) device = Device{type, index};
  if (!provider) return invalid_argument("--device-io: the session has no device provider");
  auto binding = std::make_shared<IoBinding>(session);
  // Floating inputs go to the device; integer and bool ones (ids, masks: read as indices and
  // shapes on the host, or small) stay on the host, so the plan does not copy them back, unless
  // runs are recorded (session/run_capture.h: every input on the device).
  for (const auto& [name, value] : feeds) {
    if (!value.is_tensor()) return not_implemented("--device-io binds tensor inputs only; '", name, "' is not one");
    if (!is_float_type(value.tensor().dtype()) && !session.records_runs()) {
      ONYX_RETURN_IF_ERROR(binding->bind_input(name, value));
      continue;
    }
    ONYX_ASSIGN_OR_RETURN(Tensor uploaded, provider->copy_to_own_memory(value.tensor()));
    ONYX_RETURN_IF_ERROR(binding->bind_input(name, Value(std::move(uploaded))));
  }
  for (const auto& out : session.outputs()) ONYX_RETURN_IF_ERROR(binding->bind_output(out.name, device));
  return std::function<Status()>([&session, binding, provider] {
    ONYX_RETURN_IF_ERROR(session.run(*binding));
    return provider->synchronize();
  });
}

Status bench(const BenchArgs& a) {
  using clock = std::chrono::steady_clock;
  auto ms = [](clock::time_point x, clock::time_point y) { return std::chrono::duration<double, std::milli>(y - x).count(); };
  const auto t0 = clock::now();
  ONYX_ASSIGN_OR_RETURN(auto session, Session::load_file(a.model, a.options));
  const double create_ms = ms(t0, clock::now());
  std::vector<RandomShape> random_shapes;
  ONYX_ASSIGN_OR_RETURN(auto feeds, gather_feeds(*session, a.feeds, &random_shapes));
  print_random_shapes(random_shapes, "--batch N, --seq N or --free-dim NAME=VALUE", stderr);
  ONYX_ASSIGN_OR_RETURN(std::function<Status()> run_once, make_runner(*session, feeds, a.device_io));

  const auto t1 = clock::now();
  ONYX_RETURN_IF_ERROR(run_once());
  const double first_run_ms = ms(t1, clock::now());
  for (int i = 0; i < a.warmup; ++i) ONYX_RETURN_IF_ERROR(run_once());
  std::vector<double> times;
  times.reserve(size_t(a.runs));
  for (int i = 0; i < a.runs; ++i) {
    const auto s = clock::now();
    ONYX_RETURN_IF_ERROR(run_once());
    times.push_back(ms(s, clock::now()));
  }
  std::sort(times.begin(), times.end());
  const double min_ms = times.front(), median_ms = quantile(times, 0.5), p90_ms = quantile(times, 0.9);
  const double rss = peak_rss_mb();
  if (!a.profile.empty()) {
    ONYX_ASSIGN_OR_RETURN(std::string written, session->end_profiling());
    std::error_code ec;
    std::filesystem::rename(written, a.profile, ec);
    if (ec) return invalid_argument("cannot move the profile '", written, "' to '", a.profile, "': ", ec.message());
  }

  std::printf("model        %s\nthreads      %d\ncreate       %.2f ms\nfirst run    %.3f ms\n", a.model.c_str(),
              a.threads, create_ms, first_run_ms);
  std::printf("latency      min %.3f ms, median %.3f ms, p90 %.3f ms over %d runs\npeak RSS     %.1f MB\n", min_ms,
              median_ms, p90_ms, a.runs, rss);
  if (!a.json.empty()) {
    char numbers[512];
    std::snprintf(numbers, sizeof numbers,
                  "\"threads\": %d, \"runs\": %d, \"create_ms\": %.4f, \"first_run_ms\": %.4f, \"min_ms\": %.4f, "
                  "\"median_ms\": %.4f, \"p90_ms\": %.4f, \"peak_rss_mb\": %.2f",
                  a.threads, a.runs, create_ms, first_run_ms, min_ms, median_ms, p90_ms, rss);
    std::ofstream out(a.json);
    out << "{\"model\": " << json::quote(a.model) << ", " << numbers << "}\n";
    if (!out) return invalid_argument("cannot write '", a.json, "'");
  }
  return Status::Ok();
}

}  // namespace

int bench_command(const std::vector<std::string>& args) {
  if (asks_for_help(args)) return print_help(usage());
  auto parsed = parse(args);
  if (!parsed.ok()) return usage_error("bench", parsed.status().message(), usage());
  Status s = bench(*parsed);
  if (!s.ok()) {
    std::fprintf(stderr, "onyx bench: %s\n", s.to_string().c_str());
    return 1;
  }
  return 0;
}

}  // namespace onyx::cli
