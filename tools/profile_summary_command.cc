// onyx profile-summary FILE [--top N]
// Summarises a Chrome-trace profile written by `onyx run --profile` (or SessionOptions::
// enable_profiling; ONNX Runtime's profiles read the same): total kernel time per op type,
// sorted by time, with call counts, mean time and share of all kernel time; then the N
// slowest nodes (default 10) and the session events (load, planning, runs).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "cli_args.h"
#include "commands.h"
#include "core/json.h"

namespace onyx::cli {
namespace {

struct Total {
  double us = 0;
  int64_t count = 0;
};

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

std::vector<std::pair<std::string, Total>> sorted(const std::map<std::string, Total>& m) {
  std::vector<std::pair<std::string, Total>> v(m.begin(), m.end());
  std::stable_sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.second.us > b.second.us; });
  return v;
}

Status summarize(const std::string& path, size_t top) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return not_found("cannot open '", path, "'");
  std::stringstream ss;
  ss << f.rdbuf();
  auto doc = json::parse(ss.str());
  if (!doc.ok()) return doc.take_status().with_context("while reading profile '" + path + "'");
  const json::Value* events = doc->is_array() ? &*doc : doc->find("traceEvents");
  if (!events || !events->is_array())
    return invalid_argument("'", path, "' is not a Chrome trace: no traceEvents array");

  std::map<std::string, Total> per_op, per_node, per_session;
  double node_total = 0;
  for (const json::Value& e : events->array) {
    const json::Value* ph = e.find("ph");
    const json::Value* dur = e.find("dur");
    const json::Value* name = e.find("name");
    if (!ph || !ph->is_string() || ph->string != "X" || !dur || !dur->is_number()) continue;
    const std::string event_name = name && name->is_string() ? name->string : "?";
    const json::Value* cat = e.find("cat");
    const json::Value* args = e.find("args");
    const json::Value* op = args ? args->find("op_name") : nullptr;
    if (cat && cat->is_string() && cat->string == "Node" && op && op->is_string()) {
      if (ends_with(event_name, "_fence_before") || ends_with(event_name, "_fence_after")) continue;  // ONNX Runtime's
      per_op[op->string].us += dur->number;
      ++per_op[op->string].count;
      const std::string node = event_name + " (" + op->string + ")";
      per_node[node].us += dur->number;
      ++per_node[node].count;
      node_total += dur->number;
    } else {
      per_session[event_name].us += dur->number;
      ++per_session[event_name].count;
    }
  }
  if (per_op.empty() && per_session.empty()) return invalid_argument("'", path, "' has no complete (\"ph\":\"X\") events");

  std::printf("kernel time per op type (%s):\n", path.c_str());
  std::printf("  %-28s %8s %12s %12s %7s\n", "op", "calls", "total ms", "mean us", "%");
  for (const auto& [op, t] : sorted(per_op))
    std::printf("  %-28s %8lld %12.3f %12.2f %6.1f%%\n", op.c_str(), (long long)t.count, t.us / 1e3,
                t.us / double(t.count), node_total > 0 ? 100.0 * t.us / node_total : 0.0);
  std::printf("  %-28s %8s %12.3f\n", "all kernels", "", node_total / 1e3);
  if (!per_node.empty()) {
    std::printf("slowest nodes:\n");
    const auto nodes = sorted(per_node);
    for (size_t i = 0; i < nodes.size() && i < top; ++i)
      std::printf("  %-44s %8lld %12.3f ms %6.1f%%\n", nodes[i].first.c_str(), (long long)nodes[i].second.count,
                  nodes[i].second.us / 1e3, node_total > 0 ? 100.0 * nodes[i].second.us / node_total : 0.0);
  }
  if (!per_session.empty()) {
    std::printf("session events:\n");
    for (const auto& [name, t] : sorted(per_session))
      std::printf("  %-44s %8lld %12.3f ms\n", name.c_str(), (long long)t.count, t.us / 1e3);
  }
  return Status::Ok();
}

constexpr const char* kUsage =
    "usage: onyx profile-summary FILE [--top N]\n"
    "Summarises a Chrome-trace profile (onyx run/bench --profile, or ONNX Runtime's): kernel time per op\n"
    "type with calls, mean and share, the N slowest nodes (default 10), and the session events.\n";

}  // namespace

int profile_summary_command(const std::vector<std::string>& args) {
  if (asks_for_help(args)) return print_help(kUsage);
  std::string path;
  size_t top = 10;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--top" && i + 1 < args.size()) {
      top = size_t(std::strtoul(args[++i].c_str(), nullptr, 10));
    } else if (path.empty() && !args[i].empty() && args[i][0] != '-') {
      path = args[i];
    } else {
      const std::string& a = args[i];
      return usage_error("profile-summary",
                         a == "--top" ? "--top needs a value"
                         : a[0] == '-' ? "unknown option '" + a + "'"
                                       : "unexpected argument '" + a + "'",
                         kUsage);
    }
  }
  if (path.empty()) return usage_error("profile-summary", "no profile given", kUsage);
  Status s = summarize(path, top);
  if (!s.ok()) {
    std::fprintf(stderr, "onyx profile-summary: %s\n", s.to_string().c_str());
    return 1;
  }
  return 0;
}

}  // namespace onyx::cli
