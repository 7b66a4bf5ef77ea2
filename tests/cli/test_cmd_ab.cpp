// caliber ab end to end on the host backend: two plugin builds, one 3x slower; identical code;
// a caliber mismatch; a timeout; preflight. Each cell is a real process.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "caliber/backend.h"
#include "results/benchmark_results.h"
#include "ledger/shape_ledger.h"
#include "ledger/importers.h"
#include "support/ab_fixture.h"
#include "support/run_cli.h"
#include "support/text_lines.h"
#include "io/benchmark_results_json.h"
#include "io/shape_ledger_json.h"

namespace caliber {
namespace {

namespace fs = std::filesystem;
using testing_support::fixture_args;
using testing_support::fixture_plugin;
using testing_support::fresh_out_dir;
using testing_support::run_cli;

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (auto p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}

TEST(CliAb, TheSlowerPluginIsCalledSlowerOnEveryShape) {
  const std::string out = fresh_out_dir("cli-ab-slow");
  // 3x the work on side B: every round's delta is far from zero, so six rounds decide it even on a
  // loaded two-core machine (p = 2/64 needs all six deltas positive).
  const auto r = run_cli(fixture_args("ab --rounds 6", out, fixture_plugin(CALIBER_AB_FIXTURE_FAST),
                                      fixture_plugin(CALIBER_AB_FIXTURE_SLOW)));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find(">>> fixture: the sides executed different code"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("== fixture: 6 rounds x 3 shapes"), std::string::npos) << r.out;
  EXPECT_EQ(count(r.out, "  B_SLOWER  "), 3) << r.out;
  EXPECT_NE(r.out.find("0 B_FASTER, 3 B_SLOWER, 0 UNDECIDED"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("3/3 shapes kept the sign of their delta in every round"), std::string::npos) << r.out;
  const auto status = testing_support::read_lines(out + "/status.tsv");
  ASSERT_EQ(status.size(), 13u);
  for (std::size_t i = 1; i < status.size(); ++i) {
    EXPECT_NE(status[i].find("\tfixture\t0\t"), std::string::npos) << status[i];
    EXPECT_NE(status[i].find("\t3\t0\t"), std::string::npos) << status[i];  // 3 rows ok, 0 failed
  }
  for (const char* f : {"ab_plan.json", "ab_report.txt", "ab_report.tsv", "ab_report.json",
                        "fixture/r6_A/run_identity.json", "fixture/r6_B/code_fingerprint.json"}) {
    EXPECT_TRUE(fs::exists(out + "/" + f)) << f;
  }
}

TEST(CliAb, IdenticalCodeIsSkippedAfterRoundOneUnlessAllowed) {
  std::string out = fresh_out_dir("cli-ab-same-code");
  auto r = run_cli(fixture_args("ab --rounds 6", out, fixture_plugin(CALIBER_AB_FIXTURE_FAST),
                                fixture_plugin(CALIBER_AB_FIXTURE_FAST_COPY)));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("!!! NO_CODE_DIFF op=fixture: both sides executed byte-identical code"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("B vs A"), std::string::npos) << r.out;
  EXPECT_EQ(testing_support::read_lines(out + "/status.tsv").size(), 3u);
  out = fresh_out_dir("cli-ab-same-code-allowed");
  r = run_cli(fixture_args("ab --rounds 2 --allow-no-code-diff", out, fixture_plugin(CALIBER_AB_FIXTURE_FAST),
                           fixture_plugin(CALIBER_AB_FIXTURE_FAST_COPY)));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("== fixture: 2 rounds x 3 shapes"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("no shape can be decided"), std::string::npos) << r.out;  // 2 rounds: p >= 0.5
}

TEST(CliAb, IdenticalSidesAreLabelledTheNoiseFloor) {
  const std::string out = fresh_out_dir("cli-ab-noise");
  const std::string same = fixture_plugin(CALIBER_AB_FIXTURE_FAST);
  const auto r = run_cli(fixture_args("ab --rounds 2", out, same, same));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("== A and B are identical"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("every delta below is this machine's noise floor for fixture, not a finding"), std::string::npos);
  EXPECT_EQ(count(r.out, "noise     noise"), 3) << r.out;  // verdict and class
  EXPECT_EQ(r.out.find("B_SLOWER"), std::string::npos);
}

TEST(CliAb, ACaliberMismatchExitsFourAfterRoundOne) {
  const std::string out = fresh_out_dir("cli-ab-mismatch");
  const std::string args = fixture_args("ab --rounds 6", out, fixture_plugin(CALIBER_AB_FIXTURE_FAST),
                                        fixture_plugin(CALIBER_AB_FIXTURE_SLOW),
                                        "--a-env FIXTURE_ITERS=40 --b-env FIXTURE_ITERS=50", "--iters $FIXTURE_ITERS");
  auto r = run_cli(args);
  EXPECT_EQ(r.exit_code, 4) << r.out << r.err;
  EXPECT_NE(r.out.find("!!! [caliber] contracts[kernel].iterations: A=fixed:40, B=fixed:50\n"), std::string::npos)
      << r.out;
  EXPECT_EQ(testing_support::read_lines(out + "/status.tsv").size(), 3u);  // refused after round 1, before any latency
  EXPECT_EQ(r.out.find("B vs A"), std::string::npos);
  const std::string out2 = fresh_out_dir("cli-ab-mismatch-allowed");
  r = run_cli(fixture_args("ab --rounds 2 --allow-caliber-mismatch", out2, fixture_plugin(CALIBER_AB_FIXTURE_FAST),
                           fixture_plugin(CALIBER_AB_FIXTURE_SLOW), "--a-env FIXTURE_ITERS=40 --b-env FIXTURE_ITERS=50",
                           "--iters $FIXTURE_ITERS"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("!!! [caliber] contracts[kernel].iterations: A=fixed:40, B=fixed:50\n"), std::string::npos);
  EXPECT_NE(r.out.find("== fixture: 2 rounds x 3 shapes"), std::string::npos) << r.out;
}

TEST(CliAb, ATimeoutIsNamedAndTheOpGetsNoReport) {
  const std::string out = fresh_out_dir("cli-ab-timeout");
  const auto r = run_cli("ab --op fixture --rounds 2 --out " + out +
                         " --cell-command 'sleep 30; echo {out}' --cell-timeout 0.5 --kill-after 2");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.out.find("!!! CELL_TIMEOUT 0.5s op=fixture round=1 side=A"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("!!! fixture: round 1 side A timed out (rc 124): TIMEOUT: stopped at the 0.5 s cell limit (a "
                       "cost problem, not a verdict)"),
            std::string::npos)
      << r.out;
  const auto status = testing_support::read_lines(out + "/status.tsv");
  ASSERT_EQ(status.size(), 2u);
  EXPECT_EQ(status[1].rfind("1\tA\tfixture\t124\t", 0), 0u) << status[1];
  EXPECT_NE(status[1].find("\tTIMEOUT\tTIMEOUT: stopped at the 0.5 s cell limit"), std::string::npos) << status[1];
}

TEST(CliAb, PreflightFailuresExitThreeBeforeAnyCell) {
  std::string out = fresh_out_dir("cli-ab-preflight");
  auto r = run_cli(fixture_args("ab", out, fixture_plugin(CALIBER_AB_FIXTURE_FAST), "/nonexistent/libx.so:f"));
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.err, "PREFLIGHT_FAILED check=plugin_loads: provider side B (/nonexistent/libx.so:f): /nonexistent/libx.so "
                   "does not exist\n");
  EXPECT_FALSE(fs::exists(out + "/status.tsv"));
  r = run_cli(fixture_args("ab", out, fixture_plugin(CALIBER_AB_FIXTURE_FAST),
                           std::string(CALIBER_AB_FIXTURE_SLOW) + ":no_such_symbol"));
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("PREFLIGHT_FAILED check=plugin_loads: provider side B"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("does not export no_such_symbol"), std::string::npos) << r.err;
  fs::create_directories(out);
  std::ofstream(out + "/leftover") << "x";
  r = run_cli(fixture_args("ab", out, fixture_plugin(CALIBER_AB_FIXTURE_FAST), fixture_plugin(CALIBER_AB_FIXTURE_SLOW)));
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.err.rfind("PREFLIGHT_FAILED check=output_writable: " + out + " exists and is not empty", 0), 0u) << r.err;
  out = fresh_out_dir("cli-ab-preflight-ledger");
  r = run_cli("ab --op x --out " + out + " --cell-command 'cell {ledger} {out}' --shape-ledger /nonexistent/l.jsonl");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.err, "PREFLIGHT_FAILED check=input_valid: shape ledger /nonexistent/l.jsonl does not exist\n");
  const std::string not_executable = testing_support::temp_path("not-executable");
  std::ofstream(not_executable) << "#!/bin/sh\n";
  fs::permissions(not_executable, fs::perms::owner_read | fs::perms::owner_write);
  r = run_cli("ab --op x --out " + out + " --cell-command '{binary} {out}' --a-binary " + not_executable);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.err, "PREFLIGHT_FAILED check=input_valid: side A binary " + not_executable + " is invalid: " +
                       not_executable + " is not executable\n");
}

TEST(CliAb, ACellThatFailsItsOwnPreflightIsRefusedNotMeasured) {
  const std::string out = fresh_out_dir("cli-ab-cell-preflight");
  const auto r = run_cli("ab --op fixture --rounds 2 --out " + out + " --cell-command '{binary} --plugin " +
                         CALIBER_AB_FIXTURE_FAST + ":missing_symbol --out {out}' --a-binary " + CALIBER_AB_FIXTURE_CELL +
                         " --b-binary " + CALIBER_AB_FIXTURE_CELL);
  EXPECT_EQ(r.exit_code, 1);
  const auto status = testing_support::read_lines(out + "/status.tsv");
  ASSERT_EQ(status.size(), 2u);
  EXPECT_NE(status[1].find("\t3\t"), std::string::npos) << status[1];
  EXPECT_NE(status[1].find("\trefused\tPREFLIGHT_FAILED check=plugin_loads: provider fixture"), std::string::npos)
      << status[1];
}

TEST(CliAb, UsageErrorsExitTwo) {
  const std::string out = fresh_out_dir("cli-ab-usage");
  const std::pair<std::string, std::string> cases[] = {
      {"ab --op x --out " + out + " --rounds 1 --cell-command 'c {out}'", "--rounds must be >= 2 (got 1)"},
      {"ab --op x --out " + out + " --cell-command 'c {outdir}'", "unknown placeholder {outdir}"},
      {"ab --op x --out " + out + " --cell-command 'c {out}' --a-env 1X=2", "--a-env '1X=2': expected NAME=VALUE"},
      {"ab --op x --out " + out + " --cell-command 'c {out}' --order shuffled", "--order: unknown round order 'shuffled'"},
      {"ab --op x --out " + out + " --cell-command 'c {out}' --a-plugin libx.so", "plugin 'libx.so': expected path/libfoo.so:symbol"},
      {"ab --op x --out " + out, "--cell-command uses {ledger}: give --shape-ledger"},  // the default: caliber run
      {"ab --op x --out " + out + " --shape-ledger l.jsonl", "--cell-command uses {matrix}: give --baseline-matrix"},
  };
  for (const auto& [args, fragment] : cases) {
    const auto r = run_cli(args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.err;
    EXPECT_NE(r.err.find(fragment), std::string::npos) << args << "\n" << r.err;
  }
  EXPECT_FALSE(fs::exists(out));
}

// --- caliber run as the cell --------------------------------------------------------------------
// Two builds of one plugin provider (tests/plugins/test_plugins.c; the slow build computes every
// output four times), named by two baseline matrices, over a small rmsnorm ledger on the host.

struct RunnerSides {
  std::string ledger, matrix_fast, matrix_slow;
};

RunnerSides runner_sides(const std::string& name) {
  const std::string dir = testing_support::temp_path(name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  ledger::RowTemplate t;
  t.op = ops::OpType::rmsnorm;
  std::vector<ShapeRow> shapes;
  // ~64K elements each: ~0.1 ms per call of the scalar plugin, ~0.4 ms for the slow build.
  for (auto [m, n] : {std::pair<std::int64_t, std::int64_t>{64, 1024}, {32, 2048}, {128, 512}}) {
    shapes.push_back(ledger::make_row(t, DType::fp32, {{"m", m}, {"n", n}, {"eps", 1e-6}}, Stage::mixed, std::nullopt,
                                      {SourceKind::manual, "test", ""}, ""));
  }
  RunnerSides s{dir + "/shape_ledger.jsonl", dir + "/fast.yaml", dir + "/slow.yaml"};
  write_shape_ledger(s.ledger, shapes);
  auto matrix = [](const std::string& library) {
    return "schema_version: 1\nkernel: rmsnorm\nop_type: rmsnorm\ndtype: [fp32]\nreference_provider: mine\n"
           "layout_contract: row_major\nproviders:\n  mine: {enabled: true, entrypoint: \"" +
           library + ":caliber_test_correct\", provider: plugin}\n";
  };
  std::ofstream(s.matrix_fast) << matrix(CALIBER_TEST_PLUGIN);
  std::ofstream(s.matrix_slow) << matrix(CALIBER_TEST_PLUGIN_SLOW);
  return s;
}

TEST(CliAb, TheSlowerPluginBuildIsCalledSlowerWithCaliberRunCells) {
  const RunnerSides sides = runner_sides("cli-ab-run-sides");
  const std::string out = fresh_out_dir("cli-ab-run-slow");
  // 4x the work on side B: six rounds decide every shape even on a loaded two-core machine.
  const auto r = run_cli("ab --op rmsnorm --rounds 6 --out " + out + " --shape-ledger " + sides.ledger +
                         " --a-matrix " + sides.matrix_fast + " --b-matrix " + sides.matrix_slow +
                         " --cell-timeout 120 --cell-command '{binary} run --backend host --op {op} --shape-ledger "
                         "{ledger} --baseline-matrix {matrix} --seed {seed} --out {out} --warmup 1 --min-samples 6 "
                         "--min-time-ms 0 --max-time-ms 10'");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("== rmsnorm: 6 rounds x 3 shapes"), std::string::npos) << r.out;
  EXPECT_EQ(count(r.out, "  B_SLOWER  "), 3) << r.out;
  EXPECT_NE(r.out.find("0 B_FASTER, 3 B_SLOWER, 0 UNDECIDED"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("!!! [caliber]"), std::string::npos) << r.out;  // one caliber on both sides
  const auto status = testing_support::read_lines(out + "/status.tsv");
  ASSERT_EQ(status.size(), 13u);
  for (std::size_t i = 1; i < status.size(); ++i) {
    EXPECT_NE(status[i].find("\trmsnorm\t0\t"), std::string::npos) << status[i];
    EXPECT_NE(status[i].find("\t3\t0\t"), std::string::npos) << status[i];  // 3 rows ok, 0 failed
  }
  for (const char* f : {"rmsnorm/r1_A/run_identity.json", "rmsnorm/r6_B/benchmark_results.jsonl",
                        "rmsnorm/r6_B/benchmark_results.csv"}) {
    EXPECT_TRUE(fs::exists(out + "/" + f)) << f;
  }
}

// Configs (docs/ab.md, "Configs: recorded once, replayed everywhere"): A's round 1 records the
// configurable plugin's choice, every other cell replays it; a cell command that drops the replay
// makes its rows record-vs-record, refused by name.
RunnerSides configurable_sides(const std::string& name) {
  RunnerSides s = runner_sides(name);
  std::ofstream(s.matrix_fast) << "schema_version: 1\nkernel: rmsnorm\nop_type: rmsnorm\ndtype: [fp32]\n"
                                  "reference_provider: mine\nlayout_contract: row_major\nproviders:\n"
                                  "  mine: {enabled: true, entrypoint: \"" CALIBER_TEST_PLUGIN
                                  ":caliber_test_configurable\", provider: plugin}\n";
  return s;
}

const char* kConfigCell =
    "{binary} run --backend host --op {op} --shape-ledger {ledger} --baseline-matrix {matrix} --seed {seed} "
    "--out {out} --warmup 1 --min-samples 6 --min-time-ms 0 --max-time-ms 2";

TEST(CliAb, ARoundOneConfigIsReplayedByEveryOtherCell) {
  const RunnerSides sides = configurable_sides("cli-ab-config-sides");
  const std::string out = fresh_out_dir("cli-ab-config");
  const auto r = run_cli("ab --op rmsnorm --rounds 2 --order random --seed 7 --out " + out + " --shape-ledger " +
                         sides.ledger + " --baseline-matrix " + sides.matrix_fast + " --cell-timeout 120 --cell-command '" +
                         kConfigCell + "'");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out.find("RECORD_VS_RECORD"), std::string::npos) << r.out;
  const auto a1 = read_benchmark_results(out + "/rmsnorm/r1_A/benchmark_results.jsonl");
  ASSERT_EQ(a1.size(), 3u);
  for (const auto& row : a1) {
    ASSERT_TRUE(row.config.has_value());
    EXPECT_EQ(row.config->pinning, ConfigPinning::recorded);
  }
  for (const char* cell : {"r1_B", "r2_A", "r2_B"}) {
    const auto rows = read_benchmark_results(out + "/rmsnorm/" + cell + "/benchmark_results.jsonl");
    ASSERT_EQ(rows.size(), 3u) << cell;
    for (const auto& row : rows) {
      ASSERT_TRUE(row.config.has_value()) << cell;
      EXPECT_EQ(*row.config, (ProviderConfig{ConfigPinning::replayed, "variant=a", "test plugin: variant=a",
                                             a1.front().run_id}))
          << cell;
    }
  }
}

TEST(CliAb, ACellThatChoosesAfreshIsRecordVsRecord) {
  const RunnerSides sides = configurable_sides("cli-ab-config-rvr-sides");
  const std::string out = fresh_out_dir("cli-ab-config-rvr");
  const auto r = run_cli("ab --op rmsnorm --rounds 2 --out " + out + " --shape-ledger " + sides.ledger +
                         " --baseline-matrix " + sides.matrix_fast + " --cell-timeout 120 --cell-command 'env -u "
                         "CALIBER_REPLAY_CONFIGS " + kConfigCell + "'");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_EQ(count(r.out, "!!! RECORD_VS_RECORD op=rmsnorm round=1 side=B: "), 3) << r.out;
  EXPECT_NE(r.out.find("A.r1 ran 'variant=a', this cell ran 'variant=a' (recorded)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("the remaining cells of rmsnorm are not run"), std::string::npos) << r.out;
  EXPECT_EQ(testing_support::read_lines(out + "/status.tsv").size(), 3u);  // header, A.r1, B.r1
  EXPECT_FALSE(fs::exists(out + "/rmsnorm/r2_A"));
}

TEST(CliAb, TheDefaultCellCommandIsCaliberRun) {
  for (const auto& b : available_backends()) {
    if (b.kind == BackendKind::cuda && b.device_count > 0) GTEST_SKIP() << "a CUDA device is visible: auto is cuda";
  }
  const RunnerSides sides = runner_sides("cli-ab-run-default-sides");
  const std::string out = fresh_out_dir("cli-ab-run-default");
  const auto r = run_cli("ab --op rmsnorm --rounds 2 --out " + out + " --shape-ledger " + sides.ledger +
                         " --baseline-matrix " + sides.matrix_fast + " --cell-timeout 120");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("== A and B are identical"), std::string::npos) << r.out;
  EXPECT_EQ(count(r.out, "noise     noise"), 3) << r.out;  // verdict and class
  const auto status = testing_support::read_lines(out + "/status.tsv");
  ASSERT_EQ(status.size(), 5u);
  for (std::size_t i = 1; i < status.size(); ++i) {
    EXPECT_NE(status[i].find("\trmsnorm\t0\t"), std::string::npos) << status[i];
    EXPECT_NE(status[i].find("\t3\t0\t"), std::string::npos) << status[i];
  }
}

TEST(CliAb, AMalformedLedgerIsAnInputErrorBeforeAnyCell) {
  const RunnerSides sides = runner_sides("cli-ab-run-bad-ledger");
  std::ofstream(sides.ledger, std::ios::app) << "{\"shape_id\": \"sha1:trunc";
  const std::string out = fresh_out_dir("cli-ab-run-bad-ledger-out");
  const auto r = run_cli("ab --op rmsnorm --rounds 2 --out " + out + " --shape-ledger " + sides.ledger +
                         " --baseline-matrix " + sides.matrix_fast);
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_EQ(r.err.rfind("caliber: error: " + sides.ledger + ":4: ", 0), 0u) << r.err;
  EXPECT_FALSE(fs::exists(out + "/status.tsv"));
}

}  // namespace
}  // namespace caliber
