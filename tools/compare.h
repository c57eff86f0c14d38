// Comparing values the way the ONNX backend suite does: |a-e| <= atol + rtol*|e| for floats
// (NaN equals NaN, infinities exact), exact for integers, bools and strings; dtype and shape
// must match.
#pragma once
#include <string>

#include "core/value.h"

namespace onyx::cli {

struct Tolerance {
  double rtol = 1e-3;  // float16 values: at least 4e-3 (compare.cc)
  double atol = 1e-5;
  bool shapes_only = false;  // compare kinds, dtypes and shapes, not values (random ops)
};

// Empty when equal, else a one-line description of the first differences.
std::string compare_values(const Value& expected, const Value& actual, const Tolerance& tol);

}  // namespace onyx::cli
