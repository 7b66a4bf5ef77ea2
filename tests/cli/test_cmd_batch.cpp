// caliber batch end to end on the host backend (docs/batch.md, docs/campaigns.md): a campaign over
// two ops and two shards on one device with a provider that crashes on one shape, one that is
// flaky (fails on its first attempt only) and one that hangs: the campaign completes, the crash
// and the hang cost their cells, the flaky cell is retried and ends ok; kill -9 of the campaign
// then --resume loses and duplicates nothing and re-runs the failed cells; receipts verify;
// re-accounting demotes and never promotes; the merged results are read by report and compare.
#include <signal.h>
#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <set>
#include <thread>

#include <gtest/gtest.h>

#include <algorithm>

#include "results/benchmark_results.h"
#include "caliber/run_identity.h"
#include "core/json_fields.h"
#include "core/sha256.h"
#include "ledger/importers.h"
#include "runner/shape_inputs.h"
#include "support/cli_run.h"
#include "support/manual_row.h"
#include "io/benchmark_results_json.h"
#include "io/shape_ledger_json.h"
#include "runner/out_lock.h"

namespace caliber {
namespace {

namespace fs = std::filesystem;
using testing_support::fresh_dir;
using testing_support::run_caliber;
using testing_support::slurp;
using testing_support::write_text;

const std::string kPlugin = CALIBER_TEST_PLUGIN;

ShapeRow row(ops::OpType op, std::int64_t m, std::int64_t n) {
  nlohmann::json args = {{"m", m}, {"n", n}};
  if (op == ops::OpType::rmsnorm || op == ops::OpType::layernorm) args["eps"] = 1e-6;
  return testing_support::manual_row(op, DType::fp32, args);
}

std::string matrix(const std::string& op, const std::string& providers) {
  return "schema_version: 1\nkernel: " + op + "\nop_type: " + op +
         "\ndtype: [fp32]\nreference_provider: caliber\nlayout_contract: row_major\nproviders:\n"
         "  caliber: {enabled: true, entrypoint: \"builtin:caliber\", provider: caliber}\n" +
         providers;
}

std::string plugin(const std::string& name, const std::string& symbol) {
  return "  " + name + ": {enabled: true, entrypoint: \"" + kPlugin + ":" + symbol + "\", provider: plugin}\n";
}

struct Campaign {
  std::string dir, out;
  std::vector<std::string> args;
};

// rmsnorm: caliber, crashes (m == 13), flaky (m == 13, first attempt); softmax: caliber, hangs
// (m == 13). Three rmsnorm shapes and two softmax shapes: 13 cells over two shards each.
Campaign make_campaign(const std::string& name) {
  Campaign c;
  c.dir = fresh_dir(name);
  c.out = c.dir + "/campaign";
  write_shape_ledger(c.dir + "/shape_ledger.jsonl",
                     {row(ops::OpType::rmsnorm, 4, 8), row(ops::OpType::rmsnorm, 13, 8), row(ops::OpType::rmsnorm, 6, 16),
                      row(ops::OpType::softmax, 4, 8), row(ops::OpType::softmax, 13, 8)});
  write_text(c.dir + "/rmsnorm.baseline_matrix.yaml",
             matrix("rmsnorm", plugin("crashes", "caliber_test_crash") + plugin("flaky", "caliber_test_flaky")));
  write_text(c.dir + "/softmax.baseline_matrix.yaml", matrix("softmax", plugin("hangs", "caliber_test_hang")));
  ::setenv("CALIBER_TEST_FLAKY_FILE", (c.dir + "/flaky_attempted").c_str(), 1);
  c.args = {"batch", "--op", "rmsnorm,softmax", "--backend", "host", "--devices", "0,0", "--shape-ledger",
            c.dir + "/shape_ledger.jsonl", "--baseline-matrix",
            c.dir + "/rmsnorm.baseline_matrix.yaml," + c.dir + "/softmax.baseline_matrix.yaml", "--out", c.out,
            "--retries", "2", "--cell-timeout-s", "2", "--min-time-ms", "0", "--max-time-ms", "2", "--min-samples",
            "6", "--warmup", "1", "--verification-seed", "1234"};
  return c;
}

std::map<std::string, BenchmarkStatus> statuses(const std::string& results) {
  std::map<std::string, BenchmarkStatus> out;
  for (const auto& r : read_benchmark_results(results)) out[std::to_string(r.args.at("m").get<int>()) + "/" + r.op_type + "/" + r.provider] = r.benchmark_status;
  return out;
}

// Every file under `dir` with its bytes: what "nothing written inside it" is checked against.
std::map<std::string, std::string> tree(const std::string& dir) {
  std::map<std::string, std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.is_regular_file()) out[e.path().string()] = slurp(e.path().string());
  }
  return out;
}

TEST(BatchCli, DryRunPrintsThePlanAndWritesNothing) {
  Campaign c = make_campaign("batch_dry");
  c.args.push_back("--dry-run");
  const auto r = run_caliber(c.args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(fs::exists(c.out));
  EXPECT_NE(r.out.find("manifest sha256"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("time budget: expected"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("canary: rmsnorm"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("13 cells"), std::string::npos) << r.out;
}

TEST(BatchCli, CrashAndHangCostTheirCellsTheFlakyCellIsRetried) {
  const Campaign c = make_campaign("batch_campaign");
  const auto r = run_caliber(c.args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto st = statuses(c.out + "/benchmark_results.jsonl");
  ASSERT_EQ(st.size(), 13u) << r.err;
  EXPECT_EQ(st.at("13/rmsnorm/crashes"), BenchmarkStatus::failed);
  EXPECT_EQ(st.at("13/softmax/hangs"), BenchmarkStatus::failed);
  EXPECT_EQ(st.at("13/rmsnorm/flaky"), BenchmarkStatus::ok);  // retried: ok on its second attempt
  // Every shard measured on the campaign's input seed, the one its manifest records.
  const auto manifest = nlohmann::json::parse(slurp(c.out + "/campaign_manifest.json"));
  const auto seed = manifest.at("frozen").at("seeds").at("inputs").get<std::uint64_t>();
  for (const auto& row : read_benchmark_results(c.out + "/benchmark_results.jsonl")) {
    if (row.integrity.input_seed) {
      EXPECT_EQ(*row.integrity.input_seed, runner::shape_seeds(row.shape_id, seed, 0).inputs) << row.shape_id;
    }
  }
  EXPECT_EQ(st.at("4/rmsnorm/crashes"), BenchmarkStatus::ok);
  EXPECT_EQ(st.at("13/rmsnorm/caliber"), BenchmarkStatus::ok);
  EXPECT_EQ(st.at("4/softmax/hangs"), BenchmarkStatus::ok);
  EXPECT_TRUE(fs::exists(c.out + "/campaign_seal.json")) << r.err;
  EXPECT_TRUE(fs::exists(c.out + "/campaign_manifest.json"));
  EXPECT_TRUE(fs::exists(c.out + "/run_identity.json"));
  // The crash ran twice (the same failure twice stops the retries: not three attempts).
  bool crash_stopped = false;
  for (const auto& e : fs::recursive_directory_iterator(c.out + "/shards")) {
    if (e.path().filename() != "attempts.jsonl") continue;
    const std::string text = slurp(e.path().string());
    if (text.find("deterministic: the same failure twice") != std::string::npos) crash_stopped = true;
  }
  EXPECT_TRUE(crash_stopped);
  const auto status = parse_json_document(slurp(c.out + "/batch_status.json"), "batch_status.json");
  EXPECT_EQ(status.at("state"), "sealed");
  EXPECT_EQ(status.at("cells").at("total"), 13);
  // Where the time went, from the merged rows: the one session ran every row, so the ratios exist.
  const auto& time = status.at("time");
  EXPECT_EQ(time.at("rows"), 13);
  EXPECT_GT(time.at("inside_contracts_ms").get<double>(), 0.0);
  EXPECT_GT(time.at("wall_ms").get<double>(), time.at("cells_wall_ms").get<double>());
  EXPECT_GT(time.at("per_cell_ms").at("timing").get<double>(), 0.0);
  EXPECT_NE(r.err.find("caliber batch: time: wall "), std::string::npos) << r.err;

  // Receipts verify; an edited row does not.
  const auto v = run_caliber({"campaign", "verify", c.out});
  EXPECT_EQ(v.exit_code, 0) << v.out << v.err;
  EXPECT_NE(v.out.find("13 receipt(s) checked, sealed, 0 problem(s)"), std::string::npos) << v.out;

  // The merged set is a run directory for report and compare.
  const auto report = run_caliber({"report", "--shape-ledger", c.out + "/inputs/shape_ledger.jsonl", "--results",
                                   c.out + "/benchmark_results.jsonl", "--out", c.dir + "/report", "--candidate",
                                   "caliber"});
  EXPECT_EQ(report.exit_code, 0) << report.err;
  const auto compare = run_caliber({"compare", c.out, c.out});
  EXPECT_NE(compare.exit_code, 4) << compare.err;

  // Re-accounting: nothing changes the campaign; a tampered receipt demotes its (ok) cell; the
  // failed cells stay failed.
  const auto before = tree(c.out);
  const std::string copy = c.dir + "/tampered";
  fs::copy(c.out, copy, fs::copy_options::recursive);
  std::string receipt_path;
  for (const auto& e : fs::recursive_directory_iterator(copy + "/receipts")) {
    if (e.path().string().find(".flaky.json") != std::string::npos) receipt_path = e.path().string();
  }
  ASSERT_FALSE(receipt_path.empty());
  for (const auto& e : fs::recursive_directory_iterator(copy + "/receipts/rmsnorm")) {
    const std::string text = slurp(e.path().string());
    if (text.find("\"benchmark_status\": \"ok\"") != std::string::npos &&
        text.find("\"provider\": \"flaky\"") != std::string::npos) {
      std::string edited = text;
      edited.replace(edited.find("\"attempts_this_session\": "), 25, "\"attempts_this_session\":  ");
      write_text(e.path().string(), edited + " ");
      break;
    }
  }
  const auto re = run_caliber({"campaign", "reaccount", copy, "--out", c.dir + "/reaccounted"});
  EXPECT_EQ(re.exit_code, 1) << re.out << re.err;  // something was demoted
  const auto after = statuses(c.dir + "/reaccounted/benchmark_results.jsonl");
  ASSERT_EQ(after.size(), 13u);
  std::size_t demoted = 0;
  for (const auto& [cell, s] : st) {
    if (s != BenchmarkStatus::ok) EXPECT_EQ(after.at(cell), s) << cell;  // never promoted
    if (s == BenchmarkStatus::ok && after.at(cell) != BenchmarkStatus::ok) ++demoted;
  }
  EXPECT_GE(demoted, 1u);
  EXPECT_EQ(after.at("13/rmsnorm/crashes"), BenchmarkStatus::failed);
  const auto untouched = run_caliber({"campaign", "reaccount", c.out, "--out", c.dir + "/reaccounted_clean"});
  EXPECT_EQ(untouched.exit_code, 0) << untouched.out << untouched.err;
  EXPECT_EQ(tree(c.out), before);  // re-accounting never writes inside a campaign
  const auto inside = run_caliber({"campaign", "reaccount", c.out, "--out", c.out + "/re"});
  EXPECT_EQ(inside.exit_code, 2) << inside.err;
  // A sealed campaign is final.
  std::vector<std::string> resume = c.args;
  resume.push_back("--resume");
  EXPECT_EQ(run_caliber(resume).exit_code, 2);
}

TEST(BatchCli, KillNineThenResumeLosesAndDuplicatesNothing) {
  const Campaign c = make_campaign("batch_kill");
  const pid_t pid = testing_support::start_caliber(c.args, c.dir);
  // Wait until a few rows are in (the hanging cell then keeps a shard busy for its 2 s limit).
  const auto start = std::chrono::steady_clock::now();
  std::size_t rows = 0;
  while (std::chrono::steady_clock::now() - start < std::chrono::seconds(60)) {
    rows = 0;
    if (fs::exists(c.out + "/shards")) {
      for (const auto& e : fs::recursive_directory_iterator(c.out + "/shards")) {
        if (e.path().filename() == "benchmark_results.jsonl") rows += testing_support::count_lines(slurp(e.path().string()));
      }
    }
    if (rows >= 4) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_GE(rows, 4u) << slurp(c.dir + "/stderr.txt");
  ::kill(pid, SIGKILL);
  testing_support::wait_exit_code(pid);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // the shards die with it (PR_SET_PDEATHSIG)
  EXPECT_FALSE(fs::exists(c.out + "/campaign_seal.json"));

  std::vector<std::string> resume = c.args;
  resume.push_back("--resume");
  const auto r = run_caliber(resume);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // The strict reader refuses a duplicated cell; every planned cell has exactly one row.
  const auto st = statuses(c.out + "/benchmark_results.jsonl");
  EXPECT_EQ(st.size(), 13u);
  EXPECT_EQ(read_benchmark_results(c.out + "/benchmark_results.jsonl").size(), 13u);
  EXPECT_EQ(st.at("13/rmsnorm/crashes"), BenchmarkStatus::failed);
  EXPECT_EQ(st.at("13/rmsnorm/flaky"), BenchmarkStatus::ok);
  EXPECT_EQ(st.at("4/rmsnorm/caliber"), BenchmarkStatus::ok);
  // The failed cells ran again in the second session.
  bool session_two_reran = false;
  for (const auto& e : fs::recursive_directory_iterator(c.out + "/shards")) {
    if (e.path().filename() != "attempts.jsonl") continue;
    if (slurp(e.path().string()).find("\"session\":2") != std::string::npos) session_two_reran = true;
  }
  EXPECT_TRUE(session_two_reran);
  EXPECT_TRUE(fs::exists(c.out + "/campaign_seal.json")) << r.err;
  EXPECT_EQ(run_caliber({"campaign", "verify", c.out}).exit_code, 0);
}

// A cell that hangs past the shard's time limit (its caliber run is killed as a process group,
// --cell-timeout-s far away): the batch writes its failed row, naming it the cell the run was
// running (from the run's cell_in_flight.json), with the time from its start to the kill. The limit
// also bounds the canary's run (one cell), so it leaves room for a loaded 2-core CI machine: at
// 3 s the canary itself once timed out there.
TEST(BatchCli, AShardTimeoutCostsTheCellItWasRunningWithItsWallTime) {
  const std::string dir = fresh_dir("batch_in_flight");
  const std::string out = dir + "/campaign";
  write_shape_ledger(dir + "/shape_ledger.jsonl", {row(ops::OpType::softmax, 4, 8), row(ops::OpType::softmax, 13, 8)});
  write_text(dir + "/softmax.baseline_matrix.yaml", matrix("softmax", plugin("hangs", "caliber_test_hang")));
  const auto r = run_caliber({"batch", "--op", "softmax", "--backend", "host", "--devices", "0", "--shape-ledger",
                              dir + "/shape_ledger.jsonl", "--baseline-matrix", dir + "/softmax.baseline_matrix.yaml",
                              "--out", out, "--retries", "0", "--shard-timeout-s", "12", "--kill-after-s", "1",
                              "--cell-timeout-s", "600", "--min-time-ms", "0", "--max-time-ms", "2", "--min-samples",
                              "6", "--warmup", "1", "--verification-seed", "1234"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto st = statuses(out + "/benchmark_results.jsonl");
  ASSERT_EQ(st.size(), 4u) << r.err;
  EXPECT_EQ(st.at("4/softmax/hangs"), BenchmarkStatus::ok);
  EXPECT_EQ(st.at("13/softmax/caliber"), BenchmarkStatus::ok);
  EXPECT_EQ(st.at("13/softmax/hangs"), BenchmarkStatus::failed);
  std::optional<BenchmarkResultRow> hung;
  for (const auto& row : read_benchmark_results(out + "/benchmark_results.jsonl")) {
    if (row.provider == "hangs" && row.args.at("m") == 13) hung = row;
  }
  ASSERT_TRUE(hung);
  EXPECT_EQ(hung->status_reason, "the shard's caliber run was stopped at --shard-timeout-s 12 s before this cell's "
                                 "row was written (caliber batch: the cell it was running, per its "
                                 "cell_in_flight.json)");
  // From the cell's start to the kill: more than nothing, less than the attempt.
  const auto attempt = parse_json_document(slurp(out + "/shards/softmax/s0/attempts.jsonl"), "attempts.jsonl");
  EXPECT_GT(hung->cell_wall_time_ms, 0.0);
  EXPECT_LT(hung->cell_wall_time_ms, attempt.at("elapsed_s").get<double>() * 1000.0 + 100.0);
}

// One process measures every shard of a device (docs/batch.md, "One process per device"): each
// shard's caliber run is served by the device's server, which opened the device once; a provider
// that leaves a thread running ends its server, and the next shard gets a fresh one.
TEST(BatchCli, TheShardsOfADeviceAreMeasuredByOneProcess) {
  const std::string dir = fresh_dir("batch_device_server");
  write_shape_ledger(dir + "/shape_ledger.jsonl", {row(ops::OpType::rmsnorm, 4, 8), row(ops::OpType::rmsnorm, 6, 16),
                                                   row(ops::OpType::softmax, 4, 8), row(ops::OpType::layernorm, 4, 8)});
  write_text(dir + "/rmsnorm.baseline_matrix.yaml", matrix("rmsnorm", ""));
  write_text(dir + "/softmax.baseline_matrix.yaml", matrix("softmax", plugin("lingers", "caliber_test_leave_thread")));
  write_text(dir + "/layernorm.baseline_matrix.yaml", matrix("layernorm", ""));
  const std::string out = dir + "/campaign";
  const auto r = run_caliber({"batch", "--op", "rmsnorm,softmax,layernorm", "--backend", "host", "--devices", "0",
                              "--shape-ledger", dir + "/shape_ledger.jsonl", "--baseline-matrix",
                              dir + "/rmsnorm.baseline_matrix.yaml," + dir + "/softmax.baseline_matrix.yaml," + dir +
                                  "/layernorm.baseline_matrix.yaml",
                              "--out", out, "--min-time-ms", "0", "--max-time-ms", "2", "--min-samples", "6",
                              "--warmup", "1", "--verification-seed", "1234"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto st = statuses(out + "/benchmark_results.jsonl");
  ASSERT_EQ(st.size(), 5u) << r.err;
  for (const auto& [cell, status] : st) EXPECT_EQ(status, BenchmarkStatus::ok) << cell;
  for (const std::string op : {"rmsnorm", "softmax", "layernorm"}) {
    const auto summary = parse_json_document(slurp(out + "/shards/" + op + "/s0/run_summary.json"), op);
    EXPECT_EQ(summary.at("session").at("device_server_runs"), 1) << op;
    EXPECT_EQ(summary.at("session").at("worker_starts"), 1) << op;
  }
  // rmsnorm and softmax by the first server, which ended after softmax's run; layernorm by a second.
  const std::string log = slurp(out + "/device_server_0.log");
  std::size_t servers = 0;
  for (auto at = log.find("serving runs"); at != std::string::npos; at = log.find("serving runs", at + 1)) ++servers;
  EXPECT_EQ(servers, 2u) << log;
  EXPECT_NE(log.find("run 2 done (exit code 0)"), std::string::npos) << log;
  EXPECT_NE(log.find("the run left threads running"), std::string::npos) << log;
}

// Two batches into one --out: the second is refused while the first holds the directory, and
// writes nothing there.
TEST(BatchCli, ASecondBatchIntoTheSameOutIsRefusedWhileTheFirstRuns) {
  Campaign c = make_campaign("batch_locked");
  fs::create_directories(c.out);
  {
    runner::OutDirectoryLock first(c.out, "pid 42 since 2026-12-01T00:00:00Z: caliber batch");
    const auto r = run_caliber(c.args);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("is in use by another caliber run or batch (pid 42 since 2026-12-01T00:00:00Z: caliber "
                         "batch)"),
              std::string::npos)
        << r.err;
    EXPECT_FALSE(fs::exists(fs::path(c.out) / "campaign_manifest.json"));
    // A resume while the campaign runs is refused before it reads the manifest.
    write_text(c.out + "/campaign_manifest.json", "{}");
    c.args.push_back("--resume");
    const auto resumed = run_caliber(c.args);
    EXPECT_EQ(resumed.exit_code, 2) << resumed.err;
    EXPECT_NE(resumed.err.find("is in use by another caliber run or batch"), std::string::npos) << resumed.err;
  }
  EXPECT_FALSE(fs::exists(fs::path(c.out) / runner::kOutLockFileName));
}

// An --out that cannot be written is a usage error naming it, as for caliber run: exit 2, one line.
TEST(BatchCli, AnOutThatCannotBeWrittenIsAUsageError) {
  Campaign c = make_campaign("batch_unwritable");
  write_text(c.dir + "/a_file", "not a directory\n");
  const auto out = std::find(c.args.begin(), c.args.end(), "--out");
  ASSERT_NE(out, c.args.end());
  *(out + 1) = c.dir + "/a_file/campaign";
  const auto r = run_caliber(c.args);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--out " + c.dir + "/a_file/campaign: " + c.dir + "/a_file is not a directory"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("filesystem error"), std::string::npos) << r.err;
}

// Deleting the seal, editing a measured row in its shard, then --resume merged the edited number
// under fresh receipts and a new seal. A resume now verifies the rows against their receipts
// before it merges anything; with nothing edited, a campaign whose seal is missing is sealed again.
TEST(BatchCli, AResumeDoesNotSealRowsEditedAfterTheirReceipts) {
  Campaign c = make_campaign("batch_launder");
  c.args.insert(c.args.end(), {"--limit", "1"});
  ASSERT_EQ(run_caliber(c.args).exit_code, 0);
  std::vector<std::string> resume = c.args;
  resume.push_back("--resume");
  fs::remove(c.out + "/campaign_seal.json");
  auto r = run_caliber(resume);  // nothing edited: sealed again
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_TRUE(fs::exists(c.out + "/campaign_seal.json"));
  // An ok row of a shard, its median divided by ten.
  std::string shard_results, text;
  std::size_t at = std::string::npos;
  for (const auto& e : fs::recursive_directory_iterator(c.out + "/shards")) {
    if (e.path().filename() != "benchmark_results.jsonl") continue;
    text = slurp(e.path().string());
    const std::size_t ok = text.find("\"benchmark_status\":\"ok\"");
    if (ok == std::string::npos) continue;
    const std::size_t line_start = text.rfind('\n', ok) == std::string::npos ? 0 : text.rfind('\n', ok) + 1;
    at = text.find("\"median_us\":", line_start);
    ASSERT_LT(at, text.find('\n', ok));
    shard_results = e.path().string();
    break;
  }
  ASSERT_NE(at, std::string::npos);
  const std::size_t value = at + std::string("\"median_us\":").size();
  const std::size_t end = text.find_first_of(",}", value);
  const double median = std::stod(text.substr(value, end - value));
  text.replace(value, end - value, std::to_string(median / 10));
  write_text(shard_results, text);
  fs::remove(c.out + "/campaign_seal.json");
  const std::string merged_before = slurp(c.out + "/benchmark_results.jsonl");
  r = run_caliber(resume);
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_NE(r.err.find("changed after they were written"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("is not the row its receipt"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(c.out + "/campaign_seal.json"));
  EXPECT_EQ(slurp(c.out + "/benchmark_results.jsonl"), merged_before);  // nothing merged
  const auto verify = run_caliber({"campaign", "verify", c.out});
  EXPECT_NE(verify.exit_code, 0) << verify.out;
}

// The verification seed decides which output rows the untimed check compares: no file or command
// line of a campaign may hold it, or the code measured could read it there. Drawn, the manifest
// says so and the shards' runs draw their own; pinned (the user's, on the campaign's command line
// anyway), the seeds field keeps its hash, and a resume must be given the same seed.
TEST(BatchCli, TheVerificationSeedIsWrittenNowhere) {
  const std::string dir = fresh_dir("batch_seed");
  write_shape_ledger(dir + "/shape_ledger.jsonl", {row(ops::OpType::rmsnorm, 4, 8), row(ops::OpType::rmsnorm, 6, 16)});
  write_text(dir + "/rmsnorm.baseline_matrix.yaml", matrix("rmsnorm", ""));
  std::vector<std::string> args = {"batch", "--op", "rmsnorm", "--backend", "host", "--devices", "0,0",
                                   "--shape-ledger", dir + "/shape_ledger.jsonl", "--baseline-matrix",
                                   dir + "/rmsnorm.baseline_matrix.yaml", "--out", dir + "/drawn", "--min-time-ms",
                                   "0", "--max-time-ms", "2", "--min-samples", "6", "--warmup", "1"};
  auto r = run_caliber(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto seeds = [](const std::string& out) {
    return nlohmann::json::parse(slurp(out + "/campaign_manifest.json")).at("frozen").at("seeds").at("verification");
  };
  EXPECT_EQ(seeds(dir + "/drawn"), "drawn");
  std::size_t identities = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir + "/drawn/shards")) {
    if (e.path().filename() != "run_identity.json") continue;
    ++identities;
    const auto id = nlohmann::json::parse(slurp(e.path().string()));
    EXPECT_EQ(id.at("command").dump().find("--verification-seed"), std::string::npos) << e.path();
  }
  EXPECT_EQ(identities, 2u);

  args[12] = dir + "/pinned";
  args.insert(args.end(), {"--verification-seed", "1234", "--limit", "1"});
  ASSERT_EQ(run_caliber(args).exit_code, 0);
  EXPECT_EQ(seeds(dir + "/pinned"), "sha256:" + sha256_hex("0000000000001234"));
  fs::remove(dir + "/pinned/campaign_seal.json");
  args.insert(args.end(), {"--resume"});
  args[args.size() - 4] = "4321";  // another seed
  r = run_caliber(args);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("was frozen with other options or inputs"), std::string::npos) << r.err;
}

TEST(BatchCli, ResumeRefusesOtherOptions) {
  Campaign c = make_campaign("batch_other_options");
  c.args.insert(c.args.end(), {"--limit", "1"});
  ASSERT_EQ(run_caliber(c.args).exit_code, 0);
  std::vector<std::string> again = c.args;
  EXPECT_EQ(run_caliber(again).exit_code, 2);  // a campaign is there: --resume or another --out
  again.push_back("--resume");
  const auto max_time = std::find(again.begin(), again.end(), "--max-time-ms");
  ASSERT_NE(max_time, again.end());
  *(max_time + 1) = std::to_string(std::stoi(*(max_time + 1)) + 1);  // another sampling limit
  const auto r = run_caliber(again);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("was frozen with other options or inputs"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace caliber
