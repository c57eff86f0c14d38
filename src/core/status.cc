#include "core/status.h"

namespace onyx {

const char* status_code_name(StatusCode code) {
  switch (code) {
    case StatusCode::kOk: return "OK";
    case StatusCode::kInvalidArgument: return "INVALID_ARGUMENT";
    case StatusCode::kInvalidModel: return "INVALID_MODEL";
    case StatusCode::kNotFound: return "NOT_FOUND";
    case StatusCode::kNotImplemented: return "NOT_IMPLEMENTED";
    case StatusCode::kOutOfRange: return "OUT_OF_RANGE";
    case StatusCode::kRuntimeError: return "RUNTIME_ERROR";
    case StatusCode::kInternal: return "INTERNAL";
    case StatusCode::kCancelled: return "CANCELLED";
  }
  return "UNKNOWN";
}

std::string Status::to_string() const {
  if (ok()) return "OK";
  std::string s = std::string(status_code_name(code_)) + ": " + message_;
  if (!context_.empty()) {
    s += " (";
    for (size_t i = 0; i < context_.size(); ++i) {
      if (i) s += "; ";
      s += context_[i];
    }
    s += ")";
  }
  return s;
}

}  // namespace onyx
