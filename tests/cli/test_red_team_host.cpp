// caliber run on the host with the cheaters of tests/plugins/test_plugins.c that aim at what fresh
// inputs and audited calls leave open (docs/integrity.md, "Fresh inputs" and "Audited calls"):
// remembering outputs by input content, skipping calls that come quickly after the previous one,
// and computing only when the output is poisoned. Under the default host contracts and under cold
// caches, each cheater either ends incorrect, failed or faster_than_physical, or, where its cheat
// cannot trigger, is measured honestly: ok, verified, and no faster than the honest control.
// Which of the two is decided per cheater from its mechanism (kExpectations).
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "caliber/result_json.h"
#include "io/benchmark_results_json.h"
#include "io/shape_ledger_json.h"
#include "ledger/importers.h"
#include "results/benchmark_results.h"
#include "support/cli_run.h"

namespace caliber {
namespace {

using testing_support::fresh_dir;
using testing_support::write_text;

enum class Expect {
  refused,            // incorrect, failed or faster_than_physical
  measured_honestly,  // ok, verified, median within a factor 2 of the honest control's
  either,             // one of the two, depending on how fast this machine runs the harness
};

struct ContractRun {
  std::string name;
  std::vector<std::string> extra_args;
  std::map<std::string, Expect> cheaters;
};

// The honest control is caliber_test_correct.
const std::vector<ContractRun> kExpectations = {
    {"defaults",
     {},
     {
         // Every call before and during timing runs on input values drawn for it, and each
         // verified call follows a call on other values: the sample never repeats, so it always
         // computes (plus its sampling and the copy it keeps).
         {"content_memo", Expect::measured_honestly},
         // The timed calls are each preceded by a draw of fresh inputs (tens of microseconds on
         // 64 x 256), so they compute; a verified call follows only a restore of the inputs (and
         // a poison of the outputs), usually within 20 us: it skips, and the output checks find
         // it. On a slow build (sanitizers) no call may come that soon: then it is honest.
         {"gap_skip", Expect::either},
         // Its first call computes and is remembered; the timed calls run on drawn inputs it has
         // never seen, write nothing, and the audits find the poison.
         {"memo_seen", Expect::refused},
         // Every timed call is poisoned, so it computes; the verified call on fresh inputs is not
         // poisoned, so it skips and leaves the previous call's output.
         {"sniff_output", Expect::refused},
     }},
    {"cold",
     {"--eager-cache", "cold", "--kernel-only-cache", "cold"},
     {
         {"content_memo", Expect::measured_honestly},
         // A flush of at least twice the last-level cache precedes every call, verified ones
         // included: no call comes within 20 us of the previous return, so it always computes.
         {"gap_skip", Expect::measured_honestly},
         {"memo_seen", Expect::refused},
         {"sniff_output", Expect::refused},
     }},
};

std::string entry(const std::string& name) {
  return "  " + name + ": {enabled: true, entrypoint: \"" + std::string(CALIBER_TEST_PLUGIN) + ":caliber_test_" +
         name + "\", provider: plugin}\n";
}

// A 64 x 256 fp32 rmsnorm: small enough for the test's time, large enough that drawing its inputs
// takes longer than gap_skip's 20 us.
void write_inputs(const std::string& dir, const ContractRun& run) {
  ledger::RowTemplate t;
  t.op = ops::OpType::rmsnorm;
  write_shape_ledger(dir + "/shape_ledger.jsonl",
                     {ledger::make_row(t, DType::fp32, {{"m", 64}, {"n", 256}, {"eps", 1e-6}}, Stage::synthetic,
                                       std::nullopt, {SourceKind::synthetic, "test", ""}, "")});
  std::string m =
      "schema_version: 1\nkernel: rmsnorm\nop_type: rmsnorm\ndtype: [fp32]\nreference_provider: correct\n"
      "layout_contract: row_major\nproviders:\n" +
      entry("correct");
  for (const auto& [name, expect] : run.cheaters) m += entry(name);
  write_text(dir + "/baseline_matrix.yaml", m);
}

// caliber run under `run`'s contracts, with no calibrated ceilings whatever this machine's user has
// calibrated (the physical bound uses theoretical ones); the rows.
std::vector<BenchmarkResultRow> run_contracts(const ContractRun& run) {
  const std::string dir = fresh_dir("red_team_host_" + run.name);
  write_inputs(dir, run);
  std::vector<std::string> args = {"run", "--op", "rmsnorm", "--backend", "host", "--shape-ledger",
                                   dir + "/shape_ledger.jsonl", "--baseline-matrix", dir + "/baseline_matrix.yaml",
                                   "--out", dir + "/out", "--seed", "7", "--min-time-ms", "0", "--max-time-ms", "5",
                                   "--min-samples", "10", "--warmup", "2", "--cell-timeout-s", "120"};
  args.insert(args.end(), run.extra_args.begin(), run.extra_args.end());
  const auto r = testing_support::run_cli_command("CALIBER_CEILINGS='" + dir + "/no_ceilings.json' " +
                                                  testing_support::caliber_exe() + " " +
                                                  testing_support::shell_args(args));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return read_benchmark_results(dir + "/out/benchmark_results.jsonl");
}

bool refused(BenchmarkStatus s) {
  return s == BenchmarkStatus::incorrect || s == BenchmarkStatus::failed || s == BenchmarkStatus::faster_than_physical;
}

// `row`'s medians (kernel-only and eager) each within a factor 2 of the honest row's.
void expect_earned_nothing(const BenchmarkResultRow& row, const BenchmarkResultRow& honest, const std::string& what) {
  const std::vector<std::pair<std::optional<double>, std::optional<double>>> medians = {
      {row.median_us, honest.median_us}, {row.eager_median_us, honest.eager_median_us}};
  for (const auto& [mine, theirs] : medians) {
    ASSERT_TRUE(mine && theirs) << what;
    EXPECT_GT(*mine, 0.5 * *theirs) << what << ": " << *mine << " us, honest " << *theirs << " us";
    EXPECT_LT(*mine, 2.0 * *theirs) << what << ": " << *mine << " us, honest " << *theirs << " us";
  }
}

void expect_as_the_mechanism_says(const ContractRun& run) {
  const std::vector<BenchmarkResultRow> rows = run_contracts(run);
  ASSERT_EQ(rows.size(), 1 + run.cheaters.size());
  std::map<std::string, const BenchmarkResultRow*> by_provider;
  for (const BenchmarkResultRow& r : rows) by_provider[r.provider] = &r;
  ASSERT_TRUE(by_provider.count("correct"));
  const BenchmarkResultRow& honest = *by_provider.at("correct");
  ASSERT_EQ(honest.benchmark_status, BenchmarkStatus::ok) << run.name << ": " << honest.status_reason.value_or("");
  EXPECT_EQ(honest.integrity.verdict(), IntegrityVerdict::verified) << to_json(honest.integrity).dump();
  for (const auto& [name, expect] : run.cheaters) {
    ASSERT_TRUE(by_provider.count(name)) << name;
    const BenchmarkResultRow& row = *by_provider.at(name);
    const std::string what = run.name + ": " + name + " ended " + std::string(to_string(row.benchmark_status)) +
                             " (" + row.status_reason.value_or("no reason") + ")";
    if (expect == Expect::refused || (expect == Expect::either && row.benchmark_status != BenchmarkStatus::ok)) {
      EXPECT_TRUE(refused(row.benchmark_status)) << what << ", " << row.median_us.value_or(-1) << " us";
      continue;
    }
    EXPECT_EQ(row.benchmark_status, BenchmarkStatus::ok) << what;
    EXPECT_EQ(row.integrity.verdict(), IntegrityVerdict::verified) << what << ": " << to_json(row.integrity).dump();
    expect_earned_nothing(row, honest, what);
  }
}

TEST(RedTeamHost, UnderTheDefaultContracts) { expect_as_the_mechanism_says(kExpectations.at(0)); }

TEST(RedTeamHost, UnderColdCaches) { expect_as_the_mechanism_says(kExpectations.at(1)); }

}  // namespace
}  // namespace caliber
