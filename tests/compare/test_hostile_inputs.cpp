// Numbers in compare's inputs: non-finite, negative or overflowing values are refused with file,
// line and field, and a row that still carries one never passes the gate.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "caliber/contract.h"
#include "caliber/errors.h"
#include "compare/gate.h"
#include "compare/importers.h"

namespace caliber::compare {
namespace {

std::string data(const std::string& name) { return std::string(CALIBER_TEST_DATA) + "/compare/" + name; }

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The fixture `name` with its first `from` replaced by `to`, written to a scratch file.
std::string edited(const std::string& name, const std::string& from, const std::string& to) {
  std::string text = read(data(name));
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  text.replace(at, from.size(), to);
  const std::string dir = ::testing::TempDir() + "/caliber_hostile_" + std::to_string(::getpid());
  std::filesystem::create_directories(dir);
  const std::string path = dir + "/" + name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

std::string error_of(const std::string& file) {
  try {
    read_compare_input(file);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(accepted)";
}

// Bench JSON with a negative value_us was accepted and read FASTER -106.8%.
TEST(HostileCompareInput, ANegativeLatencyInBenchJsonIsRefused) {
  const std::string f = edited("samples_base.json", "\"value_us\": 102.0", "\"value_us\": -7.0");
  EXPECT_EQ(error_of(f), f + ":46: field 'results[0].value_us': must be >= 0 (got -7)");
}

// nvbench: a sample-file size "1e17" ended in std::bad_alloc (exit 1); an int64 axis value
// "1e30" became -9223372036854775808.
TEST(HostileCompareInput, NvbenchSizesAndInt64ValuesMustFit) {
  std::string f = edited("nvbench_jsonbin.json", "\"nvbench_jsonbin.json-bin/0.bin\"",
                         "\"" + data("nvbench_jsonbin.json-bin/0.bin") + "\"");
  std::string text = read(f);
  text.replace(text.find("\"value\": \"5\"", text.find("\"size\"")), 12, "\"value\": \"1e17\"");
  std::ofstream(f, std::ios::binary) << text;
  EXPECT_EQ(error_of(f), f + ":191: field 'benchmarks[0].states[0].summaries[5].data[0].value': sample file '" +
                             data("nvbench_jsonbin.json-bin/0.bin") +
                             "' holds 20 bytes, not 100000000000000000 float32 values (400000000000000000 bytes)");
  f = edited("nvbench_jsonbin.json", "\"value\": \"16777216\"", "\"value\": \"1e30\"");
  EXPECT_EQ(error_of(f), f + ":112: field 'benchmarks[0].states[0].axis_values[1].value': expected a whole number "
                             "within int64, got \"1e30\"");
}

// A results CSV with median_us = nan passed `compare --fail-on-regression --strict` as
// "GATE PASS: same +nan%".
TEST(HostileCompareInput, ANonFiniteCaliberCsvLatencyIsRefused) {
  const std::string base = read(data("base.csv"));
  for (const std::string bad : {"nan", "inf", "-1000", "1e400"}) {
    std::string text = base;
    const std::string cells = ",fixed:50,,,,flag,100,";  // iterations .. throttle_policy, value_us
    text.replace(text.find(cells), cells.size(), ",fixed:50,,,,flag," + bad + ",");
    try {
      import_caliber_csv(text, "c.csv");
      ADD_FAILURE() << bad << " accepted";
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()),
                "c.csv:2: field 'value_us': expected a non-negative number of microseconds, got '" + bad + "'");
    }
  }
}

TEST(HostileCompareInput, GoogleBenchmarkAggregatesAreDurationsToo) {
  const std::string f = edited("gbench_aggregates.json", "\"real_time\": ", "\"real_time\": -");
  EXPECT_NE(error_of(f).find(": not a duration: -"), std::string::npos) << error_of(f);
}

// A field no reader reads ("unit" beside value_us) was ignored, an arch of any text was keyed on,
// and a google-benchmark count of "abc" passed.
TEST(HostileCompareInput, UnknownFieldsArchTextAndCountsThatAreNotCountsAreRefused) {
  std::string f = edited("samples_base.json", "\"value_us\": 102.0", "\"unit\": \"ms\", \"value_us\": 102.0");
  EXPECT_NE(error_of(f).find(": field 'results[0].unit': unknown field"), std::string::npos) << error_of(f);
  f = edited("samples_base.json", "\"arch\": \"", "\"arch\": \"../ ");
  EXPECT_NE(error_of(f).find("field 'results[0].device.arch': '../ "), std::string::npos) << error_of(f);
  f = edited("base.csv", ",x86_64,", ",x86 64,");
  EXPECT_EQ(error_of(f), f + ":2: field 'arch': 'x86 64' is not an architecture name (letters, digits, '_', '.' and "
                             "'-', at most 64 characters, e.g. sm_90 or x86_64)");
  f = edited("gbench_base.json", "\"repetitions\": 5", "\"repetitions\": \"abc\"");
  EXPECT_NE(error_of(f).find("field 'benchmarks[0].repetitions'"), std::string::npos) << error_of(f);
}

CompareRow row(std::optional<double> us) {
  CompareRow r;
  r.name = "copy";
  r.arch = "sm_90";
  r.contract = contract_fields(default_contract(BackendKind::cuda));
  r.value_us = us;
  return r;
}

// Whatever built the rows, a latency that is not a duration fails the gate instead of passing
// it ("same +nan%", "-nan%", or -1000 us read as faster).
TEST(HostileCompareInput, TheGateFailsARowWhoseLatencyIsNotADuration) {
  Thresholds t;
  t.file = "t.json";
  GateRule r;
  r.arch = "sm_90";
  r.name = "copy";
  r.threshold = {5, 1};
  r.calibration = "test";
  t.architectures["sm_90"].rules = {r};
  const auto check = [&](double base, double cur, const std::string& finding) {
    const CompareReport rep = evaluate_gate({row(base)}, {row(cur)}, t, GateOptions{true}, "b", "c");
    ASSERT_EQ(rep.rows.size(), 1u);
    EXPECT_EQ(rep.rows[0].outcome, Outcome::fail) << finding;
    EXPECT_EQ(rep.rows[0].finding, finding);
    EXPECT_EQ(rep.result, GateResult::fail);
  };
  check(100, std::nan(""), "current latency is not a duration: nan us");
  check(100, -1000, "current latency is not a duration: -1000 us");
  check(INFINITY, 100, "baseline latency is not a duration: inf us");
}

}  // namespace
}  // namespace caliber::compare
