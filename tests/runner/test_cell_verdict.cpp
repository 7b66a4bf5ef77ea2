#include "runner/cell_verdict.h"

#include <gtest/gtest.h>

#include <string>

namespace caliber::runner {
namespace {

Integrity record(std::initializer_list<IntegrityCheck> checks) {
  Integrity i;
  for (const IntegrityCheck& c : checks) i.record(c.name, c.outcome, c.detail);
  return i;
}

const IntegrityCheck kBeforePassed{std::string(integrity_check::output_before_timing), CheckOutcome::passed, "ok"};

TEST(CellVerdict, EveryCheckPassedIsOk) {
  const CellVerdict v = cell_verdict(
      record({kBeforePassed, {std::string(integrity_check::output_after_timing), CheckOutcome::passed, "ok"}}),
      CorrectnessCheck{});
  EXPECT_TRUE(v.correct);
  EXPECT_EQ(v.status, BenchmarkStatus::ok);
  EXPECT_FALSE(v.reason.has_value());
  EXPECT_FALSE(v.correctness_error.has_value());
}

TEST(CellVerdict, AFailedCheckBeforeTimingIsIncorrectInTheJudgesWords) {
  const CellVerdict v = cell_verdict(
      record({{std::string(integrity_check::output_before_timing), CheckOutcome::failed, "output y: 3 non-finite"}}),
      CorrectnessCheck{});
  EXPECT_FALSE(v.correct);
  EXPECT_EQ(v.status, BenchmarkStatus::incorrect);
  EXPECT_EQ(v.correctness_error, "output y: 3 non-finite");
  EXPECT_EQ(v.reason, "output failed the correctness check: output y: 3 non-finite");
}

TEST(CellVerdict, WithoutACheckBeforeTimingTheRowsCheckSaysWhy) {
  CorrectnessCheck check;
  check.nonfinite = 2;
  check.checked_rows = 16;
  check.total_rows = 64;
  const CellVerdict v = cell_verdict(Integrity{}, check);
  EXPECT_FALSE(v.correct);
  EXPECT_EQ(v.status, BenchmarkStatus::incorrect);
  ASSERT_TRUE(v.correctness_error.has_value());
  EXPECT_FALSE(v.correctness_error->empty());
  EXPECT_EQ(v.reason, "output failed the correctness check: " + *v.correctness_error);
  // Neither a check nor a record: an empty error, still incorrect.
  const CellVerdict none = cell_verdict(Integrity{}, std::nullopt);
  EXPECT_EQ(none.correctness_error, "");
  EXPECT_EQ(none.reason, "output failed the correctness check: ");
}

TEST(CellVerdict, WrongOutputsAfterTimingOrChangedInputsAreIncorrect) {
  for (const std::string_view name : {integrity_check::output_after_timing, integrity_check::output_complete,
                                      integrity_check::inputs_unchanged}) {
    const Integrity i = record({kBeforePassed, {std::string(name), CheckOutcome::failed, "changed"}});
    const CellVerdict v = cell_verdict(i, CorrectnessCheck{});
    EXPECT_FALSE(v.correct) << name;
    EXPECT_EQ(v.status, BenchmarkStatus::incorrect) << name;
    EXPECT_EQ(v.correctness_error, std::string(name) + ": changed");
    EXPECT_EQ(v.reason, "integrity: " + std::string(name) + ": changed");
  }
}

TEST(CellVerdict, FasterThanPhysicalAndOtherFailedChecksKeepTheOutputCorrect) {
  const CellVerdict physics = cell_verdict(
      record({kBeforePassed, {std::string(integrity_check::physically_possible), CheckOutcome::failed, "2x HBM"}}),
      CorrectnessCheck{});
  EXPECT_TRUE(physics.correct);
  EXPECT_EQ(physics.status, BenchmarkStatus::faster_than_physical);
  EXPECT_EQ(physics.reason, "integrity: physically_possible: 2x HBM");
  EXPECT_FALSE(physics.correctness_error.has_value());
  const CellVerdict cache = cell_verdict(
      record({kBeforePassed, {std::string(integrity_check::cache_state), CheckOutcome::failed, "window left"}}),
      CorrectnessCheck{});
  EXPECT_TRUE(cache.correct);
  EXPECT_EQ(cache.status, BenchmarkStatus::failed);
  EXPECT_EQ(cache.reason, "integrity: cache_state: window left");
}

TEST(CellVerdict, OnlyTheFirstFailedCheckDecidesWhetherTheRowIsIncorrect) {
  Integrity i = record({kBeforePassed});
  i.record(integrity_check::cache_state, CheckOutcome::failed, "window left");
  i.record(integrity_check::output_after_timing, CheckOutcome::failed, "wrong");
  EXPECT_FALSE(integrity_failure_is_incorrect(i));
  EXPECT_EQ(cell_verdict(i, CorrectnessCheck{}).status, BenchmarkStatus::failed);
  EXPECT_TRUE(integrity_failure_is_incorrect(record({{"output_complete", CheckOutcome::failed, "NaN"}})));
  EXPECT_FALSE(integrity_failure_is_incorrect(record({{"output_complete", CheckOutcome::not_run, "off"}})));
}

}  // namespace
}  // namespace caliber::runner
