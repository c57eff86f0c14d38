// half_convert (the array conversions float16 <-> float32) against Float16's scalar ones, bit
// for bit but for NaNs (which must stay NaNs): every float16 pattern one way, a sweep of float32 patterns (every 251st, plus the
// edges of the float16 range, subnormals, ties, infinities and NaNs) the other, in the default
// floating-point mode and with flush-to-zero and denormals-are-zero set.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "core/data_type.h"
#include "kernels/half_convert.h"

#if defined(__x86_64__)
#include <xmmintrin.h>
#endif

namespace onyx {
namespace {

uint32_t bits_of(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

void check_all() {
  std::vector<uint16_t> halves(65536);
  for (uint32_t i = 0; i < 65536; ++i) halves[i] = uint16_t(i);
  std::vector<float> wide(halves.size());
  half_to_float(halves.data(), wide.data(), int64_t(halves.size()));
  for (uint32_t i = 0; i < 65536; ++i) {
    const float want = Float16::to_float(uint16_t(i));
    if (std::isnan(want)) ASSERT_TRUE(std::isnan(wide[i])) << "float16 bits " << i;
    else ASSERT_EQ(bits_of(wide[i]), bits_of(want)) << "float16 bits " << i;
  }

  std::vector<float> floats;
  for (uint64_t b = 0; b < (uint64_t(1) << 32); b += 251) {
    const uint32_t u = uint32_t(b);
    float f;
    std::memcpy(&f, &u, 4);
    floats.push_back(f);
  }
  for (uint32_t u : {0x00000001u, 0x33000000u, 0x33000001u, 0x337fffffu, 0x38800000u, 0x387fffffu, 0x477fefffu,
                     0x477ff000u, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0x7f800001u, 0xffc12345u, 0x80000000u}) {
    float f;
    std::memcpy(&f, &u, 4);
    floats.push_back(f);
  }
  for (uint32_t h = 0; h < 65536; ++h) {  // the exact ties between neighbouring float16 values
    const float a = Float16::to_float(uint16_t(h)), b = Float16::to_float(uint16_t(h + 1));
    floats.push_back(a + (b - a) / 2);
  }
  std::vector<uint16_t> narrow(floats.size());
  float_to_half(floats.data(), narrow.data(), int64_t(floats.size()));
  for (size_t i = 0; i < floats.size(); ++i) {
    const uint16_t want = Float16::from_float(floats[i]);
    if (std::isnan(floats[i])) ASSERT_TRUE((narrow[i] & 0x7fffu) > 0x7c00u) << "float32 bits " << std::hex << bits_of(floats[i]);
    else ASSERT_EQ(narrow[i], want) << "float32 bits " << std::hex << bits_of(floats[i]);
  }
}

TEST(HalfConvert, MatchesTheScalarConversionsBitForBit) { check_all(); }

#if defined(__x86_64__)
TEST(HalfConvert, FlushToZeroModesChangeNothing) {
  const unsigned saved = _mm_getcsr();
  _mm_setcsr(saved | 0x8040u);  // FTZ and DAZ
  check_all();
  _mm_setcsr(saved);
}
#endif

}  // namespace
}  // namespace onyx
