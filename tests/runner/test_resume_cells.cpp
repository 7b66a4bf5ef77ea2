// Failed cells run again (--rerun-cells, docs/batch.md): their rows move from the results file to
// the attempts file, a row at a time, and nothing else changes.
#include "runner/resume_cells.h"

#include <filesystem>

#include <gtest/gtest.h>

#include "io/benchmark_results_json.h"
#include "runner/result_rows.h"
#include "support/cli_run.h"
#include "support/manual_row.h"

namespace caliber::runner {
namespace {

using testing_support::fresh_dir;
using testing_support::slurp;
using testing_support::write_text;

std::string row_line(std::int64_t m, const std::string& provider, BenchmarkStatus status) {
  RowProvenance id;
  id.run_id = "resume-cells-test";
  const ShapeRow s = testing_support::manual_row(ops::OpType::rmsnorm, DType::fp32, {{"m", m}, {"n", 8}, {"eps", 1e-6}});
  BenchmarkResultRow r = base_row(id, s, provider);
  r.benchmark_status = status;
  r.status_reason = status == BenchmarkStatus::failed ? std::optional<std::string>("crashed") : std::nullopt;
  r.finished_at = "2026-12-07T12:00:00Z";
  return to_json(r, false).dump();
}

CellKey key(std::int64_t m, const std::string& provider) {
  return {testing_support::manual_row(ops::OpType::rmsnorm, DType::fp32, {{"m", m}, {"n", 8}, {"eps", 1e-6}}).shape_id,
          provider};
}

TEST(ResumeCells, SupersededRowsMoveToTheAttemptsFileOnceAndTheOthersStay) {
  const std::string dir = fresh_dir("resume_cells_supersede");
  const std::string results = dir + "/benchmark_results.jsonl", attempts = dir + "/benchmark_attempts.jsonl";
  const std::string a = row_line(4, "p", BenchmarkStatus::failed), b = row_line(5, "p", BenchmarkStatus::failed),
                    c = row_line(6, "p", BenchmarkStatus::failed);
  write_text(results, a + "\n" + b + "\n" + c + "\n");
  write_text(attempts, b + "\n");  // moved once already, by a session that crashed before its rewrite
  EXPECT_EQ(supersede_rows(results, attempts, {key(5, "p"), key(6, "p")}), 2u);
  EXPECT_EQ(slurp(results), a + "\n");
  EXPECT_EQ(slurp(attempts), b + "\n" + c + "\n");
  // Nothing listed is in the file: it is left byte for byte, and no temporary stays beside it.
  EXPECT_EQ(supersede_rows(results, attempts, {key(7, "p")}), 0u);
  EXPECT_EQ(slurp(results), a + "\n");
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir), std::filesystem::directory_iterator()), 2);
}

}  // namespace
}  // namespace caliber::runner
