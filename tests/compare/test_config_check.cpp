// Record-vs-record refused per pair (compare/config_check.h, docs/gate.md "The config check"), on
// literal rows through the gate: two configs each chosen afresh, or a config on one side only, get
// no speed verdict and refuse the comparison; the same key, or a replay of the other side's
// choice, is compared as usual.
#include <gtest/gtest.h>

#include <sstream>

#include "caliber/contract.h"
#include "compare/config_check.h"
#include "compare/gate.h"
#include "compare/importers.h"
#include "compare/report_renderers.h"
#include "support/report_rows.h"
#include "support/run_directory.h"

namespace caliber::compare {
namespace {

// A gemm cell of cuBLASLt, measured in `run_id`, with the config it ran (none: no config).
CompareRow cell(double us, const std::string& run_id, std::optional<ProviderConfig> config) {
  CompareRow r;
  r.name = "gemm";
  r.params = {{"provider", "cublaslt"}, {"m", 4096}, {"n", 4096}, {"k", 4096}};
  r.arch = "sm_90";
  r.contract = contract_fields(default_contract(BackendKind::cuda));
  r.value_us = us;
  r.integrity = "verified";
  r.run_id = run_id;
  r.config = std::move(config);
  return r;
}

ProviderConfig recorded(const std::string& key, const std::string& description = "") {
  return {ConfigPinning::recorded, key, description, ""};
}
ProviderConfig replayed(const std::string& key, const std::string& source) {
  return {ConfigPinning::replayed, key, "", source};
}

CompareReport compare(const CompareRow& base, const CompareRow& cur, const Thresholds& t = {}) {
  return evaluate_gate({base}, {cur}, t, GateOptions{}, "runs/base", "runs/cur");
}

const RowComparison& only(const CompareReport& r) {
  EXPECT_EQ(r.rows.size(), 1u);
  return r.rows.front();
}

TEST(ConfigCheck, TwoConfigsEachRecordedAreRefusedWithoutAVerdict) {
  const auto r = compare(cell(100, "run-a", recorded("algo 66")), cell(80, "run-b", recorded("algo 12")));
  const RowComparison& row = only(r);
  EXPECT_EQ(row.finding,
            "record-vs-record: baseline ran config 'algo 66' (recorded), current ran 'algo 12' (recorded); replay the "
            "baseline's configs with caliber run --replay-configs runs/base");
  EXPECT_EQ(row.gate_label(), "[REPORT: " + row.finding + "]");  // no thresholds file: report-only
  EXPECT_EQ(row.finding_outcome, Outcome::fail);
  EXPECT_TRUE(row.config_refused);
  EXPECT_FALSE(row.contract_refused);
  EXPECT_FALSE(row.change.has_value()) << "two choices are not a code change: no latency is compared";
  EXPECT_FALSE(row.verdict.has_value());
  EXPECT_EQ(r.result, GateResult::refused);
  EXPECT_EQ(r.refusal, "config mismatch");
  EXPECT_EQ(r.summary.config_refused, 1u);
  EXPECT_EQ(r.summary.contract_refused, 0u);
  EXPECT_EQ(gate_summary_line(r),
            "gate REFUSED (config mismatch): 0 of 0 gated rows failed (0 passed, 0 skipped, 0 unknown); 1 "
            "report-only rows; 1 rows not compared: config differs (record-vs-record or one-sided)");
}

TEST(ConfigCheck, AReplayFromAnotherRunOrAConfigChosenAfreshIsStillRecordVsRecord) {
  // Replayed, but from a third run: not the baseline's choice.
  auto r = compare(cell(100, "run-a", recorded("algo 66")), cell(80, "run-b", replayed("algo 12", "run-z")));
  EXPECT_EQ(only(r).finding,
            "record-vs-record: baseline ran config 'algo 66' (recorded), current ran 'algo 12' (replayed from run "
            "run-z); replay the baseline's configs with caliber run --replay-configs runs/base");
  EXPECT_EQ(r.result, GateResult::refused);
  // A replay was asked for, but its source had nothing for the cell: chosen afresh.
  r = compare(cell(100, "run-a", recorded("algo 66")),
              cell(80, "run-b", ProviderConfig{ConfigPinning::not_in_replay_source, "algo 12", "", ""}));
  EXPECT_EQ(only(r).finding,
            "record-vs-record: baseline ran config 'algo 66' (recorded), current ran 'algo 12' "
            "(not_in_replay_source); replay the baseline's configs with caliber run --replay-configs runs/base");
  EXPECT_TRUE(only(r).config_refused);
}

TEST(ConfigCheck, TheSameKeyIsCompared) {
  const auto r = compare(cell(100, "run-a", recorded("algo 66")), cell(150, "run-b", recorded("algo 66")));
  EXPECT_FALSE(only(r).config_refused);
  ASSERT_TRUE(only(r).change.has_value());
  EXPECT_EQ(only(r).finding, "slower +50.0%, +50.00 us (limits 10% and 0 us); threshold only: no raw samples in either file");
  EXPECT_EQ(only(r).finding_outcome, Outcome::fail);
  EXPECT_EQ(r.result, GateResult::pass);  // report-only: nothing is gated
  EXPECT_EQ(r.refusal, "");
  EXPECT_EQ(r.summary.config_refused, 0u);
}

TEST(ConfigCheck, AReplayOfTheOtherSidesChoiceIsCompared) {
  // The current run replayed the baseline's recorded config (its source is the baseline's run);
  // the key text differs, yet the choice is the baseline's.
  auto r = compare(cell(100, "run-a", recorded("algo 66")), cell(101, "run-b", replayed("algo 66 v2", "run-a")));
  EXPECT_FALSE(only(r).config_refused);
  EXPECT_TRUE(only(r).change.has_value());
  EXPECT_EQ(r.result, GateResult::pass);
  // The baseline was itself a replay of run-0, and the current run replayed the same source.
  r = compare(cell(100, "run-a", replayed("algo 66", "run-0")), cell(101, "run-b", replayed("algo 66'", "run-0")));
  EXPECT_FALSE(only(r).config_refused);
  EXPECT_TRUE(only(r).change.has_value());
  // The other way round: the baseline replayed the current run's choice.
  r = compare(cell(100, "run-a", replayed("algo 12'", "run-b")), cell(101, "run-b", recorded("algo 12")));
  EXPECT_FALSE(only(r).config_refused);
  // No config on either side: nothing to check.
  r = compare(cell(100, "run-a", std::nullopt), cell(101, "run-b", std::nullopt));
  EXPECT_FALSE(only(r).config_refused);
  EXPECT_EQ(r.result, GateResult::pass);
}

TEST(ConfigCheck, AConfigOnOneSideOnlyIsRefused) {
  auto r = compare(cell(100, "run-a", recorded("algo 66")), cell(100, "run-b", std::nullopt));
  EXPECT_EQ(only(r).finding, "config on one side only: baseline ran config 'algo 66' (recorded), current ran none");
  EXPECT_TRUE(only(r).config_refused);
  EXPECT_FALSE(only(r).change.has_value());
  EXPECT_EQ(r.result, GateResult::refused);
  r = compare(cell(100, "run-a", std::nullopt), cell(100, "run-b", replayed("panel=128", "run-0")));
  EXPECT_EQ(only(r).finding,
            "config on one side only: baseline ran none, current ran config 'panel=128' (replayed from run run-0)");
  EXPECT_EQ(r.result, GateResult::refused);
}

TEST(ConfigCheck, GatedRowsFailAndRefuseAndReportOnlyRowsAreCountedOnly) {
  Thresholds t;
  t.file = "t.json";
  GateRule rule;
  rule.arch = "sm_90";
  rule.name = "gemm";
  rule.threshold = {10, 1};
  rule.calibration = "test";
  t.architectures["sm_90"].rules = {rule};
  const CompareRow base = cell(100, "run-a", recorded("algo 66"));
  const CompareRow cur = cell(100, "run-b", recorded("algo 12"));
  auto r = compare(base, cur, t);
  EXPECT_EQ(only(r).outcome, Outcome::fail);
  EXPECT_EQ(only(r).gate_label(),
            "[GATE FAIL: record-vs-record: baseline ran config 'algo 66' (recorded), current ran 'algo 12' "
            "(recorded); replay the baseline's configs with caliber run --replay-configs runs/base]");
  EXPECT_EQ(r.result, GateResult::refused);
  const std::string junit = [&] {
    std::ostringstream out;
    write_compare_junit(out, r);
    return out.str();
  }();
  EXPECT_NE(junit.find("<failure type=\"config_mismatch\""), std::string::npos) << junit;
  // A rule of another op: the row is report-only, counted, and does not refuse the comparison.
  t.architectures["sm_90"].rules[0].name = "copy";
  r = compare(base, cur, t);
  EXPECT_EQ(only(r).outcome, Outcome::report);
  EXPECT_EQ(r.summary.config_refused, 1u);
  EXPECT_EQ(r.result, GateResult::pass);
}

TEST(ConfigCheck, ADifferentContractIsReportedFirst) {
  CompareRow cur = cell(100, "run-b", recorded("algo 12"));
  cur.contract["cache"] = "warm";
  const auto r = compare(cell(100, "run-a", recorded("algo 66")), cur);
  EXPECT_EQ(only(r).finding, "contract differs: cache cold→warm");
  EXPECT_TRUE(only(r).contract_refused);
  EXPECT_FALSE(only(r).config_refused);
  EXPECT_EQ(r.refusal, "contract mismatch");
}

TEST(ConfigCheck, BothRefusalsNameBoth) {
  CompareRow other = cell(100, "run-b", recorded("algo 12"));
  other.params["m"] = 8;
  CompareRow other_base = cell(100, "run-a", recorded("algo 12"));
  other_base.params["m"] = 8;
  other_base.contract["cache"] = "warm";
  const auto r = evaluate_gate({cell(100, "run-a", recorded("algo 66")), other_base},
                               {cell(100, "run-b", recorded("algo 1")), other}, Thresholds{}, GateOptions{}, "b", "c");
  EXPECT_EQ(r.refusal, "contract and config mismatch");
  EXPECT_EQ(r.summary.contract_refused, 1u);
  EXPECT_EQ(r.summary.config_refused, 1u);
}

TEST(ConfigCheck, TheComparisonJsonCarriesEachSidesConfig) {
  const auto r = compare(cell(100, "run-a", recorded("algo 66", "tile 256x128")), cell(100, "run-b", std::nullopt));
  std::ostringstream out;
  write_compare_json(out, r);
  const auto doc = nlohmann::json::parse(out.str());
  EXPECT_EQ(doc["rows"][0]["baseline"]["config"],
            nlohmann::json::parse(R"({"pinning": "recorded", "key": "algo 66", "description": "tile 256x128",
                                      "source": null})"));
  EXPECT_FALSE(doc["rows"][0]["current"].contains("config"));
  EXPECT_EQ(doc["summary"]["config_refused"], 1);
  EXPECT_EQ(doc["result"], "refused");
}

TEST(ConfigCheck, TheReplayDirectoryIsTheBaselinesRunDirectory) {
  EXPECT_EQ(replay_directory_of("runs/base"), "runs/base");
  EXPECT_EQ(replay_directory_of("runs/base/"), "runs/base/");
  EXPECT_EQ(replay_directory_of("runs/base/benchmark_results.jsonl"), "runs/base");
  EXPECT_EQ(replay_directory_of("runs/base/benchmark_results.csv"), "runs/base");
  EXPECT_EQ(replay_directory_of("benchmark_results.jsonl"), ".");
}

// From files: the importers carry the config and the run of each row.
TEST(ConfigCheck, RunDirectoriesThatEachRecordedTheirOwnConfigAreRefused) {
  const ShapeRow shape = testing_support::ledger_shape(4096, 8192);
  BenchmarkResultRow base = testing_support::ok_result(shape, "tuned", 100);
  base.run_id = "run-a";
  base.config = ProviderConfig{ConfigPinning::recorded, "panel=128", "panels of 128 columns", ""};
  BenchmarkResultRow cur = base;
  cur.run_id = "run-b";
  cur.config = ProviderConfig{ConfigPinning::recorded, "panel=64", "panels of 64 columns", ""};
  const std::string base_dir = testing_support::write_run_directory("config-check-base", {base});
  const std::string cur_dir = testing_support::write_run_directory("config-check-cur", {cur});
  for (const char* file : {"/benchmark_results.jsonl", "/benchmark_results.csv"}) {
    const auto r = evaluate_gate(read_compare_input(base_dir + file).rows, read_compare_input(cur_dir + file).rows,
                                 Thresholds{}, GateOptions{}, base_dir + file, cur_dir + file);
    EXPECT_EQ(only(r).finding, "record-vs-record: baseline ran config 'panel=128' (recorded), current ran 'panel=64' "
                               "(recorded); replay the baseline's configs with caliber run --replay-configs " +
                                   base_dir)
        << file;
    EXPECT_EQ(r.result, GateResult::refused) << file;
  }
  // The current run replayed the baseline's choice: compared.
  cur.config = ProviderConfig{ConfigPinning::replayed, "panel=128", "panels of 128 columns", "run-a"};
  const std::string replay_dir = testing_support::write_run_directory("config-check-replayed", {cur});
  for (const char* file : {"/benchmark_results.jsonl", "/benchmark_results.csv"}) {
    const auto r = evaluate_gate(read_compare_input(base_dir + file).rows, read_compare_input(replay_dir + file).rows,
                                 Thresholds{}, GateOptions{}, base_dir + file, replay_dir + file);
    EXPECT_FALSE(only(r).config_refused) << file;
    EXPECT_TRUE(only(r).change.has_value()) << file;
    EXPECT_EQ(r.result, GateResult::pass) << file;
  }
}

}  // namespace
}  // namespace caliber::compare
