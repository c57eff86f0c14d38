#include "core/data_type.h"

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
  EXPECT_FALSE(is_valid_data_type(17));
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
