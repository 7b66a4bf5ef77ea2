#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "compare/verdict.h"

namespace caliber::compare {
namespace {

TEST(LatencyChange, RegressesOnlyWhenBothRelativeAndAbsoluteAreExceeded) {
  const PracticalThreshold t{20, 10};
  EXPECT_TRUE(latency_change(100, 125, t).slower_beyond);   // +25%, +25 us
  EXPECT_FALSE(latency_change(5, 7, t).slower_beyond);      // +40% but only +2 us
  EXPECT_FALSE(latency_change(1000, 1150, t).slower_beyond);  // +150 us but only +15%
  EXPECT_FALSE(latency_change(100, 120, t).slower_beyond);  // exactly 20%: not more than
  EXPECT_FALSE(latency_change(50, 60, PracticalThreshold{10, 10}).slower_beyond);  // exactly 10 us
  EXPECT_TRUE(latency_change(125, 100, PracticalThreshold{15, 10}).faster_beyond);  // -20%, -25 us
  EXPECT_FALSE(latency_change(125, 100, t).faster_beyond);  // -20% is not more than 20%
}

TEST(LatencyChange, MeasuresDeltaInMicrosecondsAndPercent) {
  const LatencyChange c = latency_change(200, 150, PracticalThreshold{});
  EXPECT_DOUBLE_EQ(c.delta_us, -50);
  EXPECT_DOUBLE_EQ(c.delta_pct, -25);
  EXPECT_TRUE(c.faster_beyond);
}

TEST(LatencyChange, AZeroBaselineIsAnInfiniteRelativeChange) {
  const LatencyChange c = latency_change(0, 3, PracticalThreshold{50, 1});
  EXPECT_TRUE(std::isinf(c.delta_pct));
  EXPECT_TRUE(c.slower_beyond);
  EXPECT_DOUBLE_EQ(latency_change(0, 0, PracticalThreshold{}).delta_pct, 0);
}

const StatisticsSettings kStats{0.05, 5};
const std::vector<double> kBase = {100, 101, 102, 103, 104};
const std::vector<double> kSlow = {150, 151, 152, 153, 154};

TEST(DecideVerdict, WithinTheThresholdIsSameWhateverTheTestSays) {
  // Completely separated samples (p = 2/252) but only +1%: not a change that matters.
  const std::vector<double> cur = {105, 106, 107, 108, 109};
  const auto v = decide_verdict(latency_change(102, 107, PracticalThreshold{10, 0}), kBase, cur, kStats);
  EXPECT_EQ(v.verdict, Verdict::same);
  ASSERT_TRUE(v.test.has_value());
  EXPECT_EQ(v.basis, "within threshold; p=0.0079 (exact, 5 vs 5 samples)");
}

TEST(DecideVerdict, BeyondTheThresholdAndSignificantIsSlower) {
  const auto v = decide_verdict(latency_change(102, 152, PracticalThreshold{10, 0}), kBase, kSlow, kStats);
  EXPECT_EQ(v.verdict, Verdict::slower);
  // Exact two-sided p of complete separation with 5 vs 5: 2 / C(10, 5) = 2/252 = 0.0079.
  EXPECT_EQ(v.basis, "p=0.0079 < 0.05 (exact, 5 vs 5 samples)");
  const auto f = decide_verdict(latency_change(152, 102, PracticalThreshold{10, 0}), kSlow, kBase, kStats);
  EXPECT_EQ(f.verdict, Verdict::faster);
}

TEST(DecideVerdict, OverlappingSamplesBeyondTheThresholdAreUnknown) {
  const std::vector<double> base = {100, 110, 120, 130, 140};
  const std::vector<double> cur = {105, 125, 135, 150, 160};
  const auto v = decide_verdict(latency_change(120, 135, PracticalThreshold{10, 5}), base, cur, kStats);
  EXPECT_EQ(v.verdict, Verdict::unknown);
  EXPECT_EQ(v.basis.rfind("samples overlap: p=", 0), 0u) << v.basis;
}

TEST(DecideVerdict, TooFewSamplesBeyondTheThresholdAreUnknown) {
  const std::vector<double> few = {150, 151, 152};
  const auto v = decide_verdict(latency_change(102, 151, PracticalThreshold{10, 0}), kBase, few, kStats);
  EXPECT_EQ(v.verdict, Verdict::unknown);
  EXPECT_EQ(v.basis, "too few samples: 5 vs 3 (need 5 per side)");
}

TEST(DecideVerdict, WithoutSamplesOnBothSidesTheThresholdAloneDecides) {
  const auto v = decide_verdict(latency_change(100, 150, PracticalThreshold{10, 0}), {}, kSlow, kStats);
  EXPECT_EQ(v.verdict, Verdict::slower);
  EXPECT_EQ(v.basis, "threshold only: no raw samples in the baseline");
  EXPECT_FALSE(v.test.has_value());
  const auto n = decide_verdict(latency_change(100, 150, PracticalThreshold{10, 0}), {}, {}, kStats);
  EXPECT_EQ(n.basis, "threshold only: no raw samples in either file");
}

TEST(FormatPValue, FourDecimalsOrABound) {
  EXPECT_EQ(format_p_value(0.04550026), "0.0455");
  EXPECT_EQ(format_p_value(0.00001), "<0.0001");
  EXPECT_EQ(format_p_value(1.0), "1.0000");
}

}  // namespace
}  // namespace caliber::compare
