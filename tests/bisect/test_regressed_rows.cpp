// Which rows caliber bisect follows (the preflight's regressed rows) and how a commit is
// classified on them, on literal rows through the real gate.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "bisect/regressed_rows.h"

namespace caliber::bisect {
namespace {

using compare::CompareReport;
using compare::CompareRow;

// A row as google-benchmark JSON gives it: no architecture, 8 repetitions around `us`.
CompareRow row(const std::string& name, double us, bool samples = true) {
  CompareRow r;
  r.name = name;
  r.contract["instrument"] = "wallclock";
  r.contract["schedule"] = "pipelined";
  r.contract["cache"] = "warm";
  r.contract["statistic"] = "median";
  r.value_us = us;
  if (samples) {
    for (double jitter : {-0.015, -0.005, 0.005, 0.015, -0.01, 0.0, 0.01, 0.002}) r.samples_us.push_back(us * (1 + jitter));
  }
  return r;
}

CompareReport gate(const std::vector<CompareRow>& base, const std::vector<CompareRow>& cur) {
  return compare::evaluate_gate(base, cur, compare::Thresholds{}, compare::GateOptions{}, "good", "commit");
}

TEST(BisectRegressedRows, ASlowdownBeyondTheReportOnlyThresholdConfirmedByTheRankTestRegressed) {
  const CompareReport r = gate({row("BM_a", 100), row("BM_b", 50)}, {row("BM_a", 130), row("BM_b", 50)});
  EXPECT_TRUE(row_regressed(r.rows[0]));
  EXPECT_FALSE(row_regressed(r.rows[1]));
  EXPECT_EQ(regressed_keys(r), (std::vector<std::string>{row("BM_a", 0).base_key()}));
}

TEST(BisectRegressedRows, ASlowdownWithinTheThresholdOrAFasterRowDidNotRegress) {
  const CompareReport r = gate({row("BM_a", 100), row("BM_b", 100)}, {row("BM_a", 105), row("BM_b", 70)});
  EXPECT_TRUE(regressed_keys(r).empty());
  EXPECT_EQ(verdict_counts(r), "2 rows: 1 FASTER, 1 SAME");
}

TEST(BisectRegressedRows, WithoutSamplesTheThresholdAloneDecides) {
  const CompareReport r = gate({row("BM_a", 100, false)}, {row("BM_a", 130, false)});
  EXPECT_TRUE(row_regressed(r.rows[0]));
}

TEST(BisectRegressedRows, ASlowdownTheRankTestCannotConfirmDidNotRegress) {
  CompareRow cur = row("BM_a", 130);
  cur.samples_us = {60, 70, 80, 90, 130, 200, 250, 300};  // overlaps the baseline's
  const CompareReport r = gate({row("BM_a", 100)}, {cur});
  ASSERT_TRUE(r.rows[0].verdict.has_value());
  EXPECT_EQ(r.rows[0].verdict->verdict, compare::Verdict::unknown);
  EXPECT_FALSE(row_regressed(r.rows[0]));
  EXPECT_EQ(classify_commit(r).verdict, CommitVerdict::good);
}

TEST(BisectRegressedRows, RowsAmongKeepsTheRegressedRowsOnly) {
  const std::vector<CompareRow> rows = {row("BM_a", 1), row("BM_b", 2), row("BM_c", 3)};
  const std::vector<CompareRow> kept = rows_among(rows, {row("BM_c", 0).base_key(), row("BM_a", 0).base_key()});
  ASSERT_EQ(kept.size(), 2u);
  EXPECT_EQ(kept[0].name, "BM_a");
  EXPECT_EQ(kept[1].name, "BM_c");
}

TEST(BisectRegressedRows, ACommitIsBadWhenOneRegressedRowIsSlowerAndGoodOtherwise) {
  const CompareReport bad = gate({row("BM_a", 100), row("BM_b", 100)}, {row("BM_a", 100), row("BM_b", 125)});
  const CommitClassification c = classify_commit(bad);
  EXPECT_EQ(c.verdict, CommitVerdict::bad);
  EXPECT_EQ(c.detail.rfind("BM_a [wallclock/pipelined/warm] +0.0% SAME; ", 0), 0u) << c.detail;
  EXPECT_NE(c.detail.find("; BM_b [wallclock/pipelined/warm] +25.0% SLOWER"), std::string::npos) << c.detail;

  const CompareReport good = gate({row("BM_a", 100)}, {row("BM_a", 101)});
  EXPECT_EQ(classify_commit(good).verdict, CommitVerdict::good);
  EXPECT_NE(classify_commit(good).detail.find("+1.0% SAME"), std::string::npos);
}

TEST(BisectRegressedRows, ACommitMissingARegressedRowIsSkippedUnlessAnotherRowRegressed) {
  const CompareReport missing = gate({row("BM_a", 100)}, {});
  const CommitClassification c = classify_commit(missing);
  EXPECT_EQ(c.verdict, CommitVerdict::skip);
  EXPECT_NE(c.detail.find("missing from current"), std::string::npos) << c.detail;

  const CompareReport both = gate({row("BM_a", 100), row("BM_b", 100)}, {row("BM_b", 140)});
  EXPECT_EQ(classify_commit(both).verdict, CommitVerdict::bad);
}

TEST(BisectRegressedRows, ARegressedRowWhoseContractChangedIsSkipped) {
  CompareRow cur = row("BM_a", 200);
  cur.contract["cache"] = "cold";
  const CompareReport r = gate(rows_among({row("BM_a", 100)}, {row("BM_a", 0).base_key()}),
                               rows_among({cur}, {row("BM_a", 0).base_key()}));
  ASSERT_EQ(r.rows.size(), 1u);
  EXPECT_TRUE(r.rows[0].contract_refused);
  EXPECT_EQ(classify_commit(r).verdict, CommitVerdict::skip);
}

}  // namespace
}  // namespace caliber::bisect
