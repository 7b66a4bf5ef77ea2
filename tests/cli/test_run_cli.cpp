// caliber run end to end on the host backend: every status, a crashing and a hanging provider
// that cost one row each, resume after the runner is killed mid-run, the preflight (plugins,
// device, inputs, output directory), the run identity and the caliber check of --resume.
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <thread>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "caliber/backend.h"
#include "results/benchmark_results.h"
#include "caliber/config.h"
#include "caliber/run_identity.h"
#include "core/sha256.h"
#include "fingerprint/code_fingerprint.h"
#include "ledger/importers.h"
#include "runner/cell_in_flight.h"
#include "runner/out_lock.h"
#include "support/cli_run.h"
#include "io/benchmark_results_json.h"
#include "io/benchmark_results_csv.h"
#include "io/shape_ledger_json.h"

namespace caliber {
namespace {

using testing_support::count_lines;
using testing_support::fresh_dir;
using testing_support::run_caliber;
using testing_support::slurp;
using testing_support::write_text;

const std::string kPlugin = CALIBER_TEST_PLUGIN;

ShapeRow rms_row(std::int64_t m, std::int64_t n, DType d) {
  ledger::RowTemplate t;
  t.op = ops::OpType::rmsnorm;
  return ledger::make_row(t, d, {{"m", m}, {"n", n}, {"eps", 1e-6}}, Stage::mixed, std::nullopt,
                          {SourceKind::manual, "test", ""}, "");
}

std::string matrix(const std::string& providers) {
  return "schema_version: 1\nkernel: rmsnorm\nop_type: rmsnorm\ndtype: [fp32, bf16]\nreference_provider: caliber\n"
         "layout_contract: row_major\nproviders:\n" +
         providers;
}

std::string plugin_entry(const std::string& name, const std::string& symbol) {
  return "  " + name + ": {enabled: true, entrypoint: \"" + kPlugin + ":" + symbol + "\", provider: plugin}\n";
}

std::vector<std::string> run_args(const std::string& dir, std::vector<std::string> extra = {},
                                  const std::string& sampling_ms = "2") {
  std::vector<std::string> a = {"run", "--op", "rmsnorm", "--backend", "host", "--shape-ledger",
                                dir + "/shape_ledger.jsonl", "--baseline-matrix", dir + "/baseline_matrix.yaml",
                                "--out", dir + "/out", "--min-time-ms", sampling_ms == "2" ? "0" : sampling_ms,
                                "--max-time-ms", sampling_ms, "--min-samples", "6", "--warmup", "1"};
  a.insert(a.end(), extra.begin(), extra.end());
  return a;
}

// Waits (at most a minute) until a running caliber run has appended `n` rows to `results`.
void wait_for_rows(const std::string& results, std::size_t n) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < deadline) {
    if (std::filesystem::exists(results) && count_lines(slurp(results)) >= n) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

std::map<std::string, BenchmarkStatus> statuses_by_cell(const std::vector<BenchmarkResultRow>& rows) {
  std::map<std::string, BenchmarkStatus> out;
  for (const auto& r : rows) out[r.shape_id + "/" + r.provider] = r.benchmark_status;
  return out;
}

TEST(RunCli, EveryStatusIsRecordedAndTheRunGoesOn) {
  const std::string dir = fresh_dir("run_statuses");
  const ShapeRow a = rms_row(4, 8, DType::fp32), crash = rms_row(13, 8, DType::fp32), b = rms_row(6, 16, DType::bf16),
                 huge = rms_row(1048576, 1048576, DType::fp32);
  write_shape_ledger(dir + "/shape_ledger.jsonl", {a, crash, b, huge});
  write_text(dir + "/baseline_matrix.yaml",
             matrix("  caliber: {enabled: true, entrypoint: \"builtin:caliber\", provider: caliber}\n"
                    "  naive: {enabled: true, entrypoint: \"builtin:naive\", provider: caliber}\n" +
                    plugin_entry("wrong", "caliber_test_wrong") + plugin_entry("fails", "caliber_test_fail") +
                    plugin_entry("fp32only", "caliber_test_fp32_only") + plugin_entry("gpuonly", "caliber_test_cuda") +
                    plugin_entry("crashes", "caliber_test_crash") +
                    "  cudnn: {enabled: false, provider: cudnn, skip_reason: \"no cuDNN on the host\"}\n"));
  const auto r = run_caliber(run_args(dir, {"--providers", "caliber,wrong,fails,fp32only,gpuonly,crashes,cudnn"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rows = read_benchmark_results(dir + "/out/benchmark_results.jsonl");
  ASSERT_EQ(rows.size(), 4u * 8u) << r.err;  // one row per cell, no more, no less
  const auto st = statuses_by_cell(rows);
  EXPECT_EQ(st.size(), 32u);
  auto at = [&](const ShapeRow& s, const char* p) { return st.at(s.shape_id + "/" + p); };
  EXPECT_EQ(at(a, "caliber"), BenchmarkStatus::ok);
  EXPECT_EQ(at(b, "caliber"), BenchmarkStatus::ok);
  EXPECT_EQ(at(a, "naive"), BenchmarkStatus::skipped);
  EXPECT_EQ(at(a, "wrong"), BenchmarkStatus::incorrect);
  EXPECT_EQ(at(b, "wrong"), BenchmarkStatus::incorrect);
  EXPECT_EQ(at(a, "fails"), BenchmarkStatus::failed);
  EXPECT_EQ(at(a, "fp32only"), BenchmarkStatus::ok);
  EXPECT_EQ(at(b, "fp32only"), BenchmarkStatus::unsupported);
  EXPECT_EQ(at(a, "gpuonly"), BenchmarkStatus::not_configured);
  EXPECT_EQ(at(a, "cudnn"), BenchmarkStatus::not_configured);
  EXPECT_EQ(at(huge, "caliber"), BenchmarkStatus::oom);
  EXPECT_EQ(at(a, "crashes"), BenchmarkStatus::ok);
  EXPECT_EQ(at(crash, "crashes"), BenchmarkStatus::failed);
  EXPECT_EQ(at(b, "crashes"), BenchmarkStatus::ok);  // the next shape ran in a fresh worker
  EXPECT_EQ(at(crash, "caliber"), BenchmarkStatus::ok);
  for (const auto& row : rows) {
    EXPECT_EQ(row.run_id, rows.front().run_id);
    if (row.shape_id == huge.shape_id) continue;  // oom or not_configured, checked above
    if (row.shape_id == crash.shape_id && row.provider == "crashes") {
      EXPECT_NE(row.status_reason.value_or("").find("worker process died (signal 6"), std::string::npos)
          << row.status_reason.value_or("");
    }
    if (row.provider == "wrong") {
      EXPECT_EQ(row.correct, false);
      ASSERT_TRUE(row.correctness_error.has_value());
      EXPECT_NE(row.correctness_error->find("relative Frobenius error"), std::string::npos);
      EXPECT_TRUE(row.median_us.has_value());  // incorrect rows are still timed
    }
    if (row.provider == "fails") EXPECT_EQ(row.status_reason, "plugin run() failed: deliberate failure second line");
    if (row.provider == "cudnn") EXPECT_NE(row.status_reason.value_or("").find("no cuDNN on the host"), std::string::npos);
    if (row.benchmark_status == BenchmarkStatus::ok) {
      EXPECT_EQ(row.correct, true);
      ASSERT_TRUE(row.kernel_only && row.eager);
      EXPECT_EQ(row.kernel_only->contract.schedule, Schedule::per_iter);
      EXPECT_EQ(row.eager->contract.schedule, Schedule::isolated);
      EXPECT_DOUBLE_EQ(*row.host_overhead_us, *row.eager_median_us - *row.median_us);
      EXPECT_FALSE(row.graph_median_us.has_value());
      // Where the cell's time went: the phases add up to its wall time; the timing phase is the
      // measurements' own wall time (less any judging inside it).
      ASSERT_TRUE(row.cell_phases.has_value());
      const CellPhases& ph = *row.cell_phases;
      EXPECT_NEAR(ph.inputs_ms + ph.reference_ms + ph.correctness_ms + ph.untimed_check_ms + ph.timing_ms + ph.other_ms +
                      ph.fresh_inputs_ms,
                  row.cell_wall_time_ms, 1e-6 + 1e-9 * row.cell_wall_time_ms);
      EXPECT_GT(ph.timing_ms, 0.0);
      EXPECT_LE(ph.timing_ms, row.eager->wall_time_ms + row.kernel_only->wall_time_ms + 1e-9);
      EXPECT_GT(ph.correctness_ms, 0.0);
    }
    if (row.benchmark_status == BenchmarkStatus::not_configured || row.benchmark_status == BenchmarkStatus::skipped) {
      EXPECT_FALSE(row.cell_phases.has_value()) << row.provider;  // nothing of the provider ran
    }
  }
  // The shape's inputs are built once, charged to the first cell that needed them.
  std::map<std::string, int> built;
  for (const auto& row : rows) {
    if (row.cell_phases && row.cell_phases->inputs_ms > 0) ++built[row.shape_id];
  }
  EXPECT_EQ(built[a.shape_id], 1);
  EXPECT_EQ(built[b.shape_id], 1);
  // The CSV projection and the summary are there and valid.
  const auto csv = read_benchmark_results_csv(dir + "/out/benchmark_results.csv");
  EXPECT_EQ(csv.size(), rows.size());
  const auto summary = nlohmann::json::parse(slurp(dir + "/out/run_summary.json"));
  EXPECT_EQ(summary["cells_total"], 32);
  EXPECT_EQ(summary["statuses"]["failed"], 4);  // `fails` on three shapes (the fourth is oom) + the crash
  EXPECT_EQ(summary["statuses"]["oom"], 5);     // every provider that reached the huge shape's inputs
  EXPECT_GE(summary["session"]["worker_starts"].get<int>(), 2);
  // Where the start-up went: one ready time per worker start, the first worker's steps.
  const auto& start_up = summary["session"]["start_up"];
  EXPECT_EQ(start_up["worker_ready_ms"].size(), summary["session"]["worker_starts"].get<std::size_t>());
  EXPECT_GT(start_up["before_first_worker_ms"].get<double>(), 0.0);
  for (const char* step : {"plan", "preflight", "identity", "code_fingerprint_capture", "backend", "providers",
                           "ceilings"}) {
    EXPECT_GE(start_up["first_worker_steps_ms"].at(step).get<double>(), 0.0) << step;
  }
  // Where the time went: every row of this run, and the ratios (this session measured them all).
  EXPECT_EQ(summary["time"]["rows"], 32);
  EXPECT_GT(summary["time"]["per_cell_ms"]["timing"].get<double>(), 0.0);
  EXPECT_GT(summary["time"]["wall_over_timing"].get<double>(), 1.0);
  EXPECT_NE(r.err.find("caliber run: time: wall "), std::string::npos) << r.err;
  const auto v = run_caliber({"validate", dir + "/out/benchmark_results.jsonl", dir + "/out/benchmark_results.csv",
                              dir + "/shape_ledger.jsonl", dir + "/baseline_matrix.yaml"});
  EXPECT_EQ(v.exit_code, 0) << v.out << v.err;
  // Resuming a finished run runs nothing; --strict turns the failed and incorrect cells into exit 1.
  const auto again = run_caliber(run_args(dir, {"--resume", "--strict"}));
  EXPECT_EQ(again.exit_code, 1) << again.err;
  EXPECT_EQ(read_benchmark_results(dir + "/out/benchmark_results.jsonl").size(), rows.size());
}

// Every buffer a provider gets, on every call (the checks' fresh and moved copies included), is
// aligned as the plugin ABI promises (CALIBER_BUFFER_ALIGNMENT_HOST): the test plugin fails any
// call that is not, naming the buffer. Odd sizes, so that no tensor's length is a multiple of it;
// warm and cold caches.
TEST(RunCli, EveryBufferIsAlignedAsTheAbiPromises) {
  const std::string dir = fresh_dir("run_aligned");
  write_shape_ledger(dir + "/shape_ledger.jsonl",
                     {rms_row(13, 7, DType::fp32), rms_row(3, 33, DType::bf16), rms_row(1, 1, DType::fp32)});
  write_text(dir + "/baseline_matrix.yaml",
             matrix("  caliber: {enabled: true, entrypoint: \"builtin:caliber\", provider: caliber}\n" +
                    plugin_entry("aligned", "caliber_test_aligned")));
  for (const char* cache : {"warm", "cold"}) {
    std::filesystem::remove_all(dir + "/out");
    const auto r = run_caliber(run_args(dir, {"--kernel-only-cache", cache, "--eager-cache", cache}));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    for (const auto& row : read_benchmark_results(dir + "/out/benchmark_results.jsonl")) {
      EXPECT_EQ(row.benchmark_status, BenchmarkStatus::ok) << cache << " " << row.shape_id << " " << row.provider
                                                           << ": " << row.status_reason.value_or("");
    }
  }
}

TEST(RunCli, AHangingCellIsKilledAndRecorded) {
  const std::string dir = fresh_dir("run_hang");
  const ShapeRow hang = rms_row(13, 8, DType::fp32), fine = rms_row(4, 8, DType::fp32);
  write_shape_ledger(dir + "/shape_ledger.jsonl", {hang, fine});
  write_text(dir + "/baseline_matrix.yaml", matrix(plugin_entry("hangs", "caliber_test_hang") +
                                                   "  caliber: {enabled: true, entrypoint: \"builtin:caliber\", "
                                                   "provider: caliber}\n"));
  const auto start = std::chrono::steady_clock::now();
  const auto r = run_caliber(run_args(dir, {"--cell-timeout-s", "1.5"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
  const auto st = statuses_by_cell(read_benchmark_results(dir + "/out/benchmark_results.jsonl"));
  ASSERT_EQ(st.size(), 4u);
  EXPECT_EQ(st.at(hang.shape_id + "/hangs"), BenchmarkStatus::failed);
  EXPECT_EQ(st.at(hang.shape_id + "/caliber"), BenchmarkStatus::ok);
  EXPECT_EQ(st.at(fine.shape_id + "/hangs"), BenchmarkStatus::ok);
  EXPECT_NE(r.err.find("no result within --cell-timeout-s 1.5 s"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir + "/out/" + runner::kCellInFlightFileName));  // no cell runs any more
}

// A provider that forks a child holding the worker's descriptors, then aborts: its cell fails as
// soon as the worker has ended (not at --cell-timeout-s, though the child keeps the event pipe
// open), and the child does not outlive the run (the worker's process group ends with it).
TEST(RunCli, AProvidersChildrenEndWithItsWorker) {
  const std::string dir = fresh_dir("run_fork_crash");
  const ShapeRow crash = rms_row(13, 8, DType::fp32), fine = rms_row(4, 8, DType::fp32);
  write_shape_ledger(dir + "/shape_ledger.jsonl", {crash, fine});
  write_text(dir + "/baseline_matrix.yaml", matrix(plugin_entry("forks", "caliber_test_fork_crash") +
                                                   "  caliber: {enabled: true, entrypoint: \"builtin:caliber\", "
                                                   "provider: caliber}\n"));
  const std::string pid_file = dir + "/child.pid";
  ::setenv("CALIBER_TEST_FORK_PID_FILE", pid_file.c_str(), 1);
  const auto start = std::chrono::steady_clock::now();
  const auto r = run_caliber(run_args(dir, {"--cell-timeout-s", "60"}));
  ::unsetenv("CALIBER_TEST_FORK_PID_FILE");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(40));  // not the 60 s timeout
  const auto st = statuses_by_cell(read_benchmark_results(dir + "/out/benchmark_results.jsonl"));
  EXPECT_EQ(st.at(crash.shape_id + "/forks"), BenchmarkStatus::failed);
  EXPECT_EQ(st.at(fine.shape_id + "/forks"), BenchmarkStatus::ok);
  const pid_t child = static_cast<pid_t>(std::stol(slurp(pid_file)));
  ASSERT_GT(child, 0);
  // Gone, or a zombie nobody has reaped yet (its parent, the worker, is gone): not running.
  auto running = [child] {
    std::ifstream stat("/proc/" + std::to_string(child) + "/stat");
    std::string line;
    if (!std::getline(stat, line)) return false;
    const std::size_t close = line.rfind(')');
    return close != std::string::npos && close + 2 < line.size() && line[close + 2] != 'Z' && line[close + 2] != 'X';
  };
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (running() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_FALSE(running()) << "the provider's child " << child << " outlived the run";
}

// Killed with its worker while a cell hangs (as caliber batch's shard timeout ends a shard), the
// run writes no row for that cell; its cell_in_flight.json says which cell it was, and since when.
TEST(RunCli, KilledWithItsWorkerItLeavesTheCellItWasRunningNamed) {
  const std::string dir = fresh_dir("run_in_flight");
  const ShapeRow fine = rms_row(4, 8, DType::fp32), hang = rms_row(13, 8, DType::fp32);
  write_shape_ledger(dir + "/shape_ledger.jsonl", {fine, hang});
  write_text(dir + "/baseline_matrix.yaml", matrix("  caliber: {enabled: true, entrypoint: \"builtin:caliber\", "
                                                   "provider: caliber}\n" +
                                                   plugin_entry("hangs", "caliber_test_hang")));
  const std::string out = dir + "/out";
  const double spawned_unix_ms =
      std::chrono::duration<double, std::milli>(std::chrono::system_clock::now().time_since_epoch()).count();
  const pid_t pid = testing_support::start_caliber(run_args(dir, {"--cell-timeout-s", "600"}), dir);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  std::optional<runner::CellInFlight> named;
  while (std::chrono::steady_clock::now() < deadline) {
    named = runner::read_cell_in_flight(out);
    if (named && named->shape_id == hang.shape_id && named->provider == "hangs") break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ::kill(pid, SIGKILL);  // the worker dies with it (PR_SET_PDEATHSIG)
  testing_support::wait_exit_code(pid);
  named = runner::read_cell_in_flight(out);
  ASSERT_TRUE(named) << slurp(dir + "/stderr.txt");
  EXPECT_EQ(named->shape_id, hang.shape_id);
  EXPECT_EQ(named->provider, "hangs");
  EXPECT_EQ(named->pid, pid);
  EXPECT_EQ(named->run_id, read_run_identity(out + "/" + kRunIdentityFileName).run_id);
  EXPECT_GE(named->started_unix_ms, spawned_unix_ms);
  const auto st = statuses_by_cell(read_benchmark_results(out + "/" + kBenchmarkResultsFileName));
  EXPECT_EQ(st.size(), 3u);
  EXPECT_EQ(st.count(hang.shape_id + "/hangs"), 0u);
}

TEST(RunCli, KilledMidRunThenResumedLosesAndDuplicatesNothing) {
  const std::string dir = fresh_dir("run_kill_resume");
  std::vector<ShapeRow> shapes;
  for (std::int64_t m = 1; m <= 30; ++m) shapes.push_back(rms_row(m, 64, DType::fp32));
  write_shape_ledger(dir + "/shape_ledger.jsonl", shapes);
  write_text(dir + "/baseline_matrix.yaml",
             matrix("  caliber: {enabled: true, entrypoint: \"builtin:caliber\", provider: caliber}\n"
                    "  naive: {enabled: true, entrypoint: \"builtin:naive\", provider: caliber}\n"));
  // ~40 ms of sampling per cell: the run lasts long enough to be killed in the middle.
  const std::vector<std::string> args = run_args(dir, {}, "20");
  const std::string results = dir + "/out/benchmark_results.jsonl";
  const pid_t pid = testing_support::start_caliber(args, dir);
  wait_for_rows(results, 8);
  ::kill(pid, SIGKILL);
  testing_support::wait_exit_code(pid);
  // Complete rows only: a row torn by the kill has no newline yet (resume cuts it off).
  const std::size_t before = count_lines(slurp(results));
  ASSERT_GE(before, 8u);
  ASSERT_LT(before, 60u) << "the run finished before it was killed; the test proves nothing";

  const auto r = run_caliber(run_args(dir, {"--resume"}, "20"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("resuming run"), std::string::npos) << r.err;
  const auto rows = read_benchmark_results(results);  // refuses duplicate cells itself
  EXPECT_EQ(rows.size(), 60u);
  std::set<std::string> cells;
  for (const auto& row : rows) {
    cells.insert(row.shape_id + "/" + row.provider);
    EXPECT_EQ(row.run_id, rows.front().run_id);
  }
  EXPECT_EQ(cells.size(), 60u);
  const auto summary = nlohmann::json::parse(slurp(dir + "/out/run_summary.json"));
  EXPECT_EQ(summary["session"]["cells"].get<std::size_t>(), 60u - before);
}

TEST(RunCli, ExistingResultsNeedResume) {
  const std::string dir = fresh_dir("run_needs_resume");
  write_shape_ledger(dir + "/shape_ledger.jsonl", {rms_row(2, 8, DType::fp32)});
  write_text(dir + "/baseline_matrix.yaml",
             matrix("  caliber: {enabled: true, entrypoint: \"builtin:caliber\", provider: caliber}\n"));
  ASSERT_EQ(run_caliber(run_args(dir)).exit_code, 0);
  const auto r = run_caliber(run_args(dir));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("pass --resume"), std::string::npos) << r.err;
}

// docs/preflight.md, "Exit 2 or exit 3": a plugin named by a well-formed entrypoint that cannot
// be used here fails the plugin_loads preflight (exit 3), its one line naming the matrix's file,
// line and field; an entrypoint the matrix itself gets wrong is an input error (exit 2).
// --capture-denied (docs/runner.md): a malformed file is one line naming it and the line, exit 2,
// nothing measured; a well-formed one is accepted (the host backend captures no graphs, so it
// denies nothing there).
TEST(RunCli, CaptureDeniedFilesAreReadStrictly) {
  const std::string dir = fresh_dir("run_capture_denied");
  write_shape_ledger(dir + "/shape_ledger.jsonl", {rms_row(2, 8, DType::fp32)});
  write_text(dir + "/baseline_matrix.yaml",
             matrix("  caliber: {enabled: true, entrypoint: \"builtin:caliber\", provider: caliber}\n"));
  write_text(dir + "/bad.tsv", "# header\ncaliber\n");
  const auto bad = run_caliber(run_args(dir, {"--capture-denied", dir + "/bad.tsv"}));
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
  EXPECT_NE(bad.err.find(dir + "/bad.tsv:2"), std::string::npos) << bad.err;
  EXPECT_NE(bad.err.find("'denial'"), std::string::npos) << bad.err;
  EXPECT_FALSE(std::filesystem::exists(dir + "/out/benchmark_results.jsonl"));
  write_text(dir + "/good.tsv", "caliber\tcapture denied: a test\n");
  const auto good = run_caliber(run_args(dir, {"--capture-denied", dir + "/good.tsv"}));
  ASSERT_EQ(good.exit_code, 0) << good.err;
  const auto rows = read_benchmark_results(dir + "/out/benchmark_results.jsonl");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].benchmark_status, BenchmarkStatus::ok);
  EXPECT_FALSE(rows[0].capture_failure.has_value());
}

TEST(RunCli, PluginsThatCannotBeUsedFailThePluginLoadsPreflight) {
  struct Case {
    std::string entrypoint;
    std::string fragment;
  };
  const std::vector<Case> cases = {
      {"/nonexistent/libnothing.so:entry", "(/nonexistent/libnothing.so:entry): /nonexistent/libnothing.so does not exist"},
      {kPlugin + ":caliber_no_such_symbol", "does not export caliber_no_such_symbol"},
      {kPlugin + ":caliber_test_abi_v99", "): was built for plugin ABI version 99; this caliber speaks version 1"},
      {kPlugin + ":caliber_test_refuse", "): refused to load for op rmsnorm: no licence for this machine"},
  };
  for (const Case& c : cases) {
    const std::string dir = fresh_dir("run_bad_plugin");
    write_shape_ledger(dir + "/shape_ledger.jsonl", {rms_row(2, 8, DType::fp32)});
    write_text(dir + "/baseline_matrix.yaml",
               matrix("  caliber: {enabled: true, entrypoint: \"builtin:caliber\", provider: caliber}\n"
                      "  mine: {enabled: true, entrypoint: \"" + c.entrypoint + "\", provider: plugin}\n"));
    const auto r = run_caliber(run_args(dir));
    EXPECT_EQ(r.exit_code, 3) << r.err;
    EXPECT_EQ(count_lines(r.err), 1u) << r.err;
    EXPECT_EQ(r.err.rfind("PREFLIGHT_FAILED check=plugin_loads: " + dir +
                              "/baseline_matrix.yaml:9: field 'providers.mine.entrypoint': provider mine (",
                          0),
              0u)
        << r.err;
    EXPECT_NE(r.err.find(c.fragment), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir + "/out/benchmark_results.jsonl"));
    EXPECT_FALSE(std::filesystem::exists(dir + "/out/run_identity.json"));
  }
  const std::string dir = fresh_dir("run_bad_entrypoint");
  write_shape_ledger(dir + "/shape_ledger.jsonl", {rms_row(2, 8, DType::fp32)});
  write_text(dir + "/baseline_matrix.yaml",
             matrix("  caliber: {enabled: true, entrypoint: \"builtin:caliber\", provider: caliber}\n"
                    "  mine: {enabled: true, entrypoint: \"libnothing.so\", provider: plugin}\n"));
  const auto r = run_caliber(run_args(dir));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(count_lines(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find("baseline_matrix.yaml:9: field 'providers.mine.entrypoint'"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir + "/out"));
}

TEST(RunCli, ACudaRunWithoutADeviceFailsTheDeviceVisiblePreflight) {
  for (const auto& b : available_backends()) {
    if (b.kind == BackendKind::cuda && b.device_count > 0) GTEST_SKIP() << "a CUDA device is visible";
  }
  const std::string dir = fresh_dir("run_no_backend");
  write_shape_ledger(dir + "/shape_ledger.jsonl", {rms_row(2, 8, DType::fp32)});
  write_text(dir + "/baseline_matrix.yaml",
             matrix("  caliber: {enabled: true, entrypoint: \"builtin:caliber\", provider: caliber}\n"));
  std::vector<std::string> args = run_args(dir);
  args[4] = "cuda";  // --backend cuda
  const auto r = run_caliber(args);
  EXPECT_EQ(r.exit_code, 3) << r.err;
  // Checked by the first worker (the parent never initializes CUDA), reported by the parent.
  EXPECT_EQ(r.err.rfind("PREFLIGHT_FAILED check=device_visible: backend cuda ", 0), 0u) << r.err;
  EXPECT_EQ(count_lines(r.err), 1u) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir + "/out/benchmark_results.jsonl"));
  EXPECT_FALSE(std::filesystem::exists(dir + "/out/run_identity.json"));
}

TEST(RunCli, PreflightChecksTheInputFilesAndTheOutputDirectoryContentErrorsAreExitTwo) {
  const std::string dir = fresh_dir("run_preflight");
  write_shape_ledger(dir + "/shape_ledger.jsonl", {rms_row(2, 8, DType::fp32)});
  write_text(dir + "/baseline_matrix.yaml",
             matrix("  caliber: {enabled: true, entrypoint: \"builtin:caliber\", provider: caliber}\n"));
  std::vector<std::string> args = run_args(dir);
  args[6] = dir + "/missing.jsonl";  // --shape-ledger
  auto r = run_caliber(args);
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_EQ(r.err, "PREFLIGHT_FAILED check=input_valid: shape ledger " + dir + "/missing.jsonl does not exist\n");
  write_text(dir + "/not_a_dir", "x");
  args = run_args(dir);
  args[10] = dir + "/not_a_dir";  // --out
  r = run_caliber(args);
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_EQ(r.err, "PREFLIGHT_FAILED check=output_writable: " + dir + "/not_a_dir exists and is not a directory\n");
  // The ledger is there but its second line is cut: its content is wrong, exit 2 with file and line.
  const std::string ledger = slurp(dir + "/shape_ledger.jsonl");
  write_text(dir + "/shape_ledger.jsonl", ledger + ledger.substr(0, ledger.size() / 2));
  r = run_caliber(run_args(dir));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.err.rfind("caliber: error: " + dir + "/shape_ledger.jsonl:2: ", 0), 0u) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir + "/out"));
}

TEST(RunCli, WritesTheRunIdentityAndResumesOnlyTheSameCaliber) {
  const std::string dir = fresh_dir("run_identity");
  write_shape_ledger(dir + "/shape_ledger.jsonl", {rms_row(2, 8, DType::fp32), rms_row(3, 8, DType::fp32)});
  write_text(dir + "/baseline_matrix.yaml",
             matrix("  caliber: {enabled: true, entrypoint: \"builtin:caliber\", provider: caliber}\n" +
                    plugin_entry("mine", "caliber_test_correct")));
  const auto r = run_caliber(run_args(dir, {"--limit", "1"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string identity_file = dir + "/out/run_identity.json";
  const RunIdentity id = read_run_identity(identity_file);
  const auto rows = read_benchmark_results(dir + "/out/benchmark_results.jsonl");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(id.run_id, rows.front().run_id);  // one run id for the rows and the identity
  EXPECT_EQ(id.outputs, (std::vector<std::string>{"benchmark_results.jsonl", "benchmark_results.csv"}));
  EXPECT_EQ(id.device.backend, BackendKind::host);
  ASSERT_EQ(id.contracts.size(), 2u);
  EXPECT_EQ(id.contracts[0].role, "kernel_only");
  EXPECT_EQ(id.contracts[0].contract.schedule, Schedule::per_iter);
  EXPECT_EQ(id.contracts[1].role, "eager");
  EXPECT_EQ(id.contracts[1].contract.schedule, Schedule::isolated);
  EXPECT_EQ(id.contracts[1].contract.warmup, 1);  // --warmup 1
  ASSERT_EQ(id.providers.size(), 1u);               // the plugin; built-ins are the harness's own code
  EXPECT_EQ(id.providers[0].role, "mine");
  EXPECT_EQ(id.providers[0].sha256, sha256_file_hex(kPlugin));
  ASSERT_TRUE(id.shape_ledger && id.baseline_matrix);
  EXPECT_EQ(id.shape_ledger->sha256, sha256_file_hex(dir + "/shape_ledger.jsonl"));
  EXPECT_EQ(id.baseline_matrix->sha256, sha256_file_hex(dir + "/baseline_matrix.yaml"));
  EXPECT_EQ(id.command.at(1), "run");  // the parent's command line, not its worker's
  EXPECT_EQ(run_caliber({"identity", dir + "/out"}).exit_code, 0);

  // Resuming with a caliber field changed (as if another build had measured the first rows).
  const std::string other_build = std::string(CALIBER_BUILD_TYPE) == "Debug" ? "Release" : "Debug";
  RunIdentity other = id;
  other.harness.build_type = other_build;
  write_run_identity(identity_file, other);
  auto again = run_caliber(run_args(dir, {"--resume"}));
  EXPECT_EQ(again.exit_code, 4) << again.err;
  EXPECT_NE(again.err.find("caliber run: --resume: A = the run in " + dir + "/out (" + id.run_id +
                           "), B = this session\n"),
            std::string::npos)
      << again.err;
  EXPECT_NE(again.err.find("!!! [caliber] harness.build_type: A=" + other_build + ", B=" + CALIBER_BUILD_TYPE + "\n"),
            std::string::npos)
      << again.err;
  EXPECT_EQ(read_benchmark_results(dir + "/out/benchmark_results.jsonl").size(), 2u);  // nothing measured
  // Without an identity nothing vouches for the rows already there.
  std::filesystem::remove(identity_file);
  again = run_caliber(run_args(dir, {"--resume"}));
  EXPECT_EQ(again.exit_code, 4) << again.err;
  EXPECT_NE(again.err.find("!!! [caliber] run_identity.json: A=<missing: no run_identity.json for " + dir +
                           "/out>, B=present\n"),
            std::string::npos)
      << again.err;
  // The same caliber resumes, and the run keeps the identity written at its start.
  write_run_identity(identity_file, id);
  again = run_caliber(run_args(dir, {"--resume"}));
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(read_benchmark_results(dir + "/out/benchmark_results.jsonl").size(), 4u);
  EXPECT_EQ(read_run_identity(identity_file), id);
}

// --resume with another matrix was accepted, and rows labelled naive were then measured with the
// caliber kernel under the same run id (161,160 us -> 38,796 us).
TEST(RunCli, ResumeRefusesAnotherMatrix) {
  const std::string dir = fresh_dir("run_resume_matrix");
  write_shape_ledger(dir + "/shape_ledger.jsonl", {rms_row(2, 8, DType::fp32), rms_row(3, 8, DType::fp32)});
  const std::string naive = "  naive: {enabled: true, entrypoint: \"builtin:naive\", provider: caliber}\n";
  write_text(dir + "/baseline_matrix.yaml",
             matrix("  caliber: {enabled: true, entrypoint: \"builtin:caliber\", provider: caliber}\n" + naive));
  ASSERT_EQ(run_caliber(run_args(dir, {"--limit", "1"})).exit_code, 0);
  write_text(dir + "/baseline_matrix.yaml",
             matrix("  caliber: {enabled: true, entrypoint: \"builtin:caliber\", provider: caliber}\n"
                    "  naive: {enabled: true, entrypoint: \"builtin:caliber\", provider: caliber}\n"));
  const auto r = run_caliber(run_args(dir, {"--resume"}));
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_NE(r.err.find("!!! [caliber] inputs.baseline_matrix: A="), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("caliber: refused: " + dir + "/out/benchmark_results.jsonl cannot be resumed by this session "
                       "(field inputs.baseline_matrix differs; see the !!! [caliber] lines)"),
            std::string::npos)
      << r.err;
  // The refusal names what run has: no --allow-caliber-mismatch, which run does not take.
  EXPECT_EQ(r.err.find("--allow-caliber-mismatch"), std::string::npos) << r.err;
  EXPECT_EQ(read_benchmark_results(dir + "/out/benchmark_results.jsonl").size(), 2u);
}

// With another ledger whose cells were all done, or with no run_identity.json, --resume exited 0
// and rewrote run_summary.json next to the old rows: the identity is checked even when nothing
// is left to run.
TEST(RunCli, ResumeWithNothingLeftStillChecksTheIdentity) {
  const std::string dir = fresh_dir("run_resume_done");
  write_shape_ledger(dir + "/shape_ledger.jsonl", {rms_row(2, 8, DType::fp32), rms_row(3, 8, DType::fp32)});
  write_text(dir + "/baseline_matrix.yaml",
             matrix("  caliber: {enabled: true, entrypoint: \"builtin:caliber\", provider: caliber}\n"));
  ASSERT_EQ(run_caliber(run_args(dir)).exit_code, 0);
  const std::string summary = slurp(dir + "/out/run_summary.json");
  // The same cells in another ledger file (another row order): every cell is done.
  write_shape_ledger(dir + "/shape_ledger.jsonl", {rms_row(3, 8, DType::fp32), rms_row(2, 8, DType::fp32)});
  auto r = run_caliber(run_args(dir, {"--resume"}));
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_NE(r.err.find("!!! [caliber] inputs.shape_ledger: A="), std::string::npos) << r.err;
  EXPECT_EQ(slurp(dir + "/out/run_summary.json"), summary);
  write_shape_ledger(dir + "/shape_ledger.jsonl", {rms_row(2, 8, DType::fp32), rms_row(3, 8, DType::fp32)});
  std::filesystem::remove(dir + "/out/run_identity.json");
  r = run_caliber(run_args(dir, {"--resume"}));
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_NE(r.err.find("!!! [caliber] run_identity.json: A=<missing: no run_identity.json for " + dir + "/out>"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(slurp(dir + "/out/run_summary.json"), summary);
}

// Two concurrent `run ... --out D` both exited 0 and left 24 rows for 12 cells with two run ids.
TEST(RunCli, OneWriterPerOut) {
  const std::string dir = fresh_dir("run_lock");
  write_shape_ledger(dir + "/shape_ledger.jsonl", {rms_row(2, 8, DType::fp32)});
  write_text(dir + "/baseline_matrix.yaml",
             matrix("  caliber: {enabled: true, entrypoint: \"builtin:caliber\", provider: caliber}\n"));
  std::filesystem::create_directories(dir + "/out");
  const runner::OutDirectoryLock holder(dir + "/out", "pid 42 since 2026-12-01T00:00:00Z: caliber run");
  const auto r = run_caliber(run_args(dir));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "caliber: error: --out " + dir +
                       "/out is in use by another caliber run or batch (pid 42 since 2026-12-01T00:00:00Z: caliber run); wait "
                       "for it to finish, or choose another --out\n");
  EXPECT_FALSE(std::filesystem::exists(dir + "/out/benchmark_results.jsonl"));
}

// SIGTERM or SIGINT ended a run without saying what was kept and without the CSV and summary:
// the run now finishes its current cell, writes both, says what it kept and exits 128 + signal.
TEST(RunCli, AnInterruptedRunFinishesItsCellAndSaysWhatItKept) {
  const std::string dir = fresh_dir("run_sigterm");
  std::vector<ShapeRow> shapes;
  for (std::int64_t m = 1; m <= 30; ++m) shapes.push_back(rms_row(m, 64, DType::fp32));
  write_shape_ledger(dir + "/shape_ledger.jsonl", shapes);
  write_text(dir + "/baseline_matrix.yaml",
             matrix("  caliber: {enabled: true, entrypoint: \"builtin:caliber\", provider: caliber}\n"));
  const std::string results = dir + "/out/benchmark_results.jsonl";
  const pid_t pid = testing_support::start_caliber(run_args(dir, {}, "20"), dir);
  wait_for_rows(results, 3);
  ::kill(pid, SIGTERM);
  EXPECT_EQ(testing_support::wait_exit_code(pid), 128 + SIGTERM);
  const std::string err = slurp(dir + "/stderr.txt");
  const auto rows = read_benchmark_results(results);
  ASSERT_GE(rows.size(), 3u);
  ASSERT_LT(rows.size(), 30u) << "the run finished before the signal; the test proves nothing";
  EXPECT_NE(err.find(fmt::format("caliber run: interrupted by SIGTERM: kept {} of 30 cells ({} this session) in {}, "
                                 "with benchmark_results.csv and run_summary.json; --resume continues with the other {}\n",
                                 rows.size(), rows.size(), results, 30 - rows.size())),
            std::string::npos)
      << err;
  EXPECT_EQ(read_benchmark_results_csv(dir + "/out/benchmark_results.csv").size(), rows.size());
  const auto summary = nlohmann::json::parse(slurp(dir + "/out/run_summary.json"));
  EXPECT_EQ(summary["session"]["interrupted_by"], "SIGTERM");
  EXPECT_EQ(summary["session"]["cells"].get<std::size_t>(), rows.size());
  for (const auto& row : rows) EXPECT_EQ(row.benchmark_status, BenchmarkStatus::ok);  // no cell cut short
  const auto again = run_caliber(run_args(dir, {"--resume"}, "20"));
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(read_benchmark_results(results).size(), 30u);
}

TEST(RunCli, TheExamplePluginRunsAgainstTheBuiltins) {
  const std::string dir = fresh_dir("run_example_plugin");
  write_shape_ledger(dir + "/shape_ledger.jsonl", {rms_row(5, 24, DType::fp32), rms_row(3, 40, DType::bf16)});
  const std::string m = slurp(std::string(CALIBER_SOURCE_DIR) + "/examples/plugin/baseline_matrix.yaml");
  write_text(dir + "/baseline_matrix.yaml", m);
  ::setenv("CALIBER_PLUGIN_DIR", CALIBER_PLUGIN_BUILD_DIR, 1);
  const auto r = run_caliber(run_args(dir));
  ::unsetenv("CALIBER_PLUGIN_DIR");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rows = read_benchmark_results(dir + "/out/benchmark_results.jsonl");
  ASSERT_EQ(rows.size(), 6u);
  for (const auto& row : rows) {
    EXPECT_EQ(row.benchmark_status, BenchmarkStatus::ok) << row.provider << ": " << row.status_reason.value_or("");
    // The device telemetry summary travels with every row: on the host, "not applicable" and why.
    ASSERT_TRUE(row.telemetry.has_value()) << row.provider;
    EXPECT_EQ((*row.telemetry)["available"], false);
    EXPECT_EQ((*row.telemetry)["reason"], "the host backend has no device telemetry");
  }
  // The code this run executed: the caliber binary (built-in providers) and the example plugin,
  // per library (docs/screen.md), for caliber screen.
  const CodeFingerprint f = read_code_fingerprint(dir + "/out/" + kCodeFingerprintFileName);
  EXPECT_EQ(f.source, "host ELF code sections of each provider library (a Python provider: its file's bytes)");
  std::vector<std::string> names;
  for (const auto& c : f.code) names.push_back(c.name);
  EXPECT_NE(std::find(names.begin(), names.end(), "caliber"), names.end());
  EXPECT_EQ(names.size(), 2u) << testing::PrintToString(names);
  EXPECT_TRUE(f.unresolved.empty());
}

TEST(RunCli, TheShippedHostGemmMatrixWithTheOpenblasPlugin) {
#ifndef CALIBER_HAVE_OPENBLAS_PLUGIN
  GTEST_SKIP() << "OpenBLAS was not found at configure time: no openblas plugin";
#else
  const std::string dir = fresh_dir("run_host_gemm");
  ledger::RowTemplate t;
  t.op = ops::OpType::gemm;
  std::vector<ShapeRow> shapes;
  for (DType d : {DType::fp32, DType::bf16}) {
    shapes.push_back(ledger::make_row(t, d, {{"m", 33}, {"n", 65}, {"k", 17}}, Stage::mixed, std::nullopt,
                                      {SourceKind::manual, "test", ""}, ""));
  }
  write_shape_ledger(dir + "/shape_ledger.jsonl", shapes);
  ::setenv("CALIBER_PLUGIN_DIR", CALIBER_PLUGIN_BUILD_DIR, 1);
  const auto r = run_caliber({"run", "--op", "gemm", "--backend", "host", "--shape-ledger", dir + "/shape_ledger.jsonl",
                              "--baseline-matrix", std::string(CALIBER_SOURCE_DIR) + "/matrices/host/gemm/baseline_matrix.yaml",
                              "--out", dir + "/out", "--max-time-ms", "2"});
  ::unsetenv("CALIBER_PLUGIN_DIR");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rows = read_benchmark_results(dir + "/out/benchmark_results.jsonl");
  ASSERT_EQ(rows.size(), 6u);
  for (const auto& row : rows) {
    const bool bf16_blas = row.provider == "openblas" && row.dtype == "bf16";
    EXPECT_EQ(row.benchmark_status, bf16_blas ? BenchmarkStatus::unsupported : BenchmarkStatus::ok)
        << row.provider << " " << row.dtype << ": " << row.status_reason.value_or("");
    if (row.provider == "openblas" && row.dtype == "fp32") {
      EXPECT_NE(row.provider_detail.find("cblas_sgemm"), std::string::npos) << row.provider_detail;
    }
  }
#endif
}

}  // namespace
}  // namespace caliber
