// The last line of defence between a C++ exception and the caller: onyx reports errors as
// Status, so an exception escaping a kernel, a static rule or a library call (std::bad_alloc,
// std::length_error from a vector sized by a hostile model, ...) becomes an error Status at
// the boundary where it is caught, never std::terminate. Code should not rely on it: check
// sizes before allocating. See ARCHITECTURE.md, "Bad input".
#pragma once
#include <exception>
#include <new>

#include "core/status.h"

namespace onyx {

// Calls `f` (which returns Status) and returns its Status, or RUNTIME_ERROR naming `what` and
// the exception when one escapes it.
template <typename F>
Status guarded(const char* what, F&& f) noexcept {
  try {
    return f();
  } catch (const std::bad_alloc&) {
    return runtime_error(what, ": out of memory");
  } catch (const std::exception& e) {
    return runtime_error(what, ": ", e.what());
  } catch (...) {
    return runtime_error(what, ": unknown exception");
  }
}

}  // namespace onyx
