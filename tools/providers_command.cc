// onyx providers: the execution providers of this build and whether each can run here.
// One line per provider, "NAME available: DESCRIPTION" or "NAME unavailable: WHY", CPU last.
// Exit status 0 either way (the list is the answer); `--require NAME` exits 77 when that
// provider cannot run here (what test scripts read as "skipped") and 2 when it is not built.
#include <cstdio>
#include <string>
#include <vector>

#include "commands.h"
#include "providers/execution_provider.h"

namespace onyx::cli {

int providers_command(const std::vector<std::string>& args) {
  std::string required;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--require" && i + 1 < args.size()) {
      required = args[++i];
    } else {
      std::fprintf(stderr, "usage: onyx providers [--require NAME]\n");
      return 2;
    }
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
