// Screening verdicts from fixture cells and fingerprints, and what each allows to be printed.
#include "screen/screen_verdict.h"

#include <gtest/gtest.h>

namespace caliber {
namespace {

CellOutcome ok_cell(std::vector<std::pair<std::string, double>> rows) {
  CellOutcome c;
  c.state = CellState::ok;
  for (const auto& [k, v] : rows) c.results.rows.push_back({k, k, v, std::nullopt});
  c.results.rows_ok = static_cast<int>(c.results.rows.size());
  return c;
}

CodeFingerprint fp(std::vector<std::pair<std::string, char>> code) {
  CodeFingerprint f;
  f.source = "fixture";
  for (const auto& [name, c] : code) f.code.push_back({name, std::string(64, c)});
  return f;
}

TEST(ScreenVerdict, DifferentCodeIsWorthRounds) {
  const auto d = screen_verdict({ok_cell({{"s", 10}}), fp({{"k", 'a'}})}, {ok_cell({{"s", 9}}), fp({{"k", 'b'}})});
  EXPECT_EQ(std::string(to_string(d.verdict)), "CODE_CHANGED");
  EXPECT_TRUE(d.print_delta);
  EXPECT_EQ(d.delta_label, "one pair (not yet a verdict)");
}

TEST(ScreenVerdict, IdenticalCodePrintsItsDeltaOnlyAsTheNoiseFloor) {
  const auto d = screen_verdict({ok_cell({{"s", 10}}), fp({{"k", 'a'}, {"j", 'c'}})},
                                {ok_cell({{"s", 9}}), fp({{"j", 'c'}, {"k", 'a'}})});
  EXPECT_EQ(std::string(to_string(d.verdict)), "NO_CODE_DIFF");
  EXPECT_TRUE(d.print_delta);
  EXPECT_EQ(d.delta_label, "noise floor of this op (identical code; not a result)");
}

TEST(ScreenVerdict, RowsWithoutDeviceCodePrintNoSpeedup) {
  const auto d = screen_verdict({ok_cell({{"s", 10}}), fp({})}, {ok_cell({{"s", 9}}), fp({{"k", 'a'}})});
  EXPECT_EQ(std::string(to_string(d.verdict)), "NO_KERNEL");
  EXPECT_FALSE(d.print_delta);
  EXPECT_NE(d.note.find("side A executed no device code"), std::string::npos) << d.note;
}

TEST(ScreenVerdict, NothingMeasuredPrintsNoSpeedupAndATimeoutIsNotAVerdict) {
  CellOutcome failed;
  failed.state = CellState::failed;
  failed.exit_code = 1;
  auto d = screen_verdict({ok_cell({{"s", 10}}), fp({{"k", 'a'}})}, {failed, std::nullopt});
  EXPECT_EQ(std::string(to_string(d.verdict)), "NO_ROWS");
  EXPECT_FALSE(d.print_delta);
  d = screen_verdict({ok_cell({}), fp({{"k", 'a'}})}, {ok_cell({}), fp({{"k", 'a'}})});  // ran, no ok row
  EXPECT_EQ(std::string(to_string(d.verdict)), "NO_ROWS");
  CellOutcome timeout;
  timeout.state = CellState::timed_out;
  timeout.exit_code = 124;
  d = screen_verdict({timeout, std::nullopt}, {ok_cell({{"s", 9}}), fp({{"k", 'a'}})});
  EXPECT_EQ(std::string(to_string(d.verdict)), "NO_ROWS");
  EXPECT_EQ(d.note.rfind("a cell hit the time limit (rc A=124, B=0): a cost problem, not a verdict", 0), 0u) << d.note;
}

TEST(ScreenVerdict, AMissingFingerprintIsUnscreened) {
  const auto d = screen_verdict({ok_cell({{"s", 10}}), std::nullopt}, {ok_cell({{"s", 9}}), fp({{"k", 'a'}})});
  EXPECT_EQ(std::string(to_string(d.verdict)), "UNSCREENED");
  EXPECT_TRUE(d.print_delta);
  EXPECT_EQ(d.delta_label, "one pair, code difference unknown (not a result)");
}

TEST(ScreenVerdict, PairDeltaOverSharedShapes) {
  const PairDelta p = pair_delta(ok_cell({{"a", 100}, {"b", 200}, {"c", 50}, {"only_a", 1}}).results,
                                 ok_cell({{"a", 90}, {"b", 220}, {"c", 50}, {"only_b", 1}}).results);
  EXPECT_EQ(p.shapes, 3);
  EXPECT_DOUBLE_EQ(p.median_pct, 0);
  EXPECT_NEAR(p.min_pct, -10, 1e-12);
  EXPECT_NEAR(p.max_pct, 10, 1e-12);
}

}  // namespace
}  // namespace caliber
