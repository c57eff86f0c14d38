#include "core/data_type.h"
#include "core/narrow_types.h"
#include "core/tensor.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace onyx {
namespace {

TEST(Float16, RoundTripsRepresentableValues) {
  for (float f : {0.f, -0.f, 1.f, -2.5f, 65504.f, 6.103515625e-05f, 5.960464477539063e-08f, 0.333251953125f})
    EXPECT_EQ(float(Float16(f)), f) << f;
}

TEST(Float16, RoundsToNearestEvenAndSaturatesToInf) {
  EXPECT_EQ(Float16(1.f + 1.f / 2048).bits, Float16(1.f).bits);          // tie -> even
  EXPECT_EQ(Float16(1.f + 3.f / 2048).bits, Float16(1.f + 2.f / 1024).bits);  // tie -> even (up)
  EXPECT_TRUE(std::isinf(float(Float16(65520.f))));
  EXPECT_TRUE(std::isnan(float(Float16(std::numeric_limits<float>::quiet_NaN()))));
  EXPECT_EQ(float(Float16(1e-9f)), 0.f);
}

TEST(BFloat16, RoundsToNearestEven) {
  EXPECT_EQ(float(BFloat16(1.f)), 1.f);
  EXPECT_EQ(BFloat16(1.00390625f).bits, BFloat16(1.f).bits);  // exactly half an ulp: even
  EXPECT_TRUE(std::isnan(float(BFloat16(std::numeric_limits<float>::quiet_NaN()))));
}

TEST(DataType, NamesAndSizes) {
  EXPECT_STREQ(data_type_name(DataType::kFloat), "float32");
  EXPECT_EQ(data_type_size(DataType::kBFloat16), 2u);
  EXPECT_EQ(data_type_size(DataType::kComplex128), 16u);
  EXPECT_FALSE(is_valid_data_type(0));
  EXPECT_TRUE(is_valid_data_type(17));   // float8e4m3fn
  EXPECT_TRUE(is_valid_data_type(26));   // int2
  EXPECT_TRUE(is_valid_data_type(27));   // float6e2m3
  EXPECT_TRUE(is_valid_data_type(28));   // float6e3m2
  EXPECT_FALSE(is_valid_data_type(29));  // none yet
}

TEST(DataType, PackedSizes) {
  EXPECT_EQ(data_type_size(DataType::kFloat8E5M2), 1u);
  EXPECT_EQ(data_type_size(DataType::kInt4), 0u);  // no byte per element: byte movers refuse it
  EXPECT_EQ(data_type_bits(DataType::kInt4), 4u);
  EXPECT_EQ(data_type_bits(DataType::kUInt2), 2u);
  EXPECT_EQ(data_type_bytes(DataType::kInt4, 5), 3u);
  EXPECT_EQ(data_type_bytes(DataType::kInt2, 5), 2u);
  EXPECT_EQ(data_type_bytes(DataType::kFloat4E2M1, 0), 0u);
  EXPECT_EQ(data_type_bits(DataType::kFloat6E2M3), 6u);
  EXPECT_EQ(data_type_bytes(DataType::kFloat6E3M2, 4), 3u);  // four in three bytes
  EXPECT_EQ(data_type_bytes(DataType::kFloat6E3M2, 5), 4u);
  EXPECT_STREQ(data_type_name(DataType::kFloat8E4M3FNUZ), "float8e4m3fnuz");
  Tensor t(DataType::kUInt4, {7});
  EXPECT_EQ(t.nbytes(), 4u);
  set_narrow_code(t.raw_data(), DataType::kUInt4, 6, 0xF);
  set_narrow_code(t.raw_data(), DataType::kUInt4, 5, 0x3);
  EXPECT_EQ(t.data<uint8_t>()[3], 0x0F);  // element 6 in the low nibble of byte 3
  EXPECT_EQ(t.data<uint8_t>()[2], 0x30);  // element 5 in the high nibble of byte 2
  EXPECT_EQ(t.get_double(6), 15.0);
}

TEST(NarrowTypes, Float8EncodingsAtTheEdges) {
  EXPECT_EQ(float_to_narrow_float(DataType::kFloat8E4M3FN, 448.f, true), 0x7E);
  EXPECT_EQ(float_to_narrow_float(DataType::kFloat8E4M3FN, 464.f, false), 0x7E);  // tie to the even max
  EXPECT_EQ(float_to_narrow_float(DataType::kFloat8E4M3FN, 465.f, false), 0x7F);  // past it: NaN
  EXPECT_EQ(float_to_narrow_float(DataType::kFloat8E5M2, INFINITY, false), 0x7C);
  EXPECT_EQ(float_to_narrow_float(DataType::kFloat8E5M2, INFINITY, true), 0x7B);
  EXPECT_EQ(float_to_narrow_float(DataType::kFloat8E4M3FNUZ, -0.f, true), 0x00);  // no negative zero
  EXPECT_EQ(float_to_narrow_float(DataType::kFloat4E2M1, 5.f, true), 0x6);        // 5 ties to 4 (even)
  EXPECT_EQ(float_to_narrow_float(DataType::kFloat8E8M0, 0.124f, true, E8M0Rounding::kUp), 0x7C);
  EXPECT_EQ(narrow_float_to_float(DataType::kFloat8E4M3FN, 0x01), std::ldexp(1.f, -9));  // smallest subnormal
  EXPECT_TRUE(std::isnan(narrow_float_to_float(DataType::kFloat8E5M2FNUZ, 0x80)));
}

TEST(NarrowTypes, Float6CodesAndTheirBitStream) {
  EXPECT_EQ(float_to_narrow_float(DataType::kFloat6E2M3, 7.5f, false), 0x1F);  // the largest
  EXPECT_EQ(float_to_narrow_float(DataType::kFloat6E2M3, 100.f, false), 0x1F);  // always saturates
  EXPECT_EQ(float_to_narrow_float(DataType::kFloat6E2M3, NAN, true), 0x20);     // NaN: -0
  EXPECT_EQ(float_to_narrow_float(DataType::kFloat6E3M2, -28.f, true), 0x3F);
  EXPECT_EQ(narrow_float_to_float(DataType::kFloat6E2M3, 0x01), 0.125f);        // smallest subnormal
  EXPECT_EQ(narrow_float_to_float(DataType::kFloat6E3M2, 0x01), 0.0625f);
  // Codes 1..5 at bits 0, 6, 12, 18, 24: bytes 0x81 0x30 0x10 0x05.
  Tensor t(DataType::kFloat6E2M3, {5});
  for (int64_t i = 0; i < 5; ++i) set_narrow_code(t.raw_data(), t.dtype(), i, uint8_t(i + 1));
  ASSERT_EQ(t.nbytes(), 4u);
  const uint8_t* b = t.data<uint8_t>();
  EXPECT_EQ(b[0], 0x81);
  EXPECT_EQ(b[1], 0x30);
  EXPECT_EQ(b[2], 0x10);
  EXPECT_EQ(b[3], 0x05);
  for (int64_t i = 0; i < 5; ++i) EXPECT_EQ(narrow_code_at(t.raw_data(), t.dtype(), i), i + 1);
}

}  // namespace
}  // namespace onyx

#include "core/value.h"

namespace onyx {
namespace {

TEST(Value, MapHoldsParallelKeysAndValues) {
  Tensor keys(DataType::kInt64, {2}), values(DataType::kFloat, {2});
  keys.data<int64_t>()[1] = 7;
  values.data<float>()[1] = 0.5f;
  auto m = Value::map(keys, values);
  ASSERT_TRUE(m.ok()) << m.status().to_string();
  EXPECT_TRUE(m->is_map());
  EXPECT_EQ(m->map_keys().data<int64_t>()[1], 7);
  EXPECT_EQ(m->map_values().data<float>()[1], 0.5f);
  EXPECT_EQ(m->describe(), "map<int64,float32>[2]");
  EXPECT_FALSE(Value::map(keys, Tensor(DataType::kFloat, {3})).ok());
}

}  // namespace
}  // namespace onyx
