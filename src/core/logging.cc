#include "core/logging.h"

#include <cstdio>

namespace onyx {

void log_message(LogLevel level, int threshold, const std::string& message) {
  if (int(level) < threshold) return;
  static const char kTags[] = {'V', 'I', 'W', 'E', 'F'};
  const std::string line = std::string("onyx [") + kTags[int(level)] + "] " + message + "\n";
  std::fwrite(line.data(), 1, line.size(), stderr);
}

}  // namespace onyx
