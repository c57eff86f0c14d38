// Running the built `onyx` binary from tests (ONYX_CLI, set by tests/CMakeLists.txt) and a
// fresh scratch folder per test.
#pragma once
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>

namespace onyx::testing {

#ifdef ONYX_CLI
// Runs `onyx ARGS`; returns its exit code (-1 when it did not exit) with stdout and stderr
// appended to *out.
inline int run_cli(const std::string& args, std::string* out) {
  FILE* p = ::popen((std::string(ONYX_CLI) + " " + args + " 2>&1").c_str(), "r");
  if (!p) return -1;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out->append(buf, n);
  const int status = ::pclose(p);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}
#endif

// An empty folder under the system's temp folder, named after `suite`, this process and `name`.
inline std::filesystem::path scratch_folder(const std::string& suite, const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / ("onyx_" + suite + "_" + std::to_string(::getpid()) + "_" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace onyx::testing
