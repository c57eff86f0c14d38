// Status and Result<T>: every fallible call in onyx returns one of these.
// A Status carries a code, a message and context frames added as the error travels up
// ("while running node 'conv1' (Conv, opset 13)"), printed outermost first.
#pragma once
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace onyx {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,   // bad input from the caller (feeds, options, CLI arguments)
  kInvalidModel,      // the model file or graph is malformed
  kNotFound,          // a named thing (file, input, output) does not exist
  kNotImplemented,    // no kernel for this op / opset / type
  kOutOfRange,        // an index or a byte range past the end
  kRuntimeError,      // a kernel failed while computing
  kInternal,          // a bug in onyx
  kCancelled,         // a run stopped on request (RunOptions terminate) or past its time limit
};

const char* status_code_name(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}
  static Status Ok() { return Status(); }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  const std::vector<std::string>& context() const { return context_; }

  // Adds a context frame (innermost first); returns *this for chaining.
  Status& with_context(std::string frame) & { context_.push_back(std::move(frame)); return *this; }
  Status&& with_context(std::string frame) && { context_.push_back(std::move(frame)); return std::move(*this); }

  // "NOT_IMPLEMENTED: message (while ...; while ...)", outermost frame last.
  std::string to_string() const;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
  std::vector<std::string> context_;
};

namespace detail {
template <typename... Args>
std::string concat(Args&&... args) {
  std::ostringstream os;
  (os << ... << args);
  return os.str();
}
}  // namespace detail

// Builds an error Status from streamable pieces: error(StatusCode::kNotFound, "no file ", path).
template <typename... Args>
Status error(StatusCode code, Args&&... args) {
  return Status(code, detail::concat(std::forward<Args>(args)...));
}
template <typename... Args> Status invalid_argument(Args&&... a) { return error(StatusCode::kInvalidArgument, std::forward<Args>(a)...); }
template <typename... Args> Status invalid_model(Args&&... a) { return error(StatusCode::kInvalidModel, std::forward<Args>(a)...); }
template <typename... Args> Status not_implemented(Args&&... a) { return error(StatusCode::kNotImplemented, std::forward<Args>(a)...); }
template <typename... Args> Status runtime_error(Args&&... a) { return error(StatusCode::kRuntimeError, std::forward<Args>(a)...); }
template <typename... Args> Status cancelled(Args&&... a) { return error(StatusCode::kCancelled, std::forward<Args>(a)...); }
template <typename... Args> Status not_found(Args&&... a) { return error(StatusCode::kNotFound, std::forward<Args>(a)...); }

// Result<T> holds a T or an error Status.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Status status) : v_(std::move(status)) {}  // NOLINT
  bool ok() const { return std::holds_alternative<T>(v_); }
  const Status& status() const { static const Status kOk; return ok() ? kOk : std::get<Status>(v_); }
  Status take_status() { return ok() ? Status() : std::move(std::get<Status>(v_)); }
  T& value() & { return std::get<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  T& operator*() & { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  std::variant<T, Status> v_;
};

#define ONYX_CONCAT_INNER(a, b) a##b
#define ONYX_CONCAT(a, b) ONYX_CONCAT_INNER(a, b)

#define ONYX_RETURN_IF_ERROR(expr)             \
  do {                                         \
    ::onyx::Status onyx_status_ = (expr);      \
    if (!onyx_status_.ok()) return onyx_status_; \
  } while (0)

#define ONYX_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                               \
  if (!tmp.ok()) return tmp.take_status();         \
  lhs = std::move(tmp).value()

// ONYX_ASSIGN_OR_RETURN(auto x, make_x()); returns the error from the enclosing function.
#define ONYX_ASSIGN_OR_RETURN(lhs, expr) \
  ONYX_ASSIGN_OR_RETURN_IMPL(ONYX_CONCAT(onyx_result_, __LINE__), lhs, expr)

}  // namespace onyx
