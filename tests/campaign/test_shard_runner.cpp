#include "campaign/shard_runner.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "results/benchmark_results.h"
#include "caliber/run_identity_json.h"
#include "ledger/importers.h"
#include "runner/cell_in_flight.h"
#include "runner/result_rows.h"
#include "support/sample_identity.h"
#include "io/benchmark_results_json.h"

namespace caliber::campaign {
namespace {

namespace fs = std::filesystem;

ShapeRow shape(std::int64_t m) {
  ledger::RowTemplate t;
  t.op = ops::OpType::rmsnorm;
  return ledger::make_row(t, DType::fp32, {{"m", m}, {"n", 64}, {"eps", 1e-6}}, Stage::mixed, std::nullopt,
                          {SourceKind::manual, "test", ""}, "");
}

std::string row_line(const ShapeRow& s, const std::string& provider, BenchmarkStatus status, std::string reason) {
  runner::RowProvenance id;
  id.run_id = "shard-runner-test";
  BenchmarkResultRow r = runner::base_row(id, s, provider);
  r.benchmark_status = status;
  r.status_reason = std::move(reason);
  r.finished_at = "2026-12-03T12:00:00Z";
  return to_json(r, false).dump();
}

// The shard's results file replaced by a longer one while the batch reads it (caliber run
// --rerun-cells rewrites it by atomic rename, then appends): an offset into the old file points
// inside a row of the new one. The rows are read from the start of the new file, whole.
TEST(ShardRunner, AResultsFileReplacedWhileItIsReadIsReadAgainFromItsStart) {
  const fs::path dir = fs::temp_directory_path() / ("caliber_shard_runner_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "shard");
  const ShapeRow a = shape(8), b = shape(16);
  const std::string file = (dir / "shard" / kBenchmarkResultsFileName).string();
  // The "runner": one row, a pause (the batch reads it), then the file replaced by one whose
  // first row is longer, then a pause (the batch reads again), then it exits.
  {
    std::ofstream(dir / "first.jsonl") << row_line(a, "naive", BenchmarkStatus::unsupported, "too small") << '\n';
    std::ofstream(dir / "second.jsonl")
        << row_line(b, "naive", BenchmarkStatus::skipped, std::string(300, 'x')) << '\n'
        << row_line(a, "naive", BenchmarkStatus::unsupported, "too small") << '\n';
    std::ofstream script(dir / "runner.sh");
    script << "#!/bin/sh\ncat " << (dir / "first.jsonl") << " >> " << file << "\nsleep 0.5\ncp "
           << (dir / "second.jsonl") << " " << file << ".tmp && mv " << file << ".tmp " << file
           << "\nsleep 0.5\nexit 0\n";
  }
  fs::permissions(dir / "runner.sh", fs::perms::owner_all);
  ShardWork work;
  work.name = "rmsnorm/s0";
  work.dir = (dir / "shard").string();
  work.op = "rmsnorm";
  work.shapes = {a, b};
  work.providers = {"naive"};
  RetryPolicy policy;
  policy.shard_timeout_s = 30;
  policy.kill_after_s = 1;
  ShardRunner runner(work, policy, (dir / "runner.sh").string(), 1);
  std::size_t most_rows = 0;
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (runner.state() != ShardRunner::State::done && std::chrono::steady_clock::now() < until) {
    ASSERT_NO_THROW(runner.step());
    most_rows = std::max(most_rows, runner.rows());
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(runner.state(), ShardRunner::State::done) << runner.note();
  EXPECT_EQ(most_rows, 2u);
  EXPECT_EQ(runner.cells().at({a.shape_id, "naive"}).status, BenchmarkStatus::unsupported);
  EXPECT_EQ(runner.cells().at({b.shape_id, "naive"}).status, BenchmarkStatus::skipped);
  fs::remove_all(dir);
}

using runner::CellKey;

runner::CellInFlight in_flight(const std::string& shape_id, const std::string& provider, int pid, double started_ms) {
  runner::CellInFlight c;
  c.run_id = "shard-runner-test";
  c.pid = pid;
  c.shape_id = shape_id;
  c.provider = provider;
  c.started_at = "2026-12-03T12:00:00Z";
  c.started_unix_ms = started_ms;
  return c;
}

// The untimed calls of every provider of a shape run before any is timed: while provider p2 is in
// its untimed call, p1 and p2 have no row. The file names p2: p2 it is, with the time since its start.
TEST(ShardRunner, TheCellInFlightIsTheOneTheRunNamedNotTheFirstWithoutARow) {
  const std::vector<CellKey> order = {{"A", "p1"}, {"A", "p2"}, {"A", "p3"}, {"B", "p1"}};
  const auto at_end = cell_in_flight_at_end(order, {}, in_flight("A", "p2", 700, 1000.0), 700, 1250.5);
  ASSERT_TRUE(at_end);
  EXPECT_EQ(at_end->cell, (CellKey{"A", "p2"}));
  EXPECT_TRUE(at_end->named);
  EXPECT_EQ(at_end->wall_time_ms, 250.5);
  // The system clock set back between the start and the end: no negative wall time.
  EXPECT_EQ(cell_in_flight_at_end(order, {}, in_flight("A", "p2", 700, 2000.0), 700, 1250.5)->wall_time_ms, 0.0);
}

// When nothing says which cell was running, the first cell without a row (the shard's next cell),
// with no wall time: nothing says when it began.
TEST(ShardRunner, WithoutAUsableNameTheCellInFlightIsTheShardsNextCell) {
  const std::vector<CellKey> order = {{"A", "p1"}, {"A", "p2"}, {"A", "p3"}, {"B", "p1"}};
  const std::set<CellKey> with_rows = {{"A", "p1"}};
  const auto expect_next = [&](const std::optional<runner::CellInFlight>& file, const char* what) {
    const auto at_end = cell_in_flight_at_end(order, with_rows, file, 700, 5000.0);
    ASSERT_TRUE(at_end) << what;
    EXPECT_EQ(at_end->cell, (CellKey{"A", "p2"})) << what;
    EXPECT_FALSE(at_end->named) << what;
    EXPECT_EQ(at_end->wall_time_ms, 0.0) << what;
  };
  expect_next(std::nullopt, "no file");
  expect_next(in_flight("A", "p3", 699, 1000.0), "written by another process");
  expect_next(in_flight("A", "p1", 700, 1000.0), "a cell with a row: the run was between cells");
  expect_next(in_flight("C", "p1", 700, 1000.0), "a cell that is not the shard's");
  EXPECT_FALSE(cell_in_flight_at_end(order, {order.begin(), order.end()}, in_flight("A", "p2", 700, 1.0), 700, 2.0));
}

struct KilledShard {
  fs::path dir;
  ShapeRow a = shape(8), b = shape(16);
  std::vector<BenchmarkResultRow> rows;
};

// A shard whose "caliber run" (a script) writes its identity and, when `in_flight_provider` is
// given, a cell_in_flight.json naming shape a's provider, then kills itself with SIGKILL (as the
// batch's shard timeout kills a whole process group): no provider of shape a has a row. The
// rows after that attempt.
KilledShard run_killed_shard(const std::string& name, const std::string& in_flight_provider) {
  KilledShard k;
  k.dir = fs::temp_directory_path() / ("caliber_shard_runner_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(k.dir);
  fs::create_directories(k.dir / "shard");
  write_run_identity((k.dir / "shard" / kRunIdentityFileName).string(), testing_support::sample_identity());
  {
    std::ofstream script(k.dir / "runner.sh");
    // Like caliber run, it creates its results file (empty) after its identity.
    script << "#!/bin/sh\n: > " << (k.dir / "shard" / kBenchmarkResultsFileName) << "\n";
    if (!in_flight_provider.empty()) {
      runner::CellInFlight c = in_flight(k.a.shape_id, in_flight_provider, 0, 0);
      const std::string text = runner::to_json(c).dump();
      // The script's own pid and the time now (milliseconds since the epoch), as the supervisor writes them.
      const std::string head = text.substr(0, text.find("\"pid\":0"));
      const std::string middle = text.substr(text.find("\"pid\":0") + 7);
      script << "printf '%s%s%s%s}\\n' '" << head << "\"pid\":' \"$$\" '"
             << middle.substr(0, middle.find("\"started_unix_ms\":0") + 18) << "' \"$(date +%s%3N)\" > "
             << (k.dir / "shard" / runner::kCellInFlightFileName) << "\n";
      script << "sleep 1\n";
    }
    script << "kill -9 $$\n";
  }
  fs::permissions(k.dir / "runner.sh", fs::perms::owner_all);
  ShardWork work;
  work.name = "rmsnorm/s0";
  work.dir = (k.dir / "shard").string();
  work.op = "rmsnorm";
  work.shapes = {k.a, k.b};
  work.providers = {"p1", "p2", "p3"};
  RetryPolicy policy;
  policy.shard_timeout_s = 30;
  policy.kill_after_s = 1;
  ShardRunner runner(work, policy, (k.dir / "runner.sh").string(), 1);
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  runner.step();  // starts the attempt
  while (runner.state() == ShardRunner::State::running && std::chrono::steady_clock::now() < until) {
    runner.step();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  k.rows = read_benchmark_results(runner.results_file());
  return k;
}

TEST(ShardRunner, AShardKilledWhileItsSecondProviderRanBlamesTheSecondProvider) {
  const KilledShard k = run_killed_shard("named", "p2");
  ASSERT_EQ(k.rows.size(), 1u);
  const BenchmarkResultRow& r = k.rows.front();
  EXPECT_EQ(r.shape_id, k.a.shape_id);
  EXPECT_EQ(r.provider, "p2");
  EXPECT_EQ(r.benchmark_status, BenchmarkStatus::failed);
  EXPECT_EQ(r.status_reason, "the shard's caliber run was killed by signal 9 before this cell's row was written "
                             "(caliber batch: the cell it was running, per its cell_in_flight.json)");
  // Its start was written a second (the script's sleep) before the kill.
  EXPECT_GE(r.cell_wall_time_ms, 1000.0);
  EXPECT_LT(r.cell_wall_time_ms, 10000.0);
  fs::remove_all(k.dir);
}

TEST(ShardRunner, AShardKilledWithoutSayingWhichCellRanBlamesItsNextCellAndSaysSo) {
  const KilledShard k = run_killed_shard("unnamed", "");
  ASSERT_EQ(k.rows.size(), 1u);
  const BenchmarkResultRow& r = k.rows.front();
  EXPECT_EQ(r.shape_id, k.a.shape_id);
  EXPECT_EQ(r.provider, "p1");
  EXPECT_EQ(r.status_reason, "the shard's caliber run was killed by signal 9 before this cell's row was written "
                             "(caliber batch: the shard's next cell; no cell_in_flight.json said which cell it "
                             "was running)");
  EXPECT_EQ(r.cell_wall_time_ms, 0.0);
  fs::remove_all(k.dir);
}

}  // namespace
}  // namespace caliber::campaign
