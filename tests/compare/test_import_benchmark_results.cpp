// caliber run's results (benchmark_results.jsonl and .csv) as compare rows: one row per
// (shape_id, provider) cell, the primary (kernel-only) median as raw latency, the status mapped
// for the gate's fail-closed rules. The files are written from literal rows by the runner's own
// writers (to_json, write_benchmark_results_csv), so what is checked is the importer's mapping.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "results/benchmark_results.h"
#include "caliber/errors.h"
#include "compare/importers.h"
#include "support/report_rows.h"
#include "support/run_cli.h"
#include "support/run_directory.h"
#include "io/benchmark_results_json.h"

namespace caliber::compare {
namespace {

namespace fs = std::filesystem;
using testing_support::ledger_shape;
using testing_support::ok_result;
using testing_support::status_result;

const ShapeRow kWide = ledger_shape(4096, 8192);
const ShapeRow kNarrow = ledger_shape(16, 64);

std::vector<BenchmarkResultRow> literal_rows() {
  BenchmarkResultRow ok = ok_result(kWide, "caliber", 72.5);
  ok.kernel_only->samples_us = {72.0, 72.5, 73.0, 72.25, 72.75};
  BenchmarkResultRow wrong = ok_result(kWide, "naive", 900);
  wrong.benchmark_status = BenchmarkStatus::incorrect;
  wrong.correct = false;
  wrong.status_reason = "output differs from the reference";
  wrong.correctness_error = "relative Frobenius error 0.3 > 0.01";
  BenchmarkResultRow unsupported = status_result(kNarrow, "caliber", BenchmarkStatus::unsupported, "n < 128");
  return {ok, wrong, unsupported};
}

nlohmann::json cell(const std::string& provider, const ShapeRow& s) {
  return {{"provider", provider}, {"shape_id", s.shape_id}, {"dtype", "bf16"}, {"eps", 1e-6}, {"m", s.args["m"]},
          {"n", s.args["n"]}};
}

TEST(ImportBenchmarkResults, OneRowPerCellWithThePrimaryMedianAndItsContract) {
  const std::string dir = testing_support::write_run_directory("import-runner-jsonl", literal_rows());
  const InputRows in = read_compare_input(dir);  // a run directory: its benchmark_results.jsonl
  EXPECT_EQ(in.format, InputFormat::benchmark_results_jsonl);
  EXPECT_TRUE(written_by_caliber(in.format));
  ASSERT_EQ(in.rows.size(), 3u);
  const CompareRow& ok = in.rows[0];
  EXPECT_EQ(ok.name, "rmsnorm");
  EXPECT_EQ(ok.params, cell("caliber", kWide));
  EXPECT_EQ(ok.arch, "sm_90");
  EXPECT_EQ(ok.device_name, "NVIDIA H200");
  EXPECT_EQ(ok.line, 1);
  ASSERT_TRUE(ok.value_us.has_value());
  EXPECT_DOUBLE_EQ(*ok.value_us, 72.5);
  EXPECT_EQ(ok.samples_us, (std::vector<double>{72.0, 72.5, 73.0, 72.25, 72.75}));
  EXPECT_EQ(ok.n, 3);  // the kernel-only summary's n
  EXPECT_EQ(ok.status, RowStatus::ok);
  EXPECT_EQ(ok.contract, contract_fields(literal_rows()[0].kernel_only->contract));
  EXPECT_EQ(ok.contract["schedule"], "graph");
  EXPECT_EQ(ok.contract["cache"], "warm");

  // An incorrect output's latency is not a number to compare: status incorrect, no raw us.
  const CompareRow& wrong = in.rows[1];
  EXPECT_EQ(wrong.params, cell("naive", kWide));
  EXPECT_EQ(wrong.status, RowStatus::incorrect);
  EXPECT_EQ(wrong.status_detail, "relative Frobenius error 0.3 > 0.01");
  EXPECT_FALSE(wrong.value_us.has_value());
  EXPECT_EQ(wrong.line, 2);

  const CompareRow& unsupported = in.rows[2];
  EXPECT_EQ(unsupported.status, RowStatus::unsupported);
  EXPECT_EQ(unsupported.status_detail, "n < 128");
  EXPECT_FALSE(unsupported.value_us.has_value());
  EXPECT_EQ(unsupported.contract, ContractFields{});  // never timed: no contract recorded
}

TEST(ImportBenchmarkResults, TheCsvProjectionGivesTheSameRowsWithoutSamples) {
  const std::string dir = testing_support::write_run_directory("import-runner-csv", literal_rows());
  const InputRows jsonl = read_compare_input(dir + "/benchmark_results.jsonl");
  const InputRows csv = read_compare_input(dir + "/benchmark_results.csv");
  EXPECT_EQ(csv.format, InputFormat::benchmark_results_csv);
  ASSERT_EQ(csv.rows.size(), jsonl.rows.size());
  for (std::size_t i = 0; i < csv.rows.size(); ++i) {
    const CompareRow& c = csv.rows[i];
    const CompareRow& j = jsonl.rows[i];
    EXPECT_EQ(c.key(), j.key()) << i;
    EXPECT_EQ(c.params, j.params) << i;
    EXPECT_EQ(c.arch, j.arch) << i;
    EXPECT_EQ(c.value_us, j.value_us) << i;
    EXPECT_EQ(c.status, j.status) << i;
    EXPECT_EQ(c.status_detail, j.status_detail) << i;
    EXPECT_EQ(c.contract, j.contract) << i;  // the CSV's contract columns say the same
    EXPECT_EQ(c.n, j.n) << i;
    EXPECT_EQ(c.line, static_cast<long>(i) + 2) << i;  // after the header
    EXPECT_TRUE(c.samples_us.empty()) << i;
  }
}

// compare labels a move on an unstable row so (docs/gate.md): both files say why a row is unstable.
TEST(ImportBenchmarkResults, AnUnstableRowSaysWhyInTheJsonlAndTheCsv) {
  BenchmarkResultRow noisy = ok_result(kWide, "caliber", 40);
  noisy.stable = false;
  noisy.p10_us = 30;
  noisy.p90_us = 50;
  noisy.kernel_only->stable = false;
  noisy.kernel_only->flags = {"unstable:spread"};
  const std::string dir = testing_support::write_run_directory("import-runner-unstable", {noisy, ok_result(kNarrow, "caliber", 5)});
  for (const char* file : {"/benchmark_results.jsonl", "/benchmark_results.csv"}) {
    const InputRows in = read_compare_input(dir + file);
    ASSERT_EQ(in.rows.size(), 2u) << file;
    EXPECT_EQ(in.rows[0].unstable, "p90/p10 = 1.67 > 1.2") << file;
    EXPECT_EQ(in.rows[1].unstable, "") << file;
  }
}

TEST(ImportBenchmarkResults, BadFilesAreInputErrors) {
  auto error_of = [](const std::string& input) -> std::string {
    try {
      read_compare_input(input);
    } catch (const InputError& e) {
      return e.what();
    }
    return "(no error)";
  };
  const std::string empty = testing_support::temp_path("import-runner-empty");
  fs::remove_all(empty);
  fs::create_directories(empty);
  EXPECT_EQ(error_of(empty), empty + ": a directory is read as a caliber run --out directory, and it has no "
                                     "benchmark_results.jsonl");
  const auto rows = literal_rows();
  const std::string dir = testing_support::write_run_directory("import-runner-bad", {rows[0], rows[0]});
  const std::string duplicate = error_of(dir);
  EXPECT_EQ(duplicate.rfind(dir + "/benchmark_results.jsonl:2: ", 0), 0u) << duplicate;
  EXPECT_EQ(duplicate, dir + "/benchmark_results.jsonl:2: field 'provider': duplicate cell: shape " + kWide.shape_id +
                           " provider caliber already on line 1");
  nlohmann::json partial = to_json(rows[0]);
  partial.erase("median_us");
  std::ofstream(dir + "/benchmark_results.jsonl") << partial.dump() << '\n';
  EXPECT_EQ(error_of(dir), dir + "/benchmark_results.jsonl:1: field 'median_us': missing (null when it does not apply)");
}

// The config the provider chose and the run of the row, for the record-vs-record check
// (compare/config_check.h): the same from the JSONL and from the CSV.
TEST(ImportBenchmarkResults, TheConfigAndTheRunOfEachRowAreCarried) {
  std::vector<BenchmarkResultRow> rows = literal_rows();
  rows[0].config = ProviderConfig{ConfigPinning::replayed, "panel=128", "panels of 128 columns", "run-0"};
  rows[1].config = ProviderConfig{ConfigPinning::recorded, "algo 66", "", ""};
  const std::string dir = testing_support::write_run_directory("import-runner-config", rows);
  for (const char* file : {"/benchmark_results.jsonl", "/benchmark_results.csv"}) {
    const InputRows in = read_compare_input(dir + file);
    ASSERT_EQ(in.rows.size(), 3u) << file;
    ASSERT_TRUE(in.rows[0].config.has_value()) << file;
    EXPECT_EQ(*in.rows[0].config, *rows[0].config) << file;
    ASSERT_TRUE(in.rows[1].config.has_value()) << file;
    EXPECT_EQ(*in.rows[1].config, *rows[1].config) << file;
    EXPECT_FALSE(in.rows[2].config.has_value()) << file;  // a provider that chose nothing
    for (const CompareRow& r : in.rows) EXPECT_EQ(r.run_id, "run-1") << file;
  }
}

// A benchmark_results.csv written before the config columns (the header ends at
// integrity_failure) imports as before: its rows carry no config.
TEST(ImportBenchmarkResults, ACsvWithoutTheConfigColumnsStillImports) {
  const std::string dir = testing_support::write_run_directory("import-runner-old-csv", literal_rows());
  const std::string csv = dir + "/benchmark_results.csv";
  std::ifstream in(csv);
  std::string line, old;
  while (std::getline(in, line)) {
    ASSERT_TRUE(line.ends_with(",,,,") || line.ends_with(",config.pinning,config.key,config.description,config.source"))
        << line;
    for (int i = 0; i < 4; ++i) line.erase(line.rfind(','));
    old += line + "\n";
  }
  in.close();
  ASSERT_TRUE(old.starts_with("run_id,") && old.find("integrity_failure\n") != std::string::npos) << old;
  std::ofstream(csv) << old;
  const InputRows imported = read_compare_input(csv);
  const InputRows jsonl = read_compare_input(dir + "/benchmark_results.jsonl");
  ASSERT_EQ(imported.rows.size(), 3u);
  for (std::size_t i = 0; i < imported.rows.size(); ++i) {
    EXPECT_FALSE(imported.rows[i].config.has_value()) << i;
    EXPECT_EQ(imported.rows[i].key(), jsonl.rows[i].key()) << i;
    EXPECT_EQ(imported.rows[i].value_us, jsonl.rows[i].value_us) << i;
    EXPECT_EQ(imported.rows[i].status, jsonl.rows[i].status) << i;
  }
}

}  // namespace
}  // namespace caliber::compare
