#include "core/distinct_numbers.h"

#include <gtest/gtest.h>

namespace caliber {
namespace {

using Texts = std::pair<std::string, std::string>;

TEST(DistinctNumbers, ThreeDigitsWhenTheyAlreadyDiffer) {
  EXPECT_EQ(distinct_texts(0.614, 0.5), (Texts{"0.614", "0.5"}));
  EXPECT_EQ(distinct_texts(0.51349, 0.5), (Texts{"0.513", "0.5"}));
  EXPECT_EQ(distinct_texts(1.08, 0.5, 2), (Texts{"1.1", "0.5"}));
}

TEST(DistinctNumbers, MoreDigitsUntilTheTextsDiffer) {
  EXPECT_EQ(distinct_texts(0.50004, 0.5), (Texts{"0.50004", "0.5"}));
  EXPECT_EQ(distinct_texts(0.5, 0.5000001), (Texts{"0.5", "0.5000001"}));
  EXPECT_EQ(distinct_texts(100.04, 100.0), (Texts{"100.04", "100"}));
}

TEST(DistinctNumbers, EqualNumbersKeepTheShortText) {
  EXPECT_EQ(distinct_texts(0.5, 0.5), (Texts{"0.5", "0.5"}));
  EXPECT_EQ(distinct_texts(2.0 / 3.0, 2.0 / 3.0), (Texts{"0.667", "0.667"}));
}

TEST(DistinctNumbers, NumbersApartOnlyInTheLastBitStillPrintApart) {
  const double a = 0.1 + 0.2, b = 0.3;  // 0.30000000000000004 and 0.29999999999999999
  const Texts t = distinct_texts(a, b);
  EXPECT_NE(t.first, t.second);
  EXPECT_EQ(t, (Texts{"0.30000000000000004", "0.29999999999999999"}));
}

}  // namespace
}  // namespace caliber
