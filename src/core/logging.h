// Logging to stderr with ONNX Runtime's severity levels: 0 verbose, 1 info, 2 warning,
// 3 error, 4 fatal. A message prints when its level is at least the threshold in force.
#pragma once
#include <string>

namespace onyx {

enum class LogLevel { kVerbose = 0, kInfo = 1, kWarning = 2, kError = 3, kFatal = 4 };

// Prints "onyx [W] message" when `level` >= `threshold`. Thread-safe (one write per line).
void log_message(LogLevel level, int threshold, const std::string& message);

}  // namespace onyx
