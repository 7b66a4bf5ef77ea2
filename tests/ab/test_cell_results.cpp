// Reading what a cell produced: the multi-shape runner's rows and caliber bench's document.
#include "ab/cell_results.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "caliber/errors.h"
#include "caliber/result_json.h"
#include "support/report_rows.h"
#include "support/run_cli.h"
#include "support/sample_results.h"
#include "io/benchmark_results_json.h"

namespace caliber {
namespace {

namespace fs = std::filesystem;

std::string cell_dir(const std::string& name) {
  const std::string dir = testing_support::temp_path(name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// Rows as caliber run writes them: ok (one stable with a warning-free kernel-only measurement,
// one unstable with a warning), incorrect, unsupported.
std::string runner_rows() {
  using testing_support::ledger_shape;
  const ShapeRow a = ledger_shape(8192, 8192), b = ledger_shape(1, 8), c = ledger_shape(2, 16);
  BenchmarkResultRow fast = testing_support::ok_result(a, "caliber", 72.5);
  fast.kernel_only->summary.rel_iqr = 0.004;
  BenchmarkResultRow wrong = testing_support::ok_result(a, "naive", 900);
  wrong.benchmark_status = BenchmarkStatus::incorrect;
  wrong.correct = false;
  wrong.correctness_error = "max scaled error 3.2 > 1";
  wrong.status_reason = "output differs from the reference";
  BenchmarkResultRow unsupported =
      testing_support::status_result(b, "caliber", BenchmarkStatus::unsupported, "n < 32");
  BenchmarkResultRow shaky = testing_support::ok_result(c, "caliber", 3.5);
  shaky.stable = false;
  shaky.kernel_only->warnings = {"few samples"};
  std::string text;
  for (const auto* r : {&fast, &wrong, &unsupported}) text += to_json(*r).dump() + "\n";
  return text + "\n" + to_json(shaky).dump() + "\n";
}

TEST(CellResults, ReadsRunnerRowsKeyedByShapeAndProvider) {
  const std::string dir = cell_dir("cell-jsonl");
  std::ofstream(dir + "/benchmark_results.jsonl") << runner_rows();
  const auto& reader = default_cell_results_reader();
  const std::string file = reader.find_results_file(dir);
  EXPECT_EQ(file, dir + "/benchmark_results.jsonl");
  const CellResults c = reader.read(file);
  EXPECT_EQ(c.rows_ok, 2);
  EXPECT_EQ(c.rows_failed, 2);  // incorrect and unsupported rows are not measurements
  EXPECT_EQ(c.rows_unstable, 1);
  EXPECT_EQ(c.rows_warned, 1);
  ASSERT_EQ(c.rows.size(), 2u);
  const std::string id_a = testing_support::ledger_shape(8192, 8192).shape_id;
  EXPECT_EQ(c.rows[0].key, id_a + "/caliber");
  EXPECT_EQ(c.rows[0].label, "caliber rmsnorm bf16 eps=1e-06 m=8192 n=8192 (" + id_a + ")");
  EXPECT_DOUBLE_EQ(c.rows[0].value_us, 72.5);
  EXPECT_DOUBLE_EQ(*c.rows[0].rel_iqr, 0.004);
  EXPECT_EQ(c.rows[1].key, testing_support::ledger_shape(2, 16).shape_id + "/caliber");
}

TEST(CellResults, MalformedOrDuplicatedRowsNameTheirLine) {
  const std::string file = cell_dir("cell-jsonl-bad") + "/benchmark_results.jsonl";
  const std::string rows = runner_rows();
  const std::string first_row = rows.substr(0, rows.find('\n') + 1);
  std::ofstream(file) << rows << first_row;
  try {
    read_benchmark_results_cell(file);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 6);  // rows 1, 2, 3, a blank line, 5, then the duplicate
    EXPECT_NE(std::string(e.what()).find("duplicate cell"), std::string::npos) << e.what();
  }
  nlohmann::json partial = nlohmann::json::parse(first_row);
  partial.erase("median_us");
  std::ofstream(file) << partial.dump() << "\n";
  try {
    read_benchmark_results_cell(file);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), file + ":1: field 'median_us': missing (null when it does not apply)");
  }
  std::ofstream(file) << first_row << "{\"trunc";
  try {
    read_benchmark_results_cell(file);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 2);
  }
}

TEST(CellResults, ReadsABenchDocumentKeyedByKernelParamsAndContract) {
  const std::string dir = cell_dir("cell-bench");
  Result r = testing_support::sample_result();
  Result cold = r;
  cold.contract.cache = CachePolicy::warm;
  cold.stable = false;
  std::ofstream(dir + "/bench.json") << [&] {
    std::ostringstream o;
    write_results_json(o, {r, cold});
    return o.str();
  }();
  std::ofstream(dir + "/bench.run_identity.json") << "{}";  // never mistaken for results
  std::ofstream(dir + "/code_fingerprint.json") << "{}";
  const auto& reader = default_cell_results_reader();
  EXPECT_EQ(reader.find_results_file(dir), dir + "/bench.json");
  const CellResults c = reader.read(dir + "/bench.json");
  ASSERT_EQ(c.rows.size(), 2u);
  EXPECT_EQ(c.rows[0].key, R"(copy {"dtype":"float32","size_bytes":1073741824} per_iter/cold)");
  EXPECT_EQ(c.rows[0].label, "copy dtype=float32 size_bytes=1073741824 [per_iter/cold]");
  EXPECT_EQ(c.rows[1].key, R"(copy {"dtype":"float32","size_bytes":1073741824} per_iter/warm)");
  EXPECT_DOUBLE_EQ(c.rows[0].value_us, 537.25);
  EXPECT_EQ(c.rows_unstable, 1);
  EXPECT_EQ(c.rows_warned, 2);
  // Two documents: which one is the cell's result is ambiguous, so none is.
  std::ofstream(dir + "/other.json") << "{}";
  EXPECT_EQ(reader.find_results_file(dir), "");
}

}  // namespace
}  // namespace caliber
