// float16 <-> float32 over arrays, with the CPU's F16C conversions where it has them (8 values
// an instruction) and Float16's own otherwise. Bit for bit what Float16::to_float and
// Float16::from_float give (round to nearest even, subnormals kept) but for NaNs, which stay
// NaNs (F16C quietens a signalling one), whatever the thread's flush-to-zero and
// denormals-are-zero modes: tests/unit/half_convert_test.cc checks every float16 and a sweep of
// the float32 bit patterns.
#pragma once
#include <cstdint>

namespace onyx {

void half_to_float(const uint16_t* half, float* out, int64_t n);
void float_to_half(const float* in, uint16_t* half, int64_t n);

}  // namespace onyx
