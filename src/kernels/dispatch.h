// Type dispatch for kernels: run a templated lambda for the C++ type matching a DataType.
//
//   return dispatch<ONYX_FLOAT_TYPES>(x.dtype(), [&]<typename T>() -> Status { ... });
//
// An unlisted type yields NOT_IMPLEMENTED naming the type; the session adds node, op and opset.
#pragma once
#include <complex>
#include <cstdint>
#include <string>

#include "core/data_type.h"
#include "core/status.h"

namespace onyx {

template <typename... Ts, typename F>
Status dispatch(DataType dtype, F&& fn) {
  Status result = Status::Ok();
  const bool matched = ((dtype == data_type_of<Ts> ? (result = fn.template operator()<Ts>(), true) : false) || ...);
  // The refusal is built only when no type matched: formatting it costs an allocation a call.
  if (!matched) return not_implemented("no kernel for element type ", data_type_name(dtype));
  return result;
}

#define ONYX_FLOAT_TYPES float, double, ::onyx::Float16, ::onyx::BFloat16
#define ONYX_SIGNED_INT_TYPES int8_t, int16_t, int32_t, int64_t
#define ONYX_UNSIGNED_INT_TYPES uint8_t, uint16_t, uint32_t, uint64_t
#define ONYX_INT_TYPES ONYX_SIGNED_INT_TYPES, ONYX_UNSIGNED_INT_TYPES
#define ONYX_NUMERIC_TYPES ONYX_FLOAT_TYPES, ONYX_INT_TYPES
#define ONYX_ALL_TYPES ONYX_NUMERIC_TYPES, bool, std::string

// Arithmetic type used to compute on T: float for the 16-bit floats, T otherwise.
template <typename T> struct ComputeTypeOf { using type = T; };
template <> struct ComputeTypeOf<Float16> { using type = float; };
template <> struct ComputeTypeOf<BFloat16> { using type = float; };
template <typename T> using compute_t = typename ComputeTypeOf<T>::type;

}  // namespace onyx
