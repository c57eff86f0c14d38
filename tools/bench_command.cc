// onyx bench MODEL [--threads N] [--runs N] [--warmup N] [--batch N] [--seq N]
//                  [--input NAME=FILE]... [--inputs-dir DIR] [FREE-DIMS] [--level L] [--json FILE]
//                  [--profile FILE] [--save-optimized FILE [--save-optimized-external NAME]] [--bf16-gemm]
// Measures a model the way ORT's perf_test does: session-create time, the first run, then
// `warmup` untimed runs and `runs` timed ones; prints min / median / p90 latency and the
// process's peak RSS, and writes them as JSON (keys create_ms, first_run_ms, min_ms,
// median_ms, p90_ms, peak_rss_mb, plus runs, threads, model). Inputs not given are random
// (integers 0 or 1, so that ids and masks are valid);
// --batch and --seq size the first and second symbolic dims of those random inputs.
// --profile writes a Chrome-trace JSON of every run (`onyx profile-summary` reads it).
// --save-optimized writes the graph after optimisation as an ONNX model (large initializers
// in the external file NAME beside it with --save-optimized-external).
// --provider cuda[,cpu] [--provider-option KEY=VALUE]... [--strict-placement] runs on those
// execution providers (outputs come back to the host in every timed run).
// --bf16-gemm turns on SessionOptions::bf16_gemm (float32 MatMul/Gemm with constant weights
// multiplied in bfloat16).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <sys/resource.h>

#include "cli_args.h"
#include "commands.h"
#include "core/json.h"
#include "feeds.h"
#include "session/session.h"

namespace onyx::cli {
namespace {

struct BenchArgs {
  std::string model;
  FeedArgs feeds;
  int threads = 0;
  int runs = 20;
  int warmup = 3;
  std::string json;
  std::string profile;
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
  r.feeds.random_int_high = 2;   // 0/1: valid ids for any embedding table, and valid masks
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

Status bench(const BenchArgs& a) {
  using clock = std::chrono::steady_clock;
  auto ms = [](clock::time_point x, clock::time_point y) { return std::chrono::duration<double, std::milli>(y - x).count(); };
  const auto t0 = clock::now();
  ONYX_ASSIGN_OR_RETURN(auto session, Session::load_file(a.model, a.options));
  const double create_ms = ms(t0, clock::now());
  ONYX_ASSIGN_OR_RETURN(auto feeds, gather_feeds(*session, a.feeds));

  const auto t1 = clock::now();
  ONYX_RETURN_IF_ERROR(session->run(feeds).status());
  const double first_run_ms = ms(t1, clock::now());
  for (int i = 0; i < a.warmup; ++i) ONYX_RETURN_IF_ERROR(session->run(feeds).status());
  std::vector<double> times;
  times.reserve(size_t(a.runs));
  for (int i = 0; i < a.runs; ++i) {
    const auto s = clock::now();
    ONYX_RETURN_IF_ERROR(session->run(feeds).status());
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
  auto parsed = parse(args);
  if (!parsed.ok()) {
    std::fprintf(stderr,
                 "onyx bench: %s\nusage: onyx bench MODEL [--threads N] [--runs N] [--warmup N] [--batch N] [--seq N]\n"
                 "                  [--input NAME=FILE]... [--inputs-dir DIR] %s\n"
                 "                  [--level 0|1|2|99] [--bf16-gemm] [--json FILE] [--profile FILE] %s\n"
                 "                  %s\n",
                 parsed.status().message().c_str(), kFreeDimUsage, kSaveUsage, kProviderUsage);
    return 2;
  }
  Status s = bench(*parsed);
  if (!s.ok()) {
    std::fprintf(stderr, "onyx bench: %s\n", s.to_string().c_str());
    return 1;
  }
  return 0;
}

}  // namespace onyx::cli
