// Importers on the fixture files of tests/data/compare (README.md there says where each
// format comes from). Expected values are the numbers written in the fixtures.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "support/run_cli.h"
#include "caliber/errors.h"
#include "compare/importers.h"
#include "core/json_fields.h"

namespace caliber::compare {
namespace {

std::string data(const std::string& name) { return std::string(CALIBER_TEST_DATA) + "/compare/" + name; }

// The fields a format recorded; every other field unrecorded.
ContractFields fields(std::initializer_list<std::pair<const char*, const char*>> recorded) {
  ContractFields f;
  for (const auto& [name, text] : recorded) f[name] = text;
  return f;
}

std::string error_of(const std::string& file) {
  try {
    read_compare_input(file);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(ImportCaliberJson, ReadsRowsWithContractSamplesAndLines) {
  const InputRows in = read_compare_input(data("samples_base.json"));
  EXPECT_EQ(in.format, InputFormat::caliber_json);
  ASSERT_EQ(in.rows.size(), 1u);
  const CompareRow& r = in.rows[0];
  EXPECT_EQ(r.name, "copy");
  EXPECT_EQ(r.params, (nlohmann::json{{"size_bytes", 4194304}}));
  EXPECT_EQ(r.arch, "x86_64");
  EXPECT_EQ(r.arch_field, "results[0].device.arch");
  EXPECT_EQ(r.device_name, "Test CPU");
  EXPECT_EQ(r.contract, fields({{"backend", "host"}, {"quantity", "device_time"},
                   {"instrument", "wallclock"}, {"schedule", "isolated"}, {"cache", "warm"},
                   {"statistic", "median"}, {"warmup", "10"}, {"iterations", "fixed:5"},
                   {"throttle_policy", "flag"}, {"inputs", "fixed"}}));
  ASSERT_TRUE(r.value_us.has_value());
  EXPECT_DOUBLE_EQ(*r.value_us, 102);
  EXPECT_EQ(r.samples_us, (std::vector<double>{100, 101, 102, 103, 104}));
  EXPECT_EQ(r.n, 5);
  EXPECT_EQ(r.status, RowStatus::ok);
  EXPECT_EQ(r.origin, "results[0]");
  EXPECT_EQ(r.line, 12);
}

TEST(ImportCaliberJson, BadFilesNameFileLineAndField) {
  EXPECT_EQ(error_of(data("bad_schema_version.json")),
            data("bad_schema_version.json") +
                ":2: field 'schema_version': unsupported schema version 3 (this caliber reads 1 to 2)");
  EXPECT_EQ(error_of(data("missing_field.json")),
            data("missing_field.json") + ":32: field 'results[0].contract.schedule': missing");
  EXPECT_EQ(error_of(data("truncated.json")),
            data("truncated.json") + ":37: malformed JSON: syntax error while parsing object - "
                                     "unexpected end of input; expected '}'");
}

TEST(ImportCaliberCsv, ReadsEveryRowWithItsLine) {
  const InputRows in = read_compare_input(data("base.csv"));
  EXPECT_EQ(in.format, InputFormat::caliber_csv);
  ASSERT_EQ(in.rows.size(), 3u);
  const CompareRow& r = in.rows[2];
  EXPECT_EQ(r.name, "tiny");
  EXPECT_EQ(r.params, (nlohmann::json{{"size_bytes", 4194304}}));
  EXPECT_EQ(r.arch, "x86_64");
  EXPECT_EQ(r.contract, fields({{"backend", "host"}, {"quantity", "device_time"},
                   {"instrument", "wallclock"}, {"schedule", "isolated"}, {"cache", "warm"},
                   {"statistic", "median"}, {"warmup", "10"}, {"iterations", "fixed:50"},
                   {"throttle_policy", "flag"}, {"inputs", "fixed"}}));
  EXPECT_DOUBLE_EQ(*r.value_us, 5);
  EXPECT_TRUE(r.samples_us.empty());
  EXPECT_EQ(r.n, 50);
  EXPECT_EQ(r.line, 4);
}

TEST(ImportCaliberCsv, EmptyCellsAreUnrecorded) {
  const InputRows in = read_compare_input(data("legacy_base.csv"));
  ASSERT_EQ(in.rows.size(), 3u);
  EXPECT_FALSE(in.rows[0].value_us.has_value());
  EXPECT_EQ(in.rows[0].contract, ContractFields{});
}

TEST(ImportCaliberCsv, BadFilesNameFileLineAndField) {
  EXPECT_EQ(error_of(data("bad_value.csv")),
            data("bad_value.csv") +
                ":3: field 'value_us': expected a non-negative number of microseconds, got '2OO'");
  EXPECT_EQ(error_of(data("truncated.csv")),
            data("truncated.csv") + ":3: the last line has no newline (truncated file?)");
  EXPECT_EQ(error_of(data("duplicate.csv")),
            data("duplicate.csv") + ":4: field 'name': duplicate row copy size_bytes=4194304 "
                                    "[wallclock/isolated/warm] (first at line 2)");
}

// The cells of a CSV line that quotes no comma.
std::vector<std::string> split_cells(const std::string& line) {
  std::vector<std::string> cells(1);
  for (const char ch : line) {
    if (ch == ',') {
      cells.emplace_back();
    } else {
      cells.back() += ch;
    }
  }
  return cells;
}

// base.csv with one cell of its first row replaced, written to a file of its own.
std::string base_csv_with(const std::string& column, const std::string& text) {
  std::ifstream in(data("base.csv"));
  std::string header, first, rest, line;
  std::getline(in, header);
  std::getline(in, first);
  while (std::getline(in, line)) rest += line + "\n";
  const std::vector<std::string> names = split_cells(header);
  std::vector<std::string> cells = split_cells(first);
  const auto at = std::find(names.begin(), names.end(), column);
  cells.at(static_cast<std::size_t>(at - names.begin())) = text;
  std::string row;
  for (std::size_t i = 0; i < cells.size(); ++i) row += (i ? "," : "") + cells[i];
  const std::string path =
      ::testing::TempDir() + "/base_" + std::to_string(std::hash<std::string>{}(column + text)) + ".csv";
  std::ofstream(path) << header << "\n" << row << "\n" << rest;
  return path;
}

TEST(ImportCaliberCsv, ASummaryThatNoMeasurementWritesIsRefused) {
  for (const char* bad : {"-Infinity", "nan", "-3", "0x10", "null", "{}"}) {
    const std::string file = base_csv_with("median_us", bad);
    EXPECT_EQ(error_of(file), file + ":2: field 'median_us': expected a non-negative number of microseconds, got '" +
                                  bad + "'");
  }
  const std::string spread = base_csv_with("rel_iqr", "inf");
  EXPECT_NE(error_of(spread).find("field 'rel_iqr'"), std::string::npos) << error_of(spread);
  EXPECT_EQ(error_of(base_csv_with("median_us", "12.5")), "(no error)");
}

TEST(ImportCaliberCsv, RefusesAnotherHeaderAndShortRows) {
  const std::string header =
      "name,params,device_name,arch,backend,quantity,instrument,schedule,cache,statistic,warmup,"
      "iterations,graph_calls,cupti_reduction,cupti_value,throttle_policy,value_us,n,min_us,p10_us,p25_us,"
      "median_us,p75_us,p90_us,max_us,mean_us,stdev_us,rel_iqr,stable,stop_reason,flush_bytes,"
      "rotation_copies,flags,warnings,instrument_perturbation_us,instrument_perturbation_pct,integrity,integrity_failure\n";
  try {
    import_caliber_csv("name,params,device_name,avg_us\n", "old.csv");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "old.csv:1: field 'avg_us': header column 4 is 'avg_us', expected "
                           "'arch' (not a caliber results CSV of this version)");
  }
  try {
    import_caliber_csv(header + "copy,{},cpu\n", "short.csv");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "short.csv:2: field 'arch': expected 38 fields, got 3 (truncated row?)");
  }
  try {
    import_caliber_csv(header + "copy,{},cpu,x86_64,host,device_time,wallclock,isolatd,warm,median,10,"
                                "fixed:5,,,,flag,1,5,,,,,,,,,,,true,,0,0,,,,,,\n",
                       "enum.csv");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "enum.csv:2: field 'schedule': unknown schedule 'isolatd' (expected "
                           "isolated|per_iter|pipelined|graph)");
  }
}

TEST(ImportNvbenchJson, ReadsOneRowPerStateWithTheColdGpuMean) {
  const InputRows in = read_compare_input(data("nvbench_base.json"));
  EXPECT_EQ(in.format, InputFormat::nvbench_json);
  ASSERT_EQ(in.rows.size(), 2u);
  const CompareRow& r = in.rows[0];
  EXPECT_EQ(r.name, "scale");
  EXPECT_EQ(r.params, (nlohmann::json{{"device", 0}, {"T", "F32"}, {"Elements", 1048576}}));
  EXPECT_EQ(r.arch, "sm_90");  // sm_version 900
  EXPECT_EQ(r.arch_field, "devices[0].sm_version");
  EXPECT_EQ(r.device_name, "NVIDIA H200");
  EXPECT_EQ(r.contract, fields({{"backend", "cuda"}, {"quantity", "device_time"}, {"instrument", "event"},
                   {"schedule", "isolated"}, {"cache", "cold"}, {"statistic", "mean"},
                   {"iterations", "nvbench:min_samples=10,min_time=0.5,max_noise=0.005,timeout=15.0"}}));
  EXPECT_NEAR(*r.value_us, 10.0, 1e-9);  // "1e-05" seconds
  EXPECT_EQ(r.n, 1000);
  EXPECT_TRUE(r.samples_us.empty());
  EXPECT_EQ(r.origin, "benchmarks[0].states[0]");
  EXPECT_EQ(r.line, 94);
  EXPECT_NEAR(*in.rows[1].value_us, 160.0, 1e-9);
}

TEST(ImportNvbenchJson, ReadsSamplesFromTheJsonbinSidecar) {
  const InputRows in = read_compare_input(data("nvbench_jsonbin.json"));
  ASSERT_EQ(in.rows.size(), 1u);
  // The sidecar holds float32 seconds: 1.60e-4, 1.61e-4, 1.59e-4, 1.62e-4, 1.605e-4.
  const std::vector<float> seconds = {1.60e-4f, 1.61e-4f, 1.59e-4f, 1.62e-4f, 1.605e-4f};
  ASSERT_EQ(in.rows[0].samples_us.size(), seconds.size());
  for (std::size_t i = 0; i < seconds.size(); ++i) {
    EXPECT_DOUBLE_EQ(in.rows[0].samples_us[i], static_cast<double>(seconds[i]) * 1e6);
  }
}

TEST(ImportNvbenchJson, ASkippedStateHasNoRawLatency) {
  const InputRows in = read_compare_input(data("nvbench_skipped.json"));
  ASSERT_EQ(in.rows.size(), 2u);
  EXPECT_EQ(in.rows[1].status, RowStatus::skipped);
  EXPECT_EQ(in.rows[1].status_detail, "Not enough device memory");
  EXPECT_FALSE(in.rows[1].value_us.has_value());
}

TEST(ImportNvbenchJson, BadFilesNameFileLineAndField) {
  EXPECT_EQ(error_of(data("nvbench_version2.json")),
            data("nvbench_version2.json") + ":10: field 'meta.version.json.major': unsupported nvbench "
                                            "JSON format version 2 (this caliber reads 1.x)");
  const std::string missing = error_of(data("nvbench_missing_bin.json"));
  EXPECT_NE(missing.find("field 'benchmarks[0].states[0].summaries[5].data[0].value': sample file "), std::string::npos)
      << missing;
  EXPECT_NE(missing.find("no_such_dir-bin/0.bin' cannot be read"), std::string::npos) << missing;
}

TEST(ImportGoogleBenchmarkJson, ReadsOneRowPerRunWithRepetitionsAsSamples) {
  const InputRows in = read_compare_input(data("gbench_base.json"));
  EXPECT_EQ(in.format, InputFormat::google_benchmark_json);
  ASSERT_EQ(in.rows.size(), 3u);
  const CompareRow& copy = in.rows[0];
  EXPECT_EQ(copy.name, "BM_copy/4096/repeats:5");
  EXPECT_EQ(copy.params, nlohmann::json::object());
  EXPECT_EQ(copy.arch, "");
  EXPECT_EQ(copy.contract, fields({{"instrument", "wallclock"}, {"schedule", "pipelined"}, {"cache", "warm"},
                   {"statistic", "median"}, {"iterations", "google-benchmark:repetitions=5"}}));
  EXPECT_DOUBLE_EQ(*copy.value_us, 102);  // median of 100000..104000 ns
  EXPECT_EQ(copy.samples_us, (std::vector<double>{100, 101, 102, 103, 104}));
  EXPECT_EQ(copy.line, 31);
  const CompareRow& tiny = in.rows[1];
  EXPECT_EQ(tiny.name, "BM_tiny");
  EXPECT_EQ(tiny.contract["statistic"], "mean");  // one repetition: the loop's mean
  EXPECT_DOUBLE_EQ(*tiny.value_us, 0.85);
  EXPECT_TRUE(tiny.samples_us.empty());
  EXPECT_DOUBLE_EQ(*in.rows[2].value_us, 2.5);
}

TEST(ImportGoogleBenchmarkJson, AnErrorRowIsAFailedRow) {
  const InputRows in = read_compare_input(data("gbench_current.json"));
  ASSERT_EQ(in.rows.size(), 3u);
  EXPECT_EQ(in.rows[2].name, "BM_parse/64");
  EXPECT_EQ(in.rows[2].status, RowStatus::failed);
  EXPECT_EQ(in.rows[2].status_detail, "input file missing");
  EXPECT_FALSE(in.rows[2].value_us.has_value());
}

TEST(ImportGoogleBenchmarkJson, AggregatesOnlyUseTheMedianAggregate) {
  const InputRows in = read_compare_input(data("gbench_aggregates.json"));
  ASSERT_EQ(in.rows.size(), 1u);
  EXPECT_EQ(in.rows[0].contract["statistic"], "median");
  EXPECT_EQ(in.rows[0].contract["iterations"], "google-benchmark:aggregates");
  EXPECT_DOUBLE_EQ(*in.rows[0].value_us, 102);
  EXPECT_TRUE(in.rows[0].samples_us.empty());
}

TEST(ImportGoogleBenchmarkJson, RefusesADuplicateRepetition) {
  EXPECT_EQ(error_of(data("gbench_duplicate.json")),
            data("gbench_duplicate.json") +
                ":52: field 'benchmarks[1].repetition_index': duplicate row: repetition 0 of "
                "BM_copy/4096/repeats:5 (first at benchmarks[0])");
}

TEST(ReadCompareInput, RefusesUnrecognizedAndEmptyInput) {
  EXPECT_EQ(error_of(data("unrecognized.json")),
            data("unrecognized.json") + ":1: unrecognized JSON document: expected caliber results "
                                        "(\"kind\": \"caliber.results\"), caliber run results "
                                        "(benchmark_results.jsonl), nvbench JSON (\"devices\", "
                                        "\"benchmarks\") or google-benchmark JSON (\"context\", \"benchmarks\")");
  const std::string empty = caliber::testing_support::temp_path("caliber_compare_empty.csv");
  std::ofstream(empty) << "\n";
  EXPECT_EQ(error_of(empty), empty + ": empty file");
  EXPECT_EQ(error_of(data("no_such_file.json")), data("no_such_file.json") + ": does not exist");
}

TEST(ParseDecimal, WholeTextOnly) {
  EXPECT_EQ(parse_decimal("1e-05"), 1e-05);
  EXPECT_EQ(parse_decimal("12.5"), 12.5);
  EXPECT_FALSE(parse_decimal("12.5us").has_value());
  EXPECT_FALSE(parse_decimal("").has_value());
}

}  // namespace
}  // namespace caliber::compare
