// set_default_logger_callback: onyx's log messages to a Python callable
// callback(severity, category, logid, code_location, message), as ONNX Runtime calls it.
// Messages are queued by the C++ sink (from any thread, GIL or not) and handed to the callable
// on the calling Python thread at the end of each API call that may log (session creation,
// run) and when the callback changes: no C++ thread ever waits for the GIL to log.
#include <mutex>
#include <utility>
#include <vector>

#include "binding.h"
#include "core/logging.h"

namespace onyx::python {

namespace {

std::mutex g_mu;
std::vector<std::pair<int, std::string>> g_queue;
py::object* g_callback = nullptr;  // touched under the GIL only; never freed at exit

}  // namespace

void flush_log_messages() {
  if (!g_callback) return;
  std::vector<std::pair<int, std::string>> pending;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    pending.swap(g_queue);
  }
  for (const auto& [severity, message] : pending) {
    try {
      (*g_callback)(severity, "onyx", "", "", message);
    } catch (py::error_already_set& e) {
      e.discard_as_unraisable("onyx logger callback");
    }
  }
}

void register_logging(py::module_& m) {
  m.def(
      "set_default_logger_callback",
      [](py::object callback, py::object severity) {
        flush_log_messages();
        if (!severity.is_none()) {
          const int level = severity.cast<int>();
          if (level < 0 || level > 4)
            raise(OrtError::kInvalidArgument, "invalid log severity " + std::to_string(level) +
                                                  " (0 verbose, 1 info, 2 warning, 3 error, 4 fatal)");
          set_default_log_severity(level);
        }
        if (callback.is_none()) {
          set_log_sink(nullptr);
          delete g_callback;
          g_callback = nullptr;
          return;
        }
        if (!PyCallable_Check(callback.ptr()))
          raise(OrtError::kInvalidArgument, "set_default_logger_callback takes a callable or None");
        delete g_callback;
        g_callback = new py::object(std::move(callback));
        set_log_sink([](LogLevel level, const std::string& message) {
          std::lock_guard<std::mutex> lock(g_mu);
          if (g_queue.size() < 10000) g_queue.emplace_back(int(level), message);
        });
      },
      py::arg("callback"), py::arg("severity") = py::none(),
      "Sends onyx's log messages to callback(severity, category, logid, code_location, message) instead of "
      "stderr (None restores stderr); `severity`, when given, sets the default logger severity. Messages are "
      "delivered on the calling thread when the API call that logged them returns.");
}

}  // namespace onyx::python
