// Logging with ONNX Runtime's severity levels: 0 verbose, 1 info, 2 warning, 3 error,
// 4 fatal. A message is emitted when its level is at least the threshold in force: to stderr,
// or to the sink set with set_log_sink (the Python module's set_default_logger_callback).
#pragma once
#include <functional>
#include <string>

namespace onyx {

enum class LogLevel { kVerbose = 0, kInfo = 1, kWarning = 2, kError = 3, kFatal = 4 };

// Emits "onyx [W] message" (stderr) or calls the sink when `level` >= `threshold`.
// Thread-safe (one write per line; the sink is called from the logging thread).
void log_message(LogLevel level, int threshold, const std::string& message);

// Where messages go instead of stderr; null restores stderr. The sink must be thread-safe and
// must not log itself.
using LogSink = std::function<void(LogLevel level, const std::string& message)>;
void set_log_sink(LogSink sink);

}  // namespace onyx
