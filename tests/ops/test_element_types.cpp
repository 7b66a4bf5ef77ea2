// Tensors of their own dtype (docs/user-ops.md, "Tensor dtypes"): the element codec's bits (fp8
// e4m3 and e5m2 rounding, saturation and specials; integers rounded and clamped), and the other
// element types a description may name.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "caliber/errors.h"
#include "ops/element_codec.h"

namespace caliber::ops {
namespace {

std::uint8_t fp8(ElementType e, double v) {
  std::uint8_t b = 0;
  store_element(&b, e, 0, v);
  return b;
}

TEST(ElementCodec, Fp8E4m3RoundsToNearestEvenAndSaturates) {
  const ElementType e = ElementType::fp8_e4m3;
  EXPECT_EQ(fp8(e, 1.0), 0x38);
  EXPECT_EQ(fp8(e, 448.0), 0x7e);
  EXPECT_EQ(fp8(e, 500.0), 0x7e);    // beyond the largest finite: saturated
  EXPECT_EQ(fp8(e, -1e9), 0xfe);
  EXPECT_EQ(fp8(e, INFINITY), 0x7e);  // no infinity in e4m3
  EXPECT_EQ(fp8(e, std::nan("")), 0x7f);
  EXPECT_EQ(fp8(e, -0.0), 0x80);
  EXPECT_EQ(fp8(e, std::ldexp(1.0, -9)), 0x01);  // the smallest subnormal
  EXPECT_EQ(fp8(e, std::ldexp(1.0, -10)), 0x00);  // half of it: a tie, to even (zero)
  EXPECT_EQ(fp8(e, 1.0625), 0x38);  // halfway between 1 and 1.125: to even
  EXPECT_EQ(fp8(e, 1.1875), 0x3a);  // halfway between 1.125 and 1.25: to even
  EXPECT_EQ(fp8(e, 1.05), 0x38);
  EXPECT_EQ(fp8(e, 0.9999), 0x38);  // rounds up into the next binade
}

TEST(ElementCodec, Fp8E5m2HasInfinity) {
  const ElementType e = ElementType::fp8_e5m2;
  EXPECT_EQ(fp8(e, 1.0), 0x3c);
  EXPECT_EQ(fp8(e, 57344.0), 0x7b);
  EXPECT_EQ(fp8(e, 1e6), 0x7b);
  EXPECT_EQ(fp8(e, INFINITY), 0x7c);
  EXPECT_EQ(fp8(e, -INFINITY), 0xfc);
  EXPECT_EQ(fp8(e, std::ldexp(1.0, -16)), 0x01);
}

TEST(ElementCodec, EveryFp8PatternDecodesAndEncodesBackToItself) {
  for (ElementType e : {ElementType::fp8_e4m3, ElementType::fp8_e5m2}) {
    for (unsigned b = 0; b < 256; ++b) {
      const auto byte = static_cast<std::uint8_t>(b);
      const double v = load_element(&byte, e, 0);
      if (std::isnan(v)) continue;
      EXPECT_EQ(fp8(e, v), b) << to_string(e) << " pattern " << b << " = " << v;
    }
  }
  const std::uint8_t max = 0x7e, nan = 0x7f;
  EXPECT_EQ(load_element(&max, ElementType::fp8_e4m3, 0), 448.0);
  EXPECT_TRUE(std::isnan(load_element(&nan, ElementType::fp8_e4m3, 0)));
}

TEST(ElementCodec, IntegersRoundToNearestEvenAndClampToTheirRange) {
  std::int8_t i8[4];
  store_element(i8, ElementType::int8, 0, 300);
  store_element(i8, ElementType::int8, 1, -1.5);
  store_element(i8, ElementType::int8, 2, 2.5);
  store_element(i8, ElementType::int8, 3, std::nan(""));
  EXPECT_EQ(i8[0], 127);
  EXPECT_EQ(i8[1], -2);
  EXPECT_EQ(i8[2], 2);
  EXPECT_EQ(i8[3], 0);
  std::uint8_t u8 = 9, flag = 9;
  store_element(&u8, ElementType::uint8, 0, -3);
  store_element(&flag, ElementType::boolean, 0, 0.25);
  EXPECT_EQ(u8, 0);
  EXPECT_EQ(flag, 1);
  std::int64_t i64 = 0;
  store_element(&i64, ElementType::int64, 0, 1e30);
  EXPECT_EQ(i64, std::numeric_limits<std::int64_t>::max());
  std::int32_t i32 = 0;
  store_element(&i32, ElementType::int32, 0, -65536);
  EXPECT_EQ(load_element(&i32, ElementType::int32, 0), -65536.0);
}

TEST(ElementTypes, NamesSizesAndTheShapeDtypesTheyExtend) {
  for (ElementType e : all_element_types()) EXPECT_EQ(parse_element_type(to_string(e)), e);
  EXPECT_EQ(parse_element_type("bool"), ElementType::boolean);
  EXPECT_THROW(parse_element_type("int33"), UsageError);
  EXPECT_EQ(element_size_bytes(ElementType::fp8_e5m2), 1u);
  EXPECT_EQ(element_size_bytes(ElementType::int64), 8u);
  EXPECT_EQ(shape_dtype_of(element_of(DType::bf16)), DType::bf16);
  EXPECT_EQ(shape_dtype_of(ElementType::int32), std::nullopt);
  EXPECT_TRUE(is_integer(ElementType::boolean));
  EXPECT_FALSE(is_integer(ElementType::fp8_e4m3));
}

}  // namespace
}  // namespace caliber::ops
