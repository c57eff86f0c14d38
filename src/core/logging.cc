#include "core/logging.h"

#include <cstdio>
#include <memory>
#include <mutex>

namespace onyx {

namespace {

std::mutex g_sink_mu;
std::shared_ptr<const LogSink> g_sink;  // null: stderr

}  // namespace

void set_log_sink(LogSink sink) {
  std::lock_guard<std::mutex> lock(g_sink_mu);
  g_sink = sink ? std::make_shared<const LogSink>(std::move(sink)) : nullptr;
}

void log_message(LogLevel level, int threshold, const std::string& message) {
  if (int(level) < threshold) return;
  std::shared_ptr<const LogSink> sink;
  {
    std::lock_guard<std::mutex> lock(g_sink_mu);
    sink = g_sink;
  }
  if (sink) {
    (*sink)(level, message);
    return;
  }
  static const char kTags[] = {'V', 'I', 'W', 'E', 'F'};
  const std::string line = std::string("onyx [") + kTags[int(level)] + "] " + message + "\n";
  std::fwrite(line.data(), 1, line.size(), stderr);
}

}  // namespace onyx
