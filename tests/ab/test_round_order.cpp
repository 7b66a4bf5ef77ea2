#include "ab/round_order.h"

#include <gtest/gtest.h>

#include <string>

#include "caliber/errors.h"

namespace caliber {
namespace {

std::string pattern(const std::vector<std::array<char, 2>>& orders) {
  std::string s;
  for (const auto& o : orders) s += std::string(o.begin(), o.end()) + " ";
  return s;
}

TEST(RoundOrder, AlternateStartsWithAInOddRounds) {
  EXPECT_EQ(pattern(round_orders(RoundOrder::alternate, 5, 99)), "AB BA AB BA AB ");
  EXPECT_TRUE(round_orders(RoundOrder::alternate, 0, 1).empty());
}

TEST(RoundOrder, RandomIsBalancedReproducibleAndSeeded) {
  for (int n = 1; n <= 9; ++n) {
    for (std::uint64_t seed = 1; seed <= 20; ++seed) {
      const auto o = round_orders(RoundOrder::random, n, seed);
      ASSERT_EQ(static_cast<int>(o.size()), n);
      EXPECT_EQ(o[0][0], 'A') << "round 1 runs A first (it records the configs): " << n << " " << seed;
      int a_first = 0;
      for (const auto& r : o) {
        EXPECT_NE(r[0], r[1]);
        a_first += r[0] == 'A';
      }
      EXPECT_GE(a_first, n / 2) << n << " " << seed;
      EXPECT_LE(a_first, (n + 1) / 2) << n << " " << seed;
      EXPECT_EQ(pattern(o), pattern(round_orders(RoundOrder::random, n, seed)));
    }
  }
  // Different seeds give different orders (not a fixed pattern).
  bool differ = false;
  for (std::uint64_t seed = 2; seed <= 10; ++seed) {
    differ = differ || pattern(round_orders(RoundOrder::random, 8, seed)) != pattern(round_orders(RoundOrder::random, 8, 1));
  }
  EXPECT_TRUE(differ);
}

TEST(RoundOrder, ParsesItsNames) {
  EXPECT_EQ(parse_round_order("random"), RoundOrder::random);
  EXPECT_EQ(to_string(parse_round_order("alternate")), "alternate");
  EXPECT_THROW(parse_round_order("shuffled"), UsageError);
}

}  // namespace
}  // namespace caliber
