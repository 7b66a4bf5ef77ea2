#include "core/number_text.h"

#include <gtest/gtest.h>

namespace caliber {
namespace {

TEST(NumberText, WholeTextIntegersOnly) {
  EXPECT_EQ(parse_integer("42"), 42);
  EXPECT_EQ(parse_integer("-3"), -3);
  EXPECT_EQ(parse_integer("9223372036854775807"), INT64_MAX);
  EXPECT_FALSE(parse_integer("9223372036854775808").has_value());  // out of range
  EXPECT_FALSE(parse_integer("4.5").has_value());
  EXPECT_FALSE(parse_integer("42x").has_value());
  EXPECT_FALSE(parse_integer(" 42").has_value());
  EXPECT_FALSE(parse_integer("").has_value());
}

// Non-finite and overflowing numbers are input errors wherever a number is read ("median_us" =
// nan in a CSV passed the gate as "same +nan%").
TEST(NumberText, DecimalsAreFinite) {
  EXPECT_EQ(parse_decimal("12.5"), 12.5);
  EXPECT_EQ(parse_decimal("-2e-3"), -2e-3);
  EXPECT_FALSE(parse_decimal("nan").has_value());
  EXPECT_FALSE(parse_decimal("inf").has_value());
  EXPECT_FALSE(parse_decimal("-infinity").has_value());
  EXPECT_FALSE(parse_decimal("1e400").has_value());
  EXPECT_FALSE(parse_decimal("0x10").has_value());
  EXPECT_FALSE(parse_decimal("").has_value());
}

// --seed -1 was accepted as 18446744073709551615.
TEST(NumberText, UnsignedRefusesASign) {
  EXPECT_EQ(parse_unsigned("18446744073709551615"), UINT64_MAX);
  EXPECT_FALSE(parse_unsigned("-1").has_value());
  EXPECT_FALSE(parse_unsigned("+1").has_value());
  EXPECT_FALSE(parse_unsigned("18446744073709551616").has_value());
  EXPECT_FALSE(parse_integer("010x").has_value());
  EXPECT_EQ(parse_integer("010"), 10);  // base 10, not octal
}

}  // namespace
}  // namespace caliber
