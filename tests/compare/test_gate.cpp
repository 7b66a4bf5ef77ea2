// Every rule of the gate on literal rows: fails closed, fails open, the threshold rule, the
// statistical verdict, report-only rows, refusals, and the labels users see.
#include <gtest/gtest.h>

#include <sstream>

#include <fmt/format.h>

#include "caliber/contract.h"
#include "compare/gate.h"
#include "compare/report_renderers.h"

namespace caliber::compare {
namespace {

CompareRow row(const std::string& name, std::optional<double> us, const std::string& arch = "sm_90") {
  CompareRow r;
  r.name = name;
  r.params = {{"size_bytes", 1024}};
  r.arch = arch;
  Contract c = default_contract(BackendKind::cuda);
  c.iterations.mode = IterationRule::Mode::fixed;
  c.iterations.count = 50;
  r.contract = contract_fields(c);
  r.value_us = us;
  r.integrity = "verified";  // what caliber writes for a measurement it verified (docs/integrity.md)
  return r;
}

GateRule rule(const std::string& name, double pct, double us, const std::string& arch = "sm_90") {
  GateRule r;
  r.arch = arch;
  r.name = name;
  r.threshold = {pct, us};
  r.calibration = "test";
  return r;
}

Thresholds thresholds(std::vector<GateRule> rules, const std::string& arch = "sm_90") {
  Thresholds t;
  t.file = "t.json";
  for (std::size_t i = 0; i < rules.size(); ++i) rules[i].index = i;
  t.architectures[arch].rules = std::move(rules);
  return t;
}

CompareReport gate(const std::vector<CompareRow>& base, const std::vector<CompareRow>& cur,
                   const Thresholds& t, bool strict = false) {
  return evaluate_gate(base, cur, t, GateOptions{strict}, "base.json", "cur.json");
}

const RowComparison& only(const CompareReport& r) {
  EXPECT_EQ(r.rows.size(), 1u);
  return r.rows.front();
}

// --- the threshold rule -----------------------------------------------------------------------

TEST(Gate, ARegressionExceedsBothTheRelativeAndTheAbsoluteThreshold) {
  const auto r = gate({row("copy", 100)}, {row("copy", 125)}, thresholds({rule("copy", 20, 10)}));
  EXPECT_EQ(only(r).outcome, Outcome::fail);
  EXPECT_EQ(only(r).gate_label(),
            "[GATE FAIL: slower +25.0%, +25.00 us (limits 20% and 10 us); threshold only: no raw "
            "samples in either file]");
  EXPECT_EQ(r.result, GateResult::fail);
  EXPECT_EQ(r.summary.failed, 1u);
}

TEST(Gate, ASmallKernelDriftingFortyPercentByTwoMicrosecondsPasses) {
  const auto r = gate({row("tiny", 5)}, {row("tiny", 7)}, thresholds({rule("tiny", 20, 10)}));
  EXPECT_EQ(only(r).outcome, Outcome::pass);
  EXPECT_EQ(only(r).gate_label(), "[GATE PASS: same +40.0%, +2.000 us; within threshold]");
  EXPECT_EQ(r.result, GateResult::pass);
}

TEST(Gate, FasterPasses) {
  const auto r = gate({row("copy", 200)}, {row("copy", 100)}, thresholds({rule("copy", 20, 10)}));
  EXPECT_EQ(only(r).outcome, Outcome::pass);
  EXPECT_EQ(only(r).gate_label(),
            "[GATE PASS: faster -50.0%, -100.0 us; threshold only: no raw samples in either file]");
}

// --- fails closed -----------------------------------------------------------------------------

TEST(Gate, FailsClosedWhenCurrentHasNoRawLatency) {
  const auto r = gate({row("copy", 100)}, {row("copy", std::nullopt)}, thresholds({rule("copy", 20, 10)}));
  EXPECT_EQ(only(r).gate_label(), "[GATE FAIL: current has no raw us]");
  EXPECT_EQ(r.result, GateResult::fail);
}

TEST(Gate, FailsClosedWhenCurrentWasNotMeasured) {
  CompareRow cur = row("copy", std::nullopt);
  cur.status = RowStatus::unsupported;
  cur.status_detail = "shape not supported";
  const auto r = gate({row("copy", 100)}, {cur}, thresholds({rule("copy", 20, 10)}));
  EXPECT_EQ(only(r).gate_label(),
            "[GATE FAIL: current has no raw us (status unsupported: shape not supported)]");
}

TEST(Gate, FailsClosedWhenAnAllowlistedRowIsMissingFromCurrent) {
  const auto r = gate({row("copy", 100), row("scale", 100)}, {row("copy", 100)},
                      thresholds({rule("*", 20, 10)}));
  ASSERT_EQ(r.rows.size(), 2u);
  EXPECT_EQ(r.rows[1].gate_label(), "[GATE FAIL: missing from current]");
  EXPECT_EQ(r.result, GateResult::fail);
}

TEST(Gate, FailsClosedWhenTheCurrentRowFailedOrIsIncorrect) {
  for (RowStatus s : {RowStatus::failed, RowStatus::oom, RowStatus::incorrect}) {
    CompareRow cur = row("copy", 90);  // even a number from a broken row does not pass
    cur.status = s;
    cur.status_detail = "max abs error 0.5";
    // A baseline without raw latency does not make the broken current row pass either.
    const auto r = gate({row("copy", std::nullopt)}, {cur}, thresholds({rule("copy", 20, 10)}));
    EXPECT_EQ(only(r).gate_label(),
              fmt::format("[GATE FAIL: current row {}: max abs error 0.5]", to_string(s)));
    EXPECT_EQ(r.result, GateResult::fail);
  }
}

TEST(Gate, FailsClosedAndRefusesWhenTheContractDiffers) {
  // Each contract field the gate checks, one at a time.
  struct Case {
    const char* field;
    const char* value;
  };
  const Case cases[] = {
      {"statistic", "mean"}, {"instrument", "cupti"},   {"schedule", "graph"},
      {"cache", "warm"},     {"warmup", "3"},           {"iterations", "fixed:20"},
      {"quantity", "host_dispatch"}, {"backend", "host"}, {"throttle_policy", "discard"},
  };
  for (const Case& c : cases) {
    CompareRow base = row("copy", 100);
    CompareRow cur = row("copy", 100);
    const std::string before = base.contract[c.field];
    cur.contract[c.field] = c.value;
    const auto r = gate({base}, {cur}, thresholds({rule("copy", 20, 10)}));
    EXPECT_EQ(only(r).gate_label(),
              fmt::format("[GATE FAIL: contract differs: {} {}→{}]", c.field, before, c.value));
    EXPECT_TRUE(only(r).contract_refused);
    EXPECT_FALSE(only(r).change.has_value()) << "latencies of different contracts are never compared";
    EXPECT_EQ(r.result, GateResult::refused);
  }
}

TEST(Gate, AContractNeverRecordedOnTheBaselineIsADifference) {
  CompareRow base = row("copy", 100);
  base.contract = ContractFields{};
  const auto r = gate({base}, {row("copy", 100)}, thresholds({rule("copy", 20, 10)}));
  EXPECT_EQ(only(r).finding.rfind("contract differs: backend (unrecorded)→cuda, ", 0), 0u) << only(r).finding;
  EXPECT_EQ(r.result, GateResult::refused);
}

TEST(Gate, ARowWhoseScheduleChangedIsPairedAndRefused) {
  CompareRow cur = row("copy", 90);
  cur.contract["schedule"] = "graph";
  cur.contract["graph_calls"] = "20";
  const auto r = gate({row("copy", 100)}, {cur}, thresholds({rule("copy", 20, 10)}));
  EXPECT_EQ(only(r).gate_label(),
            "[GATE FAIL: contract differs: schedule per_iter→graph, graph_calls (unrecorded)→20]");
}

// --- fails open -------------------------------------------------------------------------------

TEST(Gate, FailsOpenWhenTheBaselinePredatesRawLatency) {
  // A baseline row from before raw latency was kept: no number and no contract.
  CompareRow base = row("copy", std::nullopt);
  base.contract = ContractFields{};
  const auto r = gate({base}, {row("copy", 300)}, thresholds({rule("copy", 20, 10)}));
  EXPECT_EQ(only(r).gate_label(), "[GATE SKIP: baseline has no raw us]");
  EXPECT_EQ(only(r).outcome, Outcome::skip);
  EXPECT_EQ(r.result, GateResult::pass);
  EXPECT_EQ(r.summary.skipped, 1u);
}

TEST(Gate, FailsOpenWhenTheBaselineRowWasNotMeasured) {
  CompareRow base = row("copy", std::nullopt);
  base.status = RowStatus::not_configured;
  const auto r = gate({base}, {row("copy", 300)}, thresholds({rule("copy", 20, 10)}));
  EXPECT_EQ(only(r).gate_label(), "[GATE SKIP: baseline has no raw us (status not_configured)]");
}

TEST(Gate, FailsOpenWhenTheArchitecturesDiffer) {
  Thresholds t = thresholds({rule("copy", 20, 10)});
  t.architectures["sm_100"].rules = {rule("copy", 20, 10, "sm_100")};
  const auto r = gate({row("copy", 100, "sm_90")}, {row("copy", 300, "sm_100")}, t);
  EXPECT_EQ(only(r).gate_label(), "[GATE SKIP: arch differs: sm_90→sm_100]");
  EXPECT_EQ(r.result, GateResult::pass);
}

TEST(Gate, ANewRowWithoutBaselineIsSkipped) {
  const auto r = gate({}, {row("copy", 100)}, thresholds({rule("copy", 20, 10)}));
  EXPECT_EQ(only(r).gate_label(), "[GATE SKIP: new row: no baseline]");
}

// --- allowlist --------------------------------------------------------------------------------

TEST(Gate, RowsOutsideTheAllowlistAreReportOnly) {
  const auto r = gate({row("copy", 100), row("scale", 100)}, {row("copy", 100), row("scale", 300)},
                      thresholds({rule("copy", 20, 10)}));
  ASSERT_EQ(r.rows.size(), 2u);
  EXPECT_EQ(r.rows[1].outcome, Outcome::report);
  EXPECT_EQ(r.rows[1].finding_outcome, Outcome::fail);
  EXPECT_EQ(r.rows[1].gate_label(),
            "[REPORT: slower +200.0%, +200.0 us (limits 10% and 0 us); threshold only: no raw "
            "samples in either file]");
  EXPECT_EQ(r.result, GateResult::pass);
  EXPECT_EQ(r.summary.report_only, 1u);
  EXPECT_EQ(r.summary.gated, 1u);
}

TEST(Gate, AReportOnlyContractDifferenceDoesNotRefuse) {
  CompareRow cur = row("scale", 100);
  cur.contract["cache"] = "warm";
  const auto r = gate({row("scale", 100)}, {cur}, thresholds({rule("copy", 20, 10)}));
  EXPECT_EQ(only(r).gate_label(), "[REPORT: contract differs: cache cold→warm]");
  EXPECT_EQ(r.result, GateResult::pass);
  EXPECT_EQ(r.summary.contract_refused, 1u);
}

TEST(Gate, WithoutAThresholdsFileAnyContractDifferenceRefuses) {
  CompareRow cur = row("scale", 100);
  cur.contract["cache"] = "warm";
  const auto r = gate({row("scale", 100)}, {cur}, Thresholds{});
  EXPECT_EQ(only(r).outcome, Outcome::report);
  EXPECT_EQ(r.result, GateResult::refused);
  EXPECT_TRUE(r.notes.empty());
}

TEST(Gate, AnArchitectureDeclaredWithoutRulesIsReportedNeverGated) {
  Thresholds t;
  t.file = "t.json";
  t.architectures["gfx1201"] = {};
  const auto r = gate({row("copy", 100, "gfx1201")}, {row("copy", 300, "gfx1201")}, t);
  EXPECT_EQ(only(r).outcome, Outcome::report);
  EXPECT_EQ(r.result, GateResult::pass);
  ASSERT_EQ(r.notes.size(), 1u);
  EXPECT_EQ(r.notes[0], "architecture gfx1201 is declared with no rules: reported, never gated");
}

TEST(Gate, NotesRulesThatMatchNothingAndUndeclaredArchitectures) {
  const auto r = gate({row("copy", 100, "x86_64")}, {row("copy", 100, "x86_64")},
                      thresholds({rule("rmsnorm", 20, 10)}));
  ASSERT_EQ(r.notes.size(), 2u);
  EXPECT_EQ(r.notes[0], "sm_90 rule 0 (rmsnorm) matched no row in either file");
  EXPECT_EQ(r.notes[1], "architecture x86_64 is not declared in t.json: its rows are report-only");
}

TEST(Gate, AGateThatGatedNothingFailsUnderStrictAndSaysSoOtherwise) {
  // every row 10x slower, but the thresholds declare another architecture only
  const Thresholds other = thresholds({rule("copy", 20, 10, "sm_80")}, "sm_80");
  const auto lenient = gate({row("copy", 100)}, {row("copy", 1000)}, other);
  EXPECT_EQ(lenient.result, GateResult::pass);
  EXPECT_EQ(lenient.summary.gated, 0u);
  EXPECT_EQ(gate_summary_line(lenient),
            "gate PASS: 0 of 0 gated rows failed (0 passed, 0 skipped, 0 unknown); 1 report-only rows; nothing was "
            "gated: no row matched a rule of an architecture t.json declares");
  const auto strict = gate({row("copy", 100)}, {row("copy", 1000)}, other, true);
  EXPECT_EQ(strict.result, GateResult::fail);
  EXPECT_NE(gate_summary_line(strict).find("(--strict: a gate that gated nothing fails)"), std::string::npos);
  // the only rule matches no row
  const auto unmatched = gate({row("copy", 100)}, {row("copy", 1000)}, thresholds({rule("gemm", 20, 10)}), true);
  EXPECT_EQ(unmatched.result, GateResult::fail);
  // one gated row that passes is a pass under --strict
  EXPECT_EQ(gate({row("copy", 100)}, {row("copy", 100)}, thresholds({rule("copy", 20, 10)}), true).result,
            GateResult::pass);
}

TEST(Gate, TheFirstMatchingRuleDecides) {
  GateRule strict = rule("copy", 5, 1);
  strict.params = {{"size_bytes", 1024}};
  const auto r = gate({row("copy", 100)}, {row("copy", 110)}, thresholds({strict, rule("*", 50, 50)}));
  ASSERT_TRUE(only(r).rule.has_value());
  EXPECT_EQ(only(r).rule->index, 0u);
  EXPECT_EQ(only(r).outcome, Outcome::fail);
}

// --- statistical verdicts ---------------------------------------------------------------------

TEST(Gate, AGatedUnknownIsReportedAndFailsOnlyWithStrict) {
  CompareRow base = row("copy", 120), cur = row("copy", 135);
  base.samples_us = {100, 110, 120, 130, 140};
  cur.samples_us = {105, 125, 135, 150, 160};
  const Thresholds t = thresholds({rule("copy", 10, 5)});
  const auto lenient = gate({base}, {cur}, t);
  EXPECT_EQ(only(lenient).outcome, Outcome::unknown);
  // Enumerating the C(10, 5) = 252 rank assignments: W = 18, P(W >= 18) = 39/252, so the
  // two-sided p = 78/252 = 0.3095.
  EXPECT_EQ(only(lenient).gate_label(),
            "[GATE UNKNOWN: unknown +12.5%, +15.00 us (limits 10% and 5 us); samples overlap: "
            "p=0.3095 >= 0.05 (exact, 5 vs 5 samples)]");
  EXPECT_EQ(lenient.result, GateResult::pass);
  EXPECT_EQ(lenient.summary.unknown, 1u);
  const auto strict = gate({base}, {cur}, t, /*strict=*/true);
  EXPECT_EQ(only(strict).outcome, Outcome::fail);
  EXPECT_EQ(only(strict).gate_label().rfind("[GATE FAIL: unknown (--strict) +12.5%", 0), 0u);
  EXPECT_EQ(strict.result, GateResult::fail);
}

TEST(Gate, AGatedSlowerWithSamplesFails) {
  CompareRow base = row("copy", 102), cur = row("copy", 152);
  base.samples_us = {100, 101, 102, 103, 104};
  cur.samples_us = {150, 151, 152, 153, 154};
  const auto r = gate({base}, {cur}, thresholds({rule("copy", 20, 10)}));
  EXPECT_EQ(only(r).gate_label(),
            "[GATE FAIL: slower +49.0%, +50.00 us (limits 20% and 10 us); p=0.0079 < 0.05 (exact, "
            "5 vs 5 samples)]");
}

TEST(Gate, SummaryCountsEveryOutcome) {
  CompareRow missing = row("scale", 100);
  const auto r = gate({row("copy", 100), missing, row("tiny", std::nullopt)},
                      {row("copy", 101), row("tiny", 5), row("extra", 1)},
                      thresholds({rule("*", 20, 10)}));
  EXPECT_EQ(r.summary.rows, 4u);
  EXPECT_EQ(r.summary.gated, 4u);
  EXPECT_EQ(r.summary.passed, 1u);   // copy
  EXPECT_EQ(r.summary.failed, 1u);   // scale missing
  EXPECT_EQ(r.summary.skipped, 2u);  // tiny (no baseline raw us), extra (new)
  EXPECT_EQ(r.result, GateResult::fail);
}

TEST(Gate, AnUnverifiedCurrentRowNeverGatesAsAPass) {
  CompareRow cur = row("copy", 100);
  cur.integrity = "unverified";
  cur.integrity_detail = "no buffers declared: the outputs were not verified";
  auto r = gate({row("copy", 100)}, {cur}, thresholds({rule("copy", 20, 10)}));
  EXPECT_EQ(only(r).outcome, Outcome::unknown);
  EXPECT_EQ(only(r).gate_label(),
            "[GATE UNKNOWN: unverified (its outputs were not verified: no buffers declared: the outputs were not "
            "verified); same +0.0%, +0.000 us; within threshold]");
  EXPECT_EQ(r.result, GateResult::pass);  // reported, not passed; --strict fails it:
  r = gate({row("copy", 100)}, {cur}, thresholds({rule("copy", 20, 10)}), /*strict=*/true);
  EXPECT_EQ(only(r).outcome, Outcome::fail);
  EXPECT_EQ(r.result, GateResult::fail);
  CompareRow foreign = row("copy", 100);
  foreign.integrity.clear();  // another tool's file records no integrity at all
  EXPECT_EQ(only(gate({row("copy", 100)}, {foreign}, thresholds({rule("copy", 20, 10)}))).outcome, Outcome::unknown);
}

TEST(Gate, AFailedIntegrityCheckFailsTheCurrentRowAndSkipsABaseline) {
  CompareRow bad = row("copy", 10);  // 10x faster, and not a result
  bad.integrity = "failed";
  bad.integrity_detail = "output_after_timing: correct before timing, wrong after the timed calls";
  const auto r = gate({row("copy", 100)}, {bad}, thresholds({rule("copy", 20, 10)}));
  EXPECT_EQ(only(r).outcome, Outcome::fail);
  EXPECT_EQ(only(r).gate_label(),
            "[GATE FAIL: current row failed an integrity check: output_after_timing: correct before timing, wrong "
            "after the timed calls]");
  const auto b = gate({bad}, {row("copy", 100)}, thresholds({rule("copy", 20, 10)}));
  EXPECT_EQ(only(b).outcome, Outcome::skip);
  CompareRow partial = row("copy", 100);
  partial.integrity = "partial";
  const auto p = gate({row("copy", 100)}, {partial}, thresholds({rule("copy", 20, 10)}));
  EXPECT_EQ(only(p).outcome, Outcome::pass);
  EXPECT_NE(only(p).gate_label().find("integrity partial"), std::string::npos) << only(p).gate_label();
}

}  // namespace
}  // namespace caliber::compare

// --- unstable rows ------------------------------------------------------------------------------

namespace caliber::compare {
namespace {

// A move on a row the reports call unstable is labelled so in every renderer; the gate's outcome
// is what it would be on a stable row.
TEST(Gate, AMoveOnAnUnstableRowIsLabelledUnstableAndGatedAsBefore) {
  CompareRow noisy_base = row("copy", 200);
  noisy_base.unstable = "p90/p10 = 1.56 > 1.2";
  const auto faster = gate({noisy_base}, {row("copy", 100)}, thresholds({rule("copy", 20, 10)}));
  EXPECT_EQ(only(faster).outcome, Outcome::pass);
  EXPECT_EQ(only(faster).verdict_label(), "FASTER (unstable)");
  EXPECT_EQ(only(faster).gate_label(),
            "[GATE PASS: faster -50.0%, -100.0 us (unstable: baseline p90/p10 = 1.56 > 1.2); threshold only: no raw "
            "samples in either file]");
  CompareRow noisy_cur = row("copy", 200);
  noisy_cur.unstable = "p90/p10 = 1.30 > 1.2";
  const auto slower = gate({row("copy", 100)}, {noisy_cur}, thresholds({rule("copy", 20, 10)}));
  EXPECT_EQ(only(slower).outcome, Outcome::fail);
  EXPECT_EQ(slower.result, GateResult::fail);
  EXPECT_EQ(only(slower).verdict_label(), "SLOWER (unstable)");

  std::ostringstream md, json, table;
  write_compare_markdown(md, slower);
  write_compare_json(json, slower);
  write_compare_table(table, slower);
  EXPECT_NE(md.str().find("| SLOWER (unstable) |"), std::string::npos) << md.str();
  EXPECT_NE(json.str().find("\"verdict_label\": \"SLOWER (unstable)\""), std::string::npos) << json.str();
  EXPECT_NE(json.str().find("\"unstable\": \"p90/p10 = 1.30 > 1.2\""), std::string::npos) << json.str();
  EXPECT_NE(table.str().find("SLOWER (unstable)"), std::string::npos) << table.str();
}

TEST(Gate, AStableRowKeepsItsPlainVerdict) {
  CompareRow noisy_same = row("copy", 101);
  noisy_same.unstable = "p90/p10 = 1.56 > 1.2";
  const auto same = gate({row("copy", 100)}, {noisy_same}, thresholds({rule("copy", 20, 10)}));
  EXPECT_EQ(only(same).verdict_label(), "SAME");  // no move to doubt
  const auto stable = gate({row("copy", 200)}, {row("copy", 100)}, thresholds({rule("copy", 20, 10)}));
  EXPECT_EQ(only(stable).verdict_label(), "FASTER");
  EXPECT_TRUE(only(stable).unstable.empty());
}

}  // namespace
}  // namespace caliber::compare
