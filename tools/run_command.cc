// onyx run MODEL ...: runs a model once (stub until the input readers land).
#include <cstdio>

#include "commands.h"

namespace onyx::cli {

int run_command(const std::vector<std::string>& args) {
  std::fprintf(stderr, "onyx run: not implemented yet\n");
  return 2;
}

}  // namespace onyx::cli
