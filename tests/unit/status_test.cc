#include "core/status.h"

#include <gtest/gtest.h>

namespace onyx {
namespace {

Result<int> half(int x) {
  if (x % 2) return invalid_argument(x, " is odd");
  return x / 2;
}

Status quarter(int x, int* out) {
  ONYX_ASSIGN_OR_RETURN(int h, half(x));
  ONYX_ASSIGN_OR_RETURN(*out, half(h));
  return Status::Ok();
}

TEST(Status, CarriesCodeMessageAndContext) {
  Status s = invalid_argument("bad ", 3);
  s.with_context("while a").with_context("while b");
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.to_string(), "INVALID_ARGUMENT: bad 3 (while a; while b)");
}

TEST(Status, AssignOrReturnPropagates) {
  int out = 0;
  EXPECT_TRUE(quarter(8, &out).ok());
  EXPECT_EQ(out, 2);
  Status s = quarter(6, &out);
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.message(), "3 is odd");
}

}  // namespace
}  // namespace onyx
