// Test helper: the process's own memory figures from /proc/self/status.
#pragma once
#include <cstdint>
#include <fstream>
#include <string>

namespace onyx::testing {

// Resident set size now (VmRSS), in kB; -1 when /proc cannot be read.
inline int64_t rss_kb() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::stoll(line.substr(6));
  return -1;
}

}  // namespace onyx::testing
