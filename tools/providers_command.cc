// onyx providers: the execution providers of this build and whether each can run here.
// One line per provider, "NAME available: DESCRIPTION" or "NAME unavailable: WHY", CPU last.
// Exit status 0 either way (the list is the answer); `--require NAME` exits 77 when that
// provider cannot run here (what test scripts read as "skipped") and 2 when it is not built.
#include <cstdio>
#include <string>
#include <vector>

#include "cli_args.h"
#include "commands.h"
#include "providers/execution_provider.h"

namespace onyx::cli {

namespace {

constexpr const char* kUsage =
    "usage: onyx providers [--require NAME]\n"
    "Lists the execution providers of this build, \"NAME available: ...\" or \"NAME unavailable: WHY\";\n"
    "with --require NAME, exits 77 when NAME cannot run here and 2 when it is not built.\n";

}  // namespace

int providers_command(const std::vector<std::string>& args) {
  if (asks_for_help(args)) return print_help(kUsage);
  std::string required;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--require" && i + 1 < args.size()) required = args[++i];
    else if (args[i] == "--require") return usage_error("providers", "--require needs a value", kUsage);
    else if (!args[i].empty() && args[i][0] == '-') return usage_error("providers", "unknown option '" + args[i] + "'", kUsage);
    else return usage_error("providers", "unexpected argument '" + args[i] + "'", kUsage);
  }
  const ProviderRegistry& registry = ProviderRegistry::global();
  bool required_available = false;
  for (const std::string& name : registry.names()) {
    auto made = registry.create(name, {});
    if (made.ok()) std::printf("%s available: %s\n", name.c_str(), (*made)->description().c_str());
    else std::printf("%s unavailable: %s\n", name.c_str(), made.status().to_string().c_str());
    if (!required.empty() && registry.canonical(required) == name) required_available = made.ok();
  }
  if (required.empty()) return 0;
  if (registry.canonical(required).empty()) {
    std::fprintf(stderr, "onyx providers: '%s' is not part of this build\n", required.c_str());
    return 2;
  }
  return required_available ? 0 : 77;
}

}  // namespace onyx::cli
