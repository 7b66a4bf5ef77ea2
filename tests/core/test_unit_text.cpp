#include "core/unit_text.h"

#include <gtest/gtest.h>

namespace caliber {
namespace {

TEST(UnitText, MicrosecondsKeepFourSignificantDigits) {
  EXPECT_EQ(format_us(0.0404), "0.040");
  EXPECT_EQ(format_us(12.345), "12.35");
  EXPECT_EQ(format_us(537.25), "537.2");
  EXPECT_EQ(format_us(12345.6), "12346");
}

TEST(UnitText, BytesInBinaryUnits) {
  EXPECT_EQ(format_bytes(512), "512 B");
  EXPECT_EQ(format_bytes(16384), "16.0 KiB");
  EXPECT_EQ(format_bytes(1ull << 30), "1.00 GiB");
  EXPECT_EQ(format_bytes(256ull << 20), "256 MiB");
}

TEST(UnitText, RatesInDecimalPrefixes) {
  EXPECT_EQ(format_rate(4.0e12, "bytes/s"), "4.00 TB/s");
  EXPECT_EQ(format_rate(8.0e14, "flop/s"), "800.00 TFLOP/s");
  EXPECT_EQ(format_rate(2.5e9, "bytes/s"), "2.50 GB/s");
  EXPECT_EQ(format_rate(3.0e6, "flop/s"), "3.00 MFLOP/s");
  EXPECT_EQ(format_rate(512, "bytes/s"), "512.00 B/s");
}

}  // namespace
}  // namespace caliber
