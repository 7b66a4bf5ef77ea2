// The A/B aggregation on fixture rounds: medians over rounds, per-round delta range, sign flips,
// the two dispersions, the paired test, and no report for an op with a failed or missing round.
#include "ab/ab_aggregate.h"

#include <gtest/gtest.h>

namespace caliber {
namespace {

CellOutcome cell(std::vector<ShapeMeasurement> rows) {
  CellOutcome c;
  c.state = CellState::ok;
  c.results.rows_ok = static_cast<int>(rows.size());
  c.results.rows = std::move(rows);
  return c;
}

ShapeMeasurement m(const std::string& key, double us, std::optional<double> rel_iqr = std::nullopt) {
  return {key, "label " + key, us, rel_iqr};
}

// Six rounds, three shapes:
//   s1: B is 10% faster every round (A 100,101,99,100,102,100; B 90,91,89,90,92,90);
//   s2: B within +-1.6% of A with the sign flipping (A 128; B 130,126,129,127,130,126: deltas are
//       exact binary fractions, so equal magnitudes tie exactly);
//   s3: missing from round 4's B cell.
AbInput fixture() {
  const double a1[] = {100, 101, 99, 100, 102, 100}, b1[] = {90, 91, 89, 90, 92, 90};
  const double b2[] = {130, 126, 129, 127, 130, 126};
  AbInput in;
  in.op = "rmsnorm";
  in.rounds_planned = 6;
  for (int k = 0; k < 6; ++k) {
    std::vector<ShapeMeasurement> a = {m("s1", a1[k], 0.01), m("s2", 128), m("s3", 50)};
    std::vector<ShapeMeasurement> b = {m("s1", b1[k], 0.02), m("s2", b2[k])};
    if (k != 3) b.push_back(m("s3", 50));
    in.rounds.push_back({k + 1, cell(a), cell(b)});
  }
  return in;
}

TEST(AbAggregate, PerShapeMediansRangesSignsAndSpreads) {
  const OpAb op = aggregate_ab(fixture());
  ASSERT_TRUE(op.reported) << op.no_report_reason;
  EXPECT_EQ(op.rounds, 6);
  ASSERT_EQ(op.shapes.size(), 2u);
  EXPECT_EQ(op.excluded_shapes, std::vector<std::string>{"label s3"});

  const ShapeAb& s1 = op.shapes[0];
  EXPECT_EQ(s1.key, "s1");
  EXPECT_DOUBLE_EQ(s1.a_median_us, 100);  // median of 99,100,100,100,101,102
  EXPECT_DOUBLE_EQ(s1.b_median_us, 90);
  EXPECT_NEAR(s1.change_pct, -10, 1e-12);
  EXPECT_NEAR(s1.delta_min_pct, (89.0 / 99 - 1) * 100, 1e-12);   // -10.101%
  EXPECT_NEAR(s1.delta_max_pct, (92.0 / 102 - 1) * 100, 1e-12);  // -9.804%
  EXPECT_NEAR(s1.round_spread_pct, s1.delta_max_pct - s1.delta_min_pct, 1e-12);
  EXPECT_TRUE(s1.sign_stable);
  EXPECT_NEAR(s1.a_spread_pct, (102.0 / 99 - 1) * 100, 1e-12);  // machine noise, side A
  EXPECT_NEAR(s1.b_spread_pct, (92.0 / 89 - 1) * 100, 1e-12);
  ASSERT_TRUE(s1.cell_rel_iqr_pct.has_value());
  EXPECT_DOUBLE_EQ(*s1.cell_rel_iqr_pct, 1.5);  // six cells at 1%, six at 2%
  EXPECT_DOUBLE_EQ(s1.test.p_two_sided, 2.0 / 64);
  EXPECT_EQ(s1.verdict, AbVerdict::b_faster);

  const ShapeAb& s2 = op.shapes[1];
  EXPECT_FALSE(s2.sign_stable);
  EXPECT_DOUBLE_EQ(s2.b_median_us, 128);  // median of 126,126,127,129,130,130
  EXPECT_DOUBLE_EQ(s2.change_pct, 0);
  EXPECT_DOUBLE_EQ(s2.delta_min_pct, -1.5625);
  EXPECT_DOUBLE_EQ(s2.delta_max_pct, 1.5625);
  EXPECT_DOUBLE_EQ(s2.test.w_plus, 10.5);  // |d| 0.78125 x2 -> rank 1.5; 1.5625 x4 -> rank 4.5: 4.5+1.5+4.5
  EXPECT_DOUBLE_EQ(s2.test.p_two_sided, 1.0);
  EXPECT_EQ(s2.verdict, AbVerdict::undecided);
  EXPECT_FALSE(s2.cell_rel_iqr_pct.has_value());

  EXPECT_EQ(op.unstable_shapes, 1);
  EXPECT_EQ(op.faster_shapes, 1);
  EXPECT_EQ(op.slower_shapes, 0);
  EXPECT_EQ(op.undecided_shapes, 1);
  ASSERT_EQ(op.per_round_median_delta_pct.size(), 6u);
  EXPECT_NEAR(op.per_round_median_delta_pct[0], (-10.0 + 1.5625) / 2, 1e-12);
  EXPECT_NEAR(op.median_change_pct, -5, 1e-12);
  // Side spreads: s1 A 3.03%, s1 B 3.37%, s2 A 0%, s2 B 3.17% -> median (3.03 + 3.17) / 2.
  EXPECT_NEAR(op.median_side_spread_pct, ((102.0 / 99 - 1) * 100 + (130.0 / 126 - 1) * 100) / 2, 1e-12);
  EXPECT_DOUBLE_EQ(op.min_attainable_p, 2.0 / 64);
}

TEST(AbAggregate, SlowerSideIsCalledSlower) {
  AbInput in = fixture();
  for (auto& r : in.rounds) std::swap(r.a, r.b);  // now B is the slow one for s1
  const OpAb op = aggregate_ab(in);
  ASSERT_TRUE(op.reported);
  EXPECT_EQ(op.shapes[0].verdict, AbVerdict::b_slower);
  EXPECT_GT(op.shapes[0].change_pct, 0);
}

TEST(AbAggregate, AFailedRoundMeansNoReport) {
  AbInput in = fixture();
  in.rounds[2].b.state = CellState::failed;
  in.rounds[2].b.exit_code = 1;
  in.rounds[2].b.note = "exit 1 (see cell.log)";
  const OpAb op = aggregate_ab(in);
  EXPECT_FALSE(op.reported);
  EXPECT_TRUE(op.shapes.empty());
  EXPECT_EQ(op.no_report_reason, "round 3 side B failed (rc 1): exit 1 (see cell.log); no report: a report missing "
                                 "rounds reads exactly like a complete one");
}

TEST(AbAggregate, AMissingOrTimedOutRoundMeansNoReport) {
  AbInput in = fixture();
  in.rounds.pop_back();
  EXPECT_FALSE(aggregate_ab(in).reported);
  EXPECT_EQ(aggregate_ab(in).no_report_reason.rfind("only 5 of 6 rounds ran; no report", 0), 0u);
  in = fixture();
  in.rounds[1].a.state = CellState::timed_out;
  in.rounds[1].a.exit_code = 124;
  EXPECT_EQ(aggregate_ab(in).no_report_reason.rfind("round 2 side A timed out (rc 124)", 0), 0u);
  in = fixture();
  in.rounds[4].b.state = CellState::not_run;
  EXPECT_EQ(aggregate_ab(in).no_report_reason.rfind("round 5 side B not run", 0), 0u);
}

TEST(AbAggregate, OneRoundOrNoCommonShapeIsNoReport) {
  AbInput in = fixture();
  in.rounds.resize(1);
  in.rounds_planned = 1;
  EXPECT_EQ(aggregate_ab(in).no_report_reason, "1 round(s): at least 2 are needed to say whether a verdict holds");
  in = fixture();
  for (auto& r : in.rounds) r.b = cell({m("other", 1)});
  const OpAb op = aggregate_ab(in);
  EXPECT_FALSE(op.reported);
  EXPECT_EQ(op.no_report_reason, "no shape was measured successfully on both sides in every round");
  EXPECT_EQ(op.excluded_shapes.size(), 4u);
}

TEST(AbAggregate, FewRoundsCannotDecideAnything) {
  AbInput in = fixture();
  in.rounds.resize(4);
  in.rounds_planned = 4;
  const OpAb op = aggregate_ab(in);
  ASSERT_TRUE(op.reported);
  EXPECT_DOUBLE_EQ(op.min_attainable_p, 2.0 / 16);
  EXPECT_EQ(op.shapes[0].verdict, AbVerdict::undecided);  // stable -10%, yet p = 0.125
  EXPECT_TRUE(op.shapes[0].sign_stable);
}

}  // namespace
}  // namespace caliber
