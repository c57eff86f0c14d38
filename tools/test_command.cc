// onyx test CASE_DIR...: runs ONNX backend test cases. A case is a folder holding model.onnx
// and test_data_set_*/ with input_K.pb and output_K.pb. input_K feeds the K-th graph input
// that has no initializer; output_K is compared with the K-th graph output.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "cli_args.h"
#include "commands.h"
#include "compare.h"
#include "feeds.h"
#include "onnx/loader.h"
#include "session/session.h"

namespace onyx::cli {
namespace fs = std::filesystem;
namespace {


// Runs every data set of one case; returns "" on success or the reason for failure.
std::string run_case(const fs::path& dir, const Tolerance& tol, SessionOptions options) {
  options.verify_shapes = true;  // static rules must agree with kernels on every case
  auto session = Session::load_file((dir / "model.onnx").string(), options);
  if (!session.ok()) return "load: " + session.status().to_string();
  const Session& s = **session;
  std::vector<const ir::ValueInfo*> feedable;
  for (const auto& vi : s.inputs())
    if (!s.input_has_default(vi.name)) feedable.push_back(&vi);

  std::vector<fs::path> sets;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec))
    if (entry.is_directory() && entry.path().filename().string().rfind("test_data_set_", 0) == 0)
      sets.push_back(entry.path());
  if (ec) return "cannot list '" + dir.string() + "': " + ec.message();
  std::sort(sets.begin(), sets.end());
  if (sets.empty()) return "no test_data_set_* folder";

  for (const fs::path& set : sets) {
    const std::string set_name = set.filename().string();
    std::vector<std::pair<std::string, Value>> feeds;
    for (size_t k = 0;; ++k) {
      const fs::path f = set / ("input_" + std::to_string(k) + ".pb");
      if (!fs::exists(f)) break;
      if (k >= feedable.size()) return set_name + ": more input files than graph inputs";
      auto v = onnx_format::load_value_file(f.string(), feedable[k]->type);
      if (!v.ok()) return set_name + ": reading " + f.filename().string() + ": " + v.status().to_string();
      feeds.emplace_back(feedable[k]->name, raw_bits_as_declared(std::move(v).value(), feedable[k]->type));
    }
    auto outputs = s.run(feeds);
    if (!outputs.ok()) return set_name + ": run: " + outputs.status().to_string();
    for (size_t k = 0; k < s.outputs().size(); ++k) {
      const fs::path f = set / ("output_" + std::to_string(k) + ".pb");
      if (!fs::exists(f)) break;
      auto expected = onnx_format::load_value_file(f.string(), s.outputs()[k].type);
      if (!expected.ok()) return set_name + ": reading " + f.filename().string() + ": " + expected.status().to_string();
      const std::string diff =
          compare_values(raw_bits_as_declared(std::move(expected).value(), s.outputs()[k].type), (*outputs)[k], tol);
      if (!diff.empty()) return set_name + ": output '" + s.outputs()[k].name + "': " + diff;
    }
  }
  return "";
}

std::string usage() {
  return std::string("usage: onyx test [--rtol R] [--atol A] [--shapes-only] CASE_DIR...\n                 ") +
         kProviderUsage +
         "\n"
         "Runs ONNX test cases (a folder with model.onnx and test_data_set_*/input_K.pb, output_K.pb),\n"
         "comparing the outputs within |got - expected| <= atol + rtol |expected| (default 1e-5, 1e-3);\n"
         "prints PASS or FAIL per case, then \"N passed, N failed\"; exit 1 when one fails.\n";
}

}  // namespace

int test_command(const std::vector<std::string>& args) {
  if (asks_for_help(args)) return print_help(usage());
  Tolerance tol;
  SessionOptions options;
  std::vector<std::string> dirs;
  for (size_t i = 0; i < args.size(); ++i) {
    if (is_provider_flag(args[i]) || args[i] == "--strict-placement") {
      const bool takes_value = args[i] != "--strict-placement";
      if (takes_value && i + 1 >= args.size()) return usage_error("test", args[i] + " needs a value", usage());
      Result<bool> parsed = parse_provider_flag(args[i], takes_value ? args[i + 1] : "", options);
      if (!parsed.ok()) return usage_error("test", parsed.status().message(), usage());
      i += takes_value;
      continue;
    }
    if (args[i] == "--rtol" || args[i] == "--atol") {
      if (i + 1 >= args.size()) return usage_error("test", args[i] + " needs a value", usage());
      char* end = nullptr;
      const double v = std::strtod(args[i + 1].c_str(), &end);
      if (end == args[i + 1].c_str() || *end || !(v >= 0))
        return usage_error("test", args[i] + " needs a non-negative number, got '" + args[i + 1] + "'", usage());
      (args[i] == "--rtol" ? tol.rtol : tol.atol) = v;
      ++i;
    }
    else if (args[i] == "--shapes-only") tol.shapes_only = true;
    else if (!args[i].empty() && args[i][0] == '-') return usage_error("test", "unknown option '" + args[i] + "'", usage());
    else dirs.push_back(args[i]);
  }
  if (dirs.empty()) return usage_error("test", "no case folder given", usage());
  int passed = 0, failed = 0;
  for (const std::string& d : dirs) {
    fs::path dir(d);
    const std::string id = dir.parent_path().filename().string() + "/" + dir.filename().string();
    const auto start = std::chrono::steady_clock::now();
    const std::string why = run_case(dir, tol, options);
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (why.empty()) {
      ++passed;
      std::printf("PASS %s (%.1f ms)\n", id.c_str(), ms);
    } else {
      ++failed;
      std::printf("FAIL %s: %s\n", id.c_str(), why.c_str());
    }
    std::fflush(stdout);
  }
  std::printf("%d passed, %d failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}

}  // namespace onyx::cli
