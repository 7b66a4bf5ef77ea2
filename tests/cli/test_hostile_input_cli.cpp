// Hostile-input reproductions, each the shortest command that showed the defect,
// through the built binary: exit 2 (or 3, 4) with one line naming file, line and field, nothing
// written; no crash, no hang, no silently changed value.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "results/benchmark_results.h"
#include "ledger/shape_ledger.h"
#include "ledger/importers.h"
#include "support/alias_bomb.h"
#include "support/cli_run.h"
#include "io/benchmark_results_json.h"
#include "io/shape_ledger_json.h"

namespace caliber {
namespace {

namespace fs = std::filesystem;
using testing_support::count_lines;
using testing_support::fresh_dir;
using testing_support::run_caliber;
using testing_support::slurp;
using testing_support::write_text;

ShapeRow rms_row(std::int64_t m) {
  ledger::RowTemplate t;
  t.op = ops::OpType::rmsnorm;
  return ledger::make_row(t, DType::fp32, {{"m", m}, {"n", 8}, {"eps", 1e-6}}, Stage::mixed, std::nullopt,
                          {SourceKind::manual, "test", ""}, "");
}

std::string ledger_line(std::int64_t m = 2) { return to_json(rms_row(m)).dump(); }

const char* kMatrix =
    "schema_version: 1\nkernel: rmsnorm\nop_type: rmsnorm\ndtype: fp32\nreference_provider: caliber\n"
    "layout_contract: row_major\nproviders:\n  caliber: {enabled: true, entrypoint: \"builtin:caliber\", "
    "provider: caliber}\n";

std::vector<std::string> run_args(const std::string& dir, std::vector<std::string> extra = {}) {
  std::vector<std::string> a = {"run", "--op", "rmsnorm", "--backend", "host", "--shape-ledger",
                                dir + "/shape_ledger.jsonl", "--baseline-matrix", dir + "/baseline_matrix.yaml",
                                "--out", dir + "/out", "--min-time-ms", "0", "--max-time-ms", "1",
                                "--min-samples", "6", "--warmup", "1"};
  a.insert(a.end(), extra.begin(), extra.end());
  return a;
}

// run_args with these sampling options in place of its own.
std::vector<std::string> run_args_sampling(const std::string& dir, const std::vector<std::string>& sampling) {
  std::vector<std::string> a = run_args(dir);
  a.erase(std::find(a.begin(), a.end(), "--min-time-ms"), a.end());
  a.insert(a.end(), sampling.begin(), sampling.end());
  return a;
}

// --- 1. the YAML alias bomb -------------------------------------------------------------------

TEST(HostileInputCli, ValidateRefusesAYamlAliasBomb) {
  const std::string dir = fresh_dir("hostile_alias_bomb");
  write_text(dir + "/baseline_matrix.yaml", testing_support::yaml_alias_bomb("schema_version: 1\n"));
  const auto r = run_caliber({"validate", dir + "/baseline_matrix.yaml"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("its aliases expand to more than 100000 nodes"), std::string::npos) << r.err;
  EXPECT_EQ(count_lines(r.err), 1u) << r.err;
}

// --- 2. numbers that overflow a double ------------------------------------------------------------

TEST(HostileInputCli, AnOverflowingNumberNamesFileLineAndField) {
  const std::string dir = fresh_dir("hostile_overflow");
  std::string bad = ledger_line(3);
  bad.replace(bad.find("\"eps\":1e-06"), 11, "\"eps\":1e400");
  write_text(dir + "/shape_ledger.jsonl", ledger_line() + "\n" + bad + "\n");
  write_text(dir + "/baseline_matrix.yaml", kMatrix);
  const std::string expected = dir + "/shape_ledger.jsonl:2: field 'args.eps': number overflow parsing '1e400'\n";
  auto r = run_caliber({"validate", dir + "/shape_ledger.jsonl"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, expected);
  r = run_caliber(run_args(dir));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "caliber: error: " + expected);
  EXPECT_FALSE(fs::exists(dir + "/out/benchmark_results.jsonl"));
  write_text(dir + "/t.json", "{\"schema_version\": 1,\n\"kind\": \"caliber.thresholds\", \"architectures\": {},\n"
                              "\"statistics\": {\"alpha\": 1e999}}");
  r = run_caliber({"compare", dir + "/t.json", dir + "/t.json", "--thresholds", dir + "/t.json"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "caliber: error: " + dir + "/t.json:3: field 'statistics.alpha': number overflow parsing '1e999'\n");
}

// --- 6. validate as strict as the readers -----------------------------------------------------------

TEST(HostileInputCli, ValidateIsAsStrictAsTheReaders) {
  const std::string dir = fresh_dir("hostile_validate");
  // A directory named like a ledger was "valid (0 records)".
  fs::create_directories(dir + "/d/shape_ledger.jsonl");
  auto r = run_caliber({"validate", dir + "/d/shape_ledger.jsonl"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, dir + "/d/shape_ledger.jsonl: is a directory\n");
  // An empty ledger was valid though run refuses it.
  write_text(dir + "/shape_ledger.jsonl", "");
  r = run_caliber({"validate", dir + "/shape_ledger.jsonl"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, dir + "/shape_ledger.jsonl: no rows: a shape ledger lists at least one shape\n");
  // A duplicate key ("stage":"bogus","stage":"synthetic") passed validate and run.
  std::string dup = ledger_line();
  dup.replace(dup.find("\"stage\":"), 8, "\"stage\":\"bogus\",\"stage\":");
  write_text(dir + "/shape_ledger.jsonl", dup + "\n");
  r = run_caliber({"validate", dir + "/shape_ledger.jsonl"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, dir + "/shape_ledger.jsonl:1: field 'stage': duplicate key\n");
  // Invalid UTF-8 in a value.
  std::string latin1 = ledger_line();
  latin1.replace(latin1.find("\"notes\":\"\""), 10, "\"notes\":\"\xe9\"");
  write_text(dir + "/shape_ledger.jsonl", latin1 + "\n");
  r = run_caliber({"validate", dir + "/shape_ledger.jsonl"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("shape_ledger.jsonl:1: byte "), std::string::npos) << r.err;
}

// --- 7. inputs that never end -----------------------------------------------------------------------

TEST(HostileInputCli, InputsThatNeverEndAreRefusedAtOnce) {
  const std::string dir = fresh_dir("hostile_endless");
  // A FIFO as a ledger blocked forever.
  ASSERT_EQ(::mkfifo((dir + "/shape_ledger.jsonl").c_str(), 0644), 0);
  write_text(dir + "/baseline_matrix.yaml", kMatrix);
  auto r = run_caliber({"validate", dir + "/shape_ledger.jsonl"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, dir + "/shape_ledger.jsonl: is a FIFO: only regular files are read\n");
  r = run_caliber(run_args(dir));
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.err, "PREFLIGHT_FAILED check=input_valid: shape ledger " + dir +
                       "/shape_ledger.jsonl is a FIFO: only regular files are read\n");
  // /dev/zero was read until memory ran out.
  r = run_caliber({"compare", "/dev/zero", "/dev/zero"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "caliber: error: /dev/zero: is a character device: only regular files are read\n");
  // 100,000 nested arrays: bad_alloc in compare.
  write_text(dir + "/deep.json", "{\"benchmarks\": " + std::string(100000, '[') + std::string(100000, ']') + "}");
  r = run_caliber({"compare", dir + "/deep.json", dir + "/deep.json"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("deep.json:1: field 'benchmarks[0][0]"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("': nested deeper than 64 levels\n"), std::string::npos) << r.err;
  // --min-time-ms 1e307 never stopped.
  fs::remove(dir + "/shape_ledger.jsonl");
  write_text(dir + "/shape_ledger.jsonl", ledger_line() + "\n");
  r = run_caliber(run_args_sampling(dir, {"--min-time-ms", "1e307", "--max-time-ms", "1e308"}));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "caliber: error: --min-time-ms must be <= 3600000 (one hour; got 1e+307)\n");
  r = run_caliber({"bench", "--backend", "host", "--kernel", "tiny", "--min-time-ms", "1e307", "--max-time-ms", "1e308"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "caliber: error: --min-time-ms must be <= 3600000 (one hour; got 1e+307)\n");
}

// --- 8. outputs that replace what they should not ---------------------------------------------

TEST(HostileInputCli, BenchOutputsAreChecked) {
  const std::string dir = fresh_dir("hostile_bench_out");
  // --json onto a node that is not a regular file (a device as root, here a FIFO).
  ASSERT_EQ(::mkfifo((dir + "/o.json").c_str(), 0644), 0);
  auto r = run_caliber({"bench", "--backend", "host", "--kernel", "tiny", "--iters", "3", "--json", dir + "/o.json"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "caliber: error: --json " + dir + "/o.json: is a FIFO; outputs are written only as new or regular files\n");
  // --json X --csv X silently overwrote one with the other.
  r = run_caliber({"bench", "--backend", "host", "--kernel", "tiny", "--iters", "3", "--json", dir + "/x", "--csv", dir + "/x"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "caliber: error: --csv " + dir + "/x is also --json: each output needs its own file\n");
  // --size 7 exited 2 and left o.run_identity.json.
  r = run_caliber({"bench", "--backend", "host", "--kernel", "copy", "--size", "7", "--iters", "3", "--json", dir + "/s.json"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_FALSE(fs::exists(dir + "/s.run_identity.json"));
  EXPECT_FALSE(fs::exists(dir + "/s.json"));
  // --iters 9223372036854775807 exited 1 with vector::reserve.
  r = run_caliber({"bench", "--backend", "host", "--kernel", "tiny", "--iters", "9223372036854775807"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "caliber: error: --iters must be <= 10000000 (got 9223372036854775807)\n");
}

// --- 9. values lost or mangled ------------------------------------------------------------------------

TEST(HostileInputCli, NumericOptionsAreReadExactly) {
  const std::string dir = fresh_dir("hostile_values");
  write_text(dir + "/shape_ledger.jsonl", ledger_line() + "\n");
  write_text(dir + "/baseline_matrix.yaml", kMatrix);
  // --limit 99999999999999999999 ran everything (CLI11 saturated it).
  auto r = run_caliber(run_args(dir, {"--limit", "99999999999999999999"}));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "caliber: error: --limit: 99999999999999999999 is out of range (see --help)\n");
  // --seed -1 was accepted (as 18446744073709551615).
  r = run_caliber(run_args(dir, {"--seed", "-1"}));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "caliber: error: --seed: must be >= 0 (got -1) (see --help)\n");
  // run --max-time-ms inf exited 2 with an internal message about null and left an empty --out.
  r = run_caliber(run_args_sampling(dir, {"--max-time-ms", "inf"}));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "caliber: error: --max-time-ms: expected a finite number, got 'inf' (see --help)\n");
  EXPECT_FALSE(fs::exists(dir + "/out"));
  // ledger manual --traffic-weight inf wrote null.
  r = run_caliber({"ledger", "manual", "--op", "rmsnorm", "--ledger", dir + "/l.jsonl", "--shape", "m=2,n=8",
                   "--traffic-weight", "inf"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "caliber: error: --traffic-weight: expected a finite number, got 'inf' (see --help)\n");
  // Invalid UTF-8 in --model exited 1 (type_error.316).
  r = run_caliber({"ledger", "manual", "--op", "rmsnorm", "--ledger", dir + "/l.jsonl", "--shape", "m=2,n=8",
                   "--model", "caf\xe9"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "caliber: error: argument 10 ('caf\\xe9') is not valid UTF-8 text\n");
  EXPECT_FALSE(fs::exists(dir + "/l.jsonl"));
  // m=18446744073709551615 in a ledger was reported as "got -1".
  std::string big = ledger_line();
  big.replace(big.find("\"m\":2"), 5, "\"m\":18446744073709551615");
  write_text(dir + "/big_shape_ledger.jsonl", big + "\n");
  r = run_caliber({"validate", "--kind", "shape_ledger", dir + "/big_shape_ledger.jsonl"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("field 'args.m': 18446744073709551615 is out of range"), std::string::npos) << r.err;
}

// --- 10. messages that are not one honest line ------------------------------------------------------

TEST(HostileInputCli, MessagesAreOneLineOfPlainText) {
  // A newline in a value split the error in two; ANSI escapes were printed raw.
  auto r = run_caliber({"bench", "--backend", "host", "--kernel", "ti\nny\x1b[31m"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(count_lines(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find("'ti\\nny\\x1b[31m'"), std::string::npos) << r.err;
  // An unknown subcommand said "A subcommand is required".
  r = run_caliber({"benhc", "--kernel", "tiny"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.substr(0, 42), "caliber: error: unknown command 'benhc' (c");
  EXPECT_NE(r.err.find("bench"), std::string::npos);
}

// A read-only tree made report exit 1 with a raw filesystem error; an --out that cannot be
// created is a usage error, found before any input is read.
TEST(HostileInputCli, ReportNamesAnOutputItCannotCreate) {
  const std::string dir = fresh_dir("hostile_report_out");
  write_text(dir + "/file", "x");
  const auto r = run_caliber({"report", "--shape-ledger", dir + "/missing.jsonl", "--results", dir + "/missing.jsonl",
                              "--out", dir + "/file/report", "--candidate", "caliber"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "caliber: error: --out " + dir + "/file/report: " + dir + "/file is not a directory\n");
}

// --- 3. a run CSV whose latency is NaN passed the gate --------------------------------------------

TEST(HostileInputCli, CompareRefusesARunCsvWithANonFiniteLatency) {
  const std::string dir = fresh_dir("hostile_nan_csv");
  write_text(dir + "/shape_ledger.jsonl", ledger_line() + "\n");
  write_text(dir + "/baseline_matrix.yaml", kMatrix);
  const auto run = run_caliber(run_args(dir));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::string csv = dir + "/out/benchmark_results.csv";
  std::vector<BenchmarkResultRow> rows = read_benchmark_results(dir + "/out/benchmark_results.jsonl");
  ASSERT_EQ(rows.size(), 1u);
  std::string text = slurp(csv);
  const std::string median = fmt::format(",{},", *rows[0].median_us);
  ASSERT_NE(text.find(median), std::string::npos) << text;
  text.replace(text.find(median), median.size(), ",nan,");
  write_text(csv, text);
  const auto r = run_caliber({"validate", csv});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, csv + ":2: field 'median_us': expected a finite number, got 'nan'\n");
}

}  // namespace
}  // namespace caliber
