#include "campaign/shard_runner.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "caliber/benchmark_results.h"
#include "ledger/importers.h"
#include "runner/result_rows.h"

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

}  // namespace
}  // namespace caliber::campaign
