// Reading what a cell produced: the multi-shape runner's rows and caliber bench's document.
#include "ab/cell_results.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "caliber/errors.h"
#include "caliber/result_json.h"
#include "support/run_cli.h"
#include "support/sample_results.h"

namespace caliber {
namespace {

namespace fs = std::filesystem;

std::string cell_dir(const std::string& name) {
  const std::string dir = testing_support::temp_path(name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

const char* kRows =
    R"({"shape_id":"sha1:00000000000000aa","provider":"caliber","kernel_name":"rmsnorm","dtype":"bf16","args":{"rows":8192,"cols":8192},"benchmark_status":"ok","correct":true,"median_us":72.5,"stable":true,"kernel_only":{"summary":{"rel_iqr":0.004},"warnings":[]}})"
    "\n"
    R"({"shape_id":"sha1:00000000000000aa","provider":"naive","benchmark_status":"ok","correct":false,"median_us":900})"
    "\n\n"
    R"({"shape_id":"sha1:00000000000000bb","provider":"caliber","benchmark_status":"unsupported","median_us":null})"
    "\n"
    R"({"shape_id":"sha1:00000000000000cc","provider":"caliber","benchmark_status":"ok","median_us":3.5,"stable":false,"kernel_only":{"summary":{"rel_iqr":0.2},"warnings":["few samples"]}})"
    "\n";

TEST(CellResults, ReadsRunnerRowsKeyedByShapeAndProvider) {
  const std::string dir = cell_dir("cell-jsonl");
  std::ofstream(dir + "/benchmark_results.jsonl") << kRows;
  const auto& reader = default_cell_results_reader();
  const std::string file = reader.find_results_file(dir);
  EXPECT_EQ(file, dir + "/benchmark_results.jsonl");
  const CellResults c = reader.read(file);
  EXPECT_EQ(c.rows_ok, 2);
  EXPECT_EQ(c.rows_failed, 2);  // incorrect and unsupported rows are not measurements
  EXPECT_EQ(c.rows_unstable, 1);
  EXPECT_EQ(c.rows_warned, 1);
  ASSERT_EQ(c.rows.size(), 2u);
  EXPECT_EQ(c.rows[0].key, "sha1:00000000000000aa/caliber");
  EXPECT_EQ(c.rows[0].label, "caliber rmsnorm bf16 cols=8192 rows=8192 (sha1:00000000000000aa)");
  EXPECT_DOUBLE_EQ(c.rows[0].value_us, 72.5);
  EXPECT_DOUBLE_EQ(*c.rows[0].rel_iqr, 0.004);
  EXPECT_EQ(c.rows[1].key, "sha1:00000000000000cc/caliber");
}

TEST(CellResults, MalformedOrDuplicatedRowsNameTheirLine) {
  const std::string file = cell_dir("cell-jsonl-bad") + "/benchmark_results.jsonl";
  std::ofstream(file) << kRows << R"({"shape_id":"sha1:00000000000000cc","provider":"caliber","benchmark_status":"ok","median_us":3.6})"
                      << "\n";
  try {
    read_benchmark_results_cell(file);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 6);  // rows 1, 2, a blank line, 4, 5, then the duplicate
    EXPECT_NE(std::string(e.what()).find("the same shape appears twice in one cell"), std::string::npos) << e.what();
  }
  std::ofstream(file) << R"({"shape_id":"x","provider":"p","benchmark_status":"ok"})" << "\n{\"trunc";
  try {
    read_benchmark_results_cell(file);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), file + ":1: field 'median_us': missing");
  }
  std::ofstream(file) << R"({"shape_id":"x","provider":"p","benchmark_status":"ok","median_us":1})" << "\n{\"trunc";
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
