#include "kernels/inverted_residual.h"

#include <cstdlib>

namespace onyx {

int64_t inverted_residual_band_bytes() {
  static const int64_t bytes = [] {
    const char* v = std::getenv("ONYX_INVERTED_RESIDUAL_BAND_KB");
    return v ? int64_t(std::atoll(v)) * 1024 : int64_t(1) << 20;
  }();
  return bytes;
}

}  // namespace onyx
