// Test helper: the process's own memory figures from /proc/self/status and /proc/self/smaps.
#pragma once
#include <cstdint>
#include <fstream>
#include <sstream>
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

// Resident size, in kB, of this process's mappings of files whose path ends with `suffix`
// (the Rss lines of /proc/self/smaps, summed); -1 when no such file is mapped.
inline int64_t mapped_file_rss_kb(const std::string& suffix) {
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool in_file = false, found = false;
  int64_t total = 0;
  while (std::getline(smaps, line)) {
    // A mapping's header: "start-end perms offset dev inode [path]"; its fields follow.
    std::istringstream fields(line);
    std::string range, perms, offset, dev, inode, path;
    fields >> range >> perms >> offset >> dev >> inode;
    if (range.find('-') != std::string::npos && perms.size() == 4) {
      std::getline(fields >> std::ws, path);
      in_file = path.size() >= suffix.size() && path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0;
      found = found || in_file;
    } else if (in_file && line.rfind("Rss:", 0) == 0) {
      total += std::stoll(line.substr(4));
    }
  }
  return found ? total : -1;
}

}  // namespace onyx::testing
