// Element type conversion with ONNX Cast semantics, shared by Cast, CastLike and any kernel
// that needs to change a tensor's element type.
//
// Rules:
//  - numeric -> numeric: floats to 16-bit floats round to nearest even (double goes to
//    float16/bfloat16 in one correct rounding); floats to integers truncate toward zero and
//    saturate at the target's range, NaN -> 0; integers to narrower integers wrap (two's
//    complement); anything -> bool is (x != 0); bool -> numeric is 0 or 1.
//  - numeric -> string: the shortest decimal that round-trips in the SOURCE type, formatted as
//    numpy's str(): positional for 1e-4 <= |x| < 1e16 (and 0), e.g. "0.5", "1.0",
//    "123456790.0"; scientific otherwise, e.g. "1e-05", "1.5e+16"; "nan", "inf", "-inf";
//    integers in decimal; bools "True" / "False".
//  - string -> numeric: surrounding whitespace ignored; "NaN", "INF", "+INF", "-INF",
//    "Infinity" (any case) for floats; plain and scientific decimals; an integer target parses
//    an integer exactly or truncates a decimal; a bool target also takes "true" / "false".
//    Anything else is INVALID_ARGUMENT naming the string.
//  - the narrow types (core/narrow_types.h): to a narrow float, the value goes through float32
//    and rounds to nearest even, `saturate` deciding what becomes of values out of range
//    (float8e8m0 rounds as `e8m0_rounding` says); to int4/uint4/int2/uint2, the value goes
//    through int64 (floats truncate) and wraps to the low bits, as integer narrowing does;
//    from a narrow type, its exact value in float32 (floats) or int32 (integers) is converted.
#pragma once
#include <optional>
#include <string>
#include <string_view>

#include "core/data_type.h"
#include "core/narrow_types.h"
#include "core/status.h"
#include "core/tensor.h"

namespace onyx {

// Cast's attributes that only narrow targets read.
struct CastOptions {
  bool saturate = true;
  E8M0Rounding e8m0_rounding = E8M0Rounding::kUp;
};

class KernelInfo;  // kernels/kernel.h
// Cast's / CastLike's `saturate` (default 1) and `round_mode` ("up", "down", "nearest";
// default "up") from a node; INVALID_MODEL for another round_mode. `op` names the node's op.
Result<CastOptions> cast_options_from_node(const KernelInfo& info, const char* op);

// Converts every element of `in` into `out` (already allocated with the target dtype and the
// same number of elements). Complex types give NOT_IMPLEMENTED.
Status convert_elements(const Tensor& in, Tensor& out, const CastOptions& options);
inline Status convert_elements(const Tensor& in, Tensor& out) { return convert_elements(in, out, CastOptions{}); }
// The part of convert_elements where `in` or `out` has a narrow type (convert_narrow.cc).
Status convert_narrow_elements(const Tensor& in, Tensor& out, const CastOptions& options);

// A float / double / float16 / bfloat16 formatted as described above.
std::string format_float_shortest(double value, DataType source_type);

// The DataType for a TensorProto.DataType name ("FLOAT", "int64", "FLOAT16"), case-insensitive.
std::optional<DataType> data_type_from_onnx_name(std::string_view name);

}  // namespace onyx
