// caliber compare on caliber run directories (benchmark_results.jsonl and .csv with their
// run_identity.json), through the built binary: the caliber check before any latency (exit 4, the
// override that still prints), a missing identity, the fail-closed rules on cells that failed or
// are incorrect, and the notes of formats that record no identity.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "results/benchmark_results.h"
#include "caliber/run_identity.h"
#include "support/report_rows.h"
#include "support/run_cli.h"
#include "support/run_cli_args.h"
#include "support/run_directory.h"
#include "support/sample_identity.h"

namespace caliber {
namespace {

namespace fs = std::filesystem;
using testing_support::CliRun;
using testing_support::ledger_shape;
using testing_support::ok_result;
using testing_support::run_caliber;

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

const ShapeRow kA = ledger_shape(4096, 8192);
const ShapeRow kB = ledger_shape(16, 64);

// A row of provider `caliber` whose six kernel-only samples are `median_us` +- 1%.
BenchmarkResultRow timed(const ShapeRow& s, double median_us) {
  BenchmarkResultRow r = ok_result(s, "caliber", median_us);
  r.kernel_only->samples_us.clear();
  for (double f : {0.99, 0.995, 1.0, 1.002, 1.005, 1.01}) r.kernel_only->samples_us.push_back(median_us * f);
  return r;
}

// A run directory as caliber run leaves it: both results files and the identity listing them.
std::string run_dir(const std::string& name, const std::vector<BenchmarkResultRow>& rows,
                    const RunIdentity& identity = testing_support::sample_identity()) {
  return testing_support::write_run_directory(name, rows, identity);
}

std::string thresholds() {
  const std::string path = testing_support::temp_path("compare-runs-thresholds.json");
  std::ofstream(path) << R"({"schema_version": 1, "kind": "caliber.thresholds",
 "architectures": {"sm_90": {"rules": [
  {"name": "rmsnorm", "params": {"provider": "caliber"}, "relative_pct": 10, "absolute_us": 1,
   "calibration": "test: 10% and 1 us"}]}}}
)";
  return path;
}

CliRun gate(const std::string& base, const std::string& current, std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {"compare", base, current, "--thresholds", thresholds(), "--fail-on-regression"};
  args.insert(args.end(), extra.begin(), extra.end());
  return run_caliber(args);
}

TEST(CompareRuns, GatesRunDirectoriesCellByCell) {
  const std::string base = run_dir("compare-runs-base", {timed(kA, 100), timed(kB, 10)});
  const std::string same = run_dir("compare-runs-same", {timed(kA, 100.5), timed(kB, 10.02)});
  const std::string slow = run_dir("compare-runs-slow", {timed(kA, 200), timed(kB, 10.02)});
  CliRun r = gate(base, same);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(has(r.out, "gate PASS: 0 of 2 gated rows failed (2 passed, 0 skipped, 0 unknown)")) << r.out;
  EXPECT_EQ(r.err, "");  // the identities match: nothing to say
  r = gate(base, slow);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  // Six samples a side, all of them twice as slow: the exact rank test's smallest p (2/924).
  EXPECT_TRUE(has(r.out, "rmsnorm dtype=bf16 eps=1e-06 m=4096 n=8192 provider=caliber shape_id=" + kA.shape_id +
                             " [event/graph/warm]"))
      << r.out;
  EXPECT_TRUE(has(r.out, "[GATE FAIL: slower +100.0%, +100.0 us (limits 10% and 1 us); p=0.0022")) << r.out;
  // The CSV projections carry no samples: the threshold alone decides.
  r = gate(base + "/benchmark_results.csv", slow + "/benchmark_results.csv");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_TRUE(has(r.out, "[GATE FAIL: slower +100.0%, +100.0 us (limits 10% and 1 us); threshold only")) << r.out;
}

TEST(CompareRuns, ACurrentCellThatFailedOrIsIncorrectFailsClosed) {
  const std::string base = run_dir("compare-runs-closed-base", {timed(kA, 100), timed(kB, 10)});
  BenchmarkResultRow failed =
      testing_support::status_result(kA, "caliber", BenchmarkStatus::failed, "plugin run() failed: out of luck");
  BenchmarkResultRow wrong = timed(kB, 9);  // faster, and wrong
  wrong.benchmark_status = BenchmarkStatus::incorrect;
  wrong.correct = false;
  wrong.status_reason = "output differs from the reference";
  wrong.correctness_error = "relative Frobenius error 0.5 > 0.01";
  const std::string current = run_dir("compare-runs-closed-current", {failed, wrong});
  const CliRun r = gate(base, current);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_TRUE(has(r.out, "[GATE FAIL: current row failed: plugin run() failed: out of luck]")) << r.out;
  EXPECT_TRUE(has(r.out, "[GATE FAIL: current row incorrect: relative Frobenius error 0.5 > 0.01]")) << r.out;
  EXPECT_TRUE(has(r.out, "gate FAIL: 2 of 2 gated rows failed")) << r.out;
}

TEST(CompareRuns, RunsOfAnotherCaliberAreRefusedBeforeAnyLatency) {
  const std::string base = run_dir("compare-runs-caliber-base", {timed(kA, 100)});
  RunIdentity debug = testing_support::sample_identity();
  debug.harness.build_type = "Debug";
  debug.contracts[0].contract.warmup = 50;
  const std::string current = run_dir("compare-runs-caliber-debug", {timed(kA, 300)}, debug);
  CliRun r = gate(base, current);
  EXPECT_EQ(r.exit_code, 4) << r.out << r.err;
  EXPECT_EQ(r.out, "");  // no verdict
  EXPECT_TRUE(has(r.err, "!!! [caliber] contracts[kernel_only].warmup: A=10, B=50\n")) << r.err;
  EXPECT_TRUE(has(r.err, "!!! [caliber] harness.build_type: A=Release, B=Debug\n")) << r.err;
  EXPECT_TRUE(has(r.err, "caliber: refused: runs of different caliber (2 caliber field(s) differ")) << r.err;
  // The override proceeds to the verdict and still prints every difference.
  r = gate(base, current, {"--allow-caliber-mismatch"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_TRUE(has(r.err, "!!! [caliber] harness.build_type: A=Release, B=Debug\n")) << r.err;
  EXPECT_TRUE(has(r.err, "!!! [caliber] proceeding anyway (--allow-caliber-mismatch)")) << r.err;
  EXPECT_TRUE(has(r.out, "[GATE FAIL: slower +200.0%")) << r.out;
}

TEST(CompareRuns, RunsThatDifferOnlyInTheirAdaptiveBudgetAreCompared) {
  // docs/contract.md, "Comparable contracts": a raised --max-time-ms changes how long sampling
  // may take, not what it measures.
  BenchmarkResultRow a = timed(kA, 100), b = timed(kA, 101);
  RunIdentity base_id = testing_support::sample_identity(), longer_id = base_id;
  for (auto* id : {&base_id, &longer_id}) {
    for (NamedContract& c : id->contracts) c.contract.iterations = IterationRule{};  // adaptive
  }
  for (NamedContract& c : longer_id.contracts) c.contract.iterations.max_time_ms = 4000;
  a.kernel_only->contract.iterations = base_id.contracts[0].contract.iterations;
  b.kernel_only->contract.iterations = longer_id.contracts[0].contract.iterations;
  const std::string base = run_dir("compare-runs-budget-base", {a}, base_id);
  const std::string longer = run_dir("compare-runs-budget-longer", {b}, longer_id);
  CliRun r = gate(base, longer);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(has(r.out, "gate PASS: 0 of 1 gated rows failed")) << r.out;
  // Another target precision is another contract.
  for (NamedContract& c : longer_id.contracts) c.contract.iterations.target_rel_halfwidth = 0.05;
  r = gate(base, run_dir("compare-runs-budget-target", {b}, longer_id));
  EXPECT_EQ(r.exit_code, 4) << r.out << r.err;
}

TEST(CompareRuns, ACaliberInputWithoutItsIdentityIsRefused) {
  const std::string base = run_dir("compare-runs-missing-base", {timed(kA, 100)});
  const std::string current = run_dir("compare-runs-missing-current", {timed(kA, 100)});
  fs::remove(current + "/run_identity.json");
  CliRun r = gate(base, current);
  EXPECT_EQ(r.exit_code, 4) << r.out << r.err;
  EXPECT_TRUE(has(r.err, "!!! [caliber] run_identity.json: A=present, B=<missing: no run_identity.json for " +
                             current + ">\n"))
      << r.err;
  EXPECT_EQ(r.out, "");
  // A results file dropped into another run's directory does not borrow that run's identity.
  fs::copy_file(base + "/benchmark_results.csv", current + "/other.csv");
  write_run_identity(current + "/run_identity.json", testing_support::sample_identity());
  r = gate(base + "/benchmark_results.csv", current + "/other.csv");
  EXPECT_EQ(r.exit_code, 4) << r.out << r.err;
  EXPECT_TRUE(has(r.err, "B=<missing: " + current + "/run_identity.json does not list other.csv among its outputs>"))
      << r.err;
  r = gate(base, current, {"--allow-caliber-mismatch"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
}

TEST(CompareRuns, FormatsWithoutARunIdentityAreComparedWithANote) {
  const std::string data = std::string(CALIBER_TEST_DATA) + "/compare/";
  const CliRun r = run_caliber({"compare", data + "nvbench_base.json", data + "nvbench_current.json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(has(r.out, "note: " + data + "nvbench_base.json is nvbench JSON, which records no run identity: the "
                                           "caliber check could not run (each row's contract was still checked)\n"))
      << r.out;
  EXPECT_TRUE(has(r.out, "note: " + data + "nvbench_current.json is nvbench JSON")) << r.out;
}

// Record-vs-record (docs/gate.md, "The config check"): each run chose its own config for the cell,
// so the pair compares two choices; refused with exit 4 until the current run replays the
// baseline's configs.
TEST(CompareRuns, TwoRunsThatEachChoseTheirConfigAreRefusedUntilOneReplaysTheOther) {
  BenchmarkResultRow b = timed(kA, 100);
  b.run_id = "run-a";
  b.config = ProviderConfig{ConfigPinning::recorded, "algo 1", "tile 128x128", ""};
  BenchmarkResultRow c = timed(kA, 70);
  c.run_id = "run-b";
  c.config = ProviderConfig{ConfigPinning::recorded, "algo 2", "tile 256x128", ""};
  const std::string base = run_dir("compare-runs-config-base", {b});
  CliRun r = gate(base, run_dir("compare-runs-config-recorded", {c}));
  EXPECT_EQ(r.exit_code, 4) << r.out << r.err;
  EXPECT_TRUE(has(r.out, "[GATE FAIL: record-vs-record: baseline ran config 'algo 1' (recorded), current ran 'algo 2' "
                         "(recorded); replay the baseline's configs with caliber run --replay-configs " +
                             base + "]"))
      << r.out;
  EXPECT_TRUE(has(r.out, "gate REFUSED (config mismatch): 1 of 1 gated rows failed")) << r.out;
  c.config = ProviderConfig{ConfigPinning::replayed, "algo 1", "tile 128x128", "run-a"};
  r = gate(base, run_dir("compare-runs-config-replayed", {c}));
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(has(r.out, "[GATE PASS: faster -30.0%")) << r.out;
}

}  // namespace
}  // namespace caliber
