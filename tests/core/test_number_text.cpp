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

}  // namespace
}  // namespace caliber
