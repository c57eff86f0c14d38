#include "cli_args.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <map>

namespace onyx::cli {

bool asks_for_help(const std::vector<std::string>& args) {
  for (const std::string& a : args)
    if (a == "--help" || a == "-h") return true;
  return false;
}

int print_help(const std::string& usage) {
  std::fputs(usage.c_str(), stdout);
  return 0;
}

int usage_error(const std::string& command, const std::string& error, const std::string& usage) {
  if (!error.empty()) std::fprintf(stderr, "onyx %s: %s\n", command.c_str(), error.c_str());
  std::fputs(usage.c_str(), stderr);
  return 2;
}

bool is_free_dim_flag(const std::string& flag) { return flag == "--free-dim" || flag == "--free-dim-denotation"; }

Result<bool> parse_free_dim_flag(const std::string& flag, const std::string& value, SessionOptions& options) {
  if (!is_free_dim_flag(flag)) return false;
  const size_t eq = value.rfind('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == value.size())
    return invalid_argument(flag, " takes NAME=VALUE, got '", value, "'");
  const std::string name = value.substr(0, eq), number = value.substr(eq + 1);
  char* end = nullptr;
  errno = 0;
  const long long size = std::strtoll(number.c_str(), &end, 10);
  if (errno || *end != '\0' || size < 0)
    return invalid_argument(flag, " ", value, ": the size must be a non-negative integer");
  if (flag == "--free-dim") options.add_free_dimension_override_by_name(name, size);
  else options.add_free_dimension_override(name, size);
  return true;
}

bool is_save_flag(const std::string& flag) {
  return flag == "--save-optimized" || flag == "--save-optimized-external";
}

bool parse_save_flag(const std::string& flag, const std::string& value, SessionOptions& options) {
  if (flag == "--save-optimized") options.optimized_model_filepath = value;
  else if (flag == "--save-optimized-external") options.optimized_model_external_data_file = value;
  else return false;
  return true;
}

bool is_provider_flag(const std::string& flag) { return flag == "--provider" || flag == "--provider-option"; }

Result<bool> parse_provider_flag(const std::string& flag, const std::string& value, SessionOptions& options) {
  if (flag == "--strict-placement") {
    options.disable_cpu_fallback = true;
    return true;
  }
  if (flag == "--provider") {
    size_t start = 0;
    while (start <= value.size()) {
      const size_t comma = value.find(',', start);
      const std::string name = value.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      if (name.empty()) return invalid_argument("--provider takes names separated by commas, got '", value, "'");
      options.append_provider(name);
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    return true;
  }
  if (flag == "--provider-option") {
    const size_t eq = value.find('=');
    if (eq == std::string::npos || eq == 0) return invalid_argument("--provider-option takes KEY=VALUE, got '", value, "'");
    if (options.providers.empty()) return invalid_argument("--provider-option needs a --provider before it");
    options.providers.front().second[value.substr(0, eq)] = value.substr(eq + 1);
    return true;
  }
  return false;
}

void print_placement(const Session& session) {
  std::map<std::string, int> nodes;
  int copies = 0;
  for (const NodePlacement& p : session.placement()) p.is_copy ? ++copies : ++nodes[p.provider];
  std::printf("placement:");
  for (const auto& [provider, n] : nodes) std::printf(" %d nodes on %s,", n, provider.c_str());
  std::printf(" %d copy steps\n", copies);
  for (const std::string& d : session.provider_descriptions()) std::printf("  provider: %s\n", d.c_str());
  for (const std::string& d : session.declined_rewrites()) std::printf("  not fused: %s\n", d.c_str());
  for (const NodePlacement& p : session.placement()) {
    if (p.is_copy) std::printf("  copy   %s\n", p.node.c_str());
    else if (!p.reason.empty()) std::printf("  on %s  %s: %s\n", p.provider.c_str(), p.node.c_str(), p.reason.c_str());
  }
}

}  // namespace onyx::cli
