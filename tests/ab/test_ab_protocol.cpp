// The A/B protocol with an injected cell runner (no processes): order, status.tsv, the identity
// refusal before any latency, the round-1 code check, a failed cell, and drift mid-campaign.
#include "ab/ab_protocol.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include "core/atomic_file.h"
#include "caliber/errors.h"
#include "caliber/result_json.h"
#include "core/json_fields.h"
#include "support/run_cli.h"
#include "support/text_lines.h"
#include "support/sample_identity.h"
#include "support/sample_results.h"

namespace caliber {
namespace {

namespace fs = std::filesystem;

// What a fake cell leaves behind, decided per (round, side).
struct FakeCell {
  int rc = 0;
  double a_us = 100, b_us = 80;  // the one shape's value on side A / B
  std::optional<RunIdentity> identity = testing_support::sample_identity();
  std::optional<CodeFingerprint> fingerprint;
};

class FakeRunner final : public CellRunner {
 public:
  std::function<FakeCell(int round, char side)> decide;
  std::vector<std::string> calls;  // "r1A", "r1B", ...
  SubprocessResult run(const CellSpec& cell, const std::string& log) override {
    calls.push_back("r" + std::to_string(cell.round) + cell.side);
    const FakeCell f = decide(cell.round, cell.side);
    std::ofstream(log) << "cell " << cell.command << "\n";
    SubprocessResult r;
    r.exit_code = f.rc;
    r.elapsed_s = 0.25;
    if (f.rc != 0) return r;
    Result res = testing_support::sample_result();
    res.value_us = cell.side == 'A' ? f.a_us : f.b_us;
    write_file_atomically(cell.dir + "/results.json", [&](std::ostream& o) { write_results_json(o, {res}); });
    if (f.identity) {
      RunIdentity id = *f.identity;
      id.outputs = {"results.json"};
      write_run_identity(cell.dir + "/run_identity.json", id);
    }
    if (f.fingerprint) write_code_fingerprint(cell.dir + "/code_fingerprint.json", *f.fingerprint);
    return r;
  }
};

CodeFingerprint fp(char c) {
  CodeFingerprint f;
  f.source = "fixture";
  f.code = {{"kernel", std::string(64, c)}};
  return f;
}

AbPlan plan(const std::string& name, int rounds = 6) {
  AbPlan p;
  p.ops = {"copy"};
  p.rounds = rounds;
  p.cell_command = "cell --side {side} --out {out}";
  p.out_dir = testing_support::temp_path(name);
  fs::remove_all(p.out_dir);
  p.b.env = {{"SWITCH", "1"}};  // the sides differ
  return p;
}

TEST(AbProtocol, RunsEveryCellInAlternatingOrderAndReports) {
  FakeRunner runner;
  runner.decide = [](int, char side) {
    FakeCell f;
    f.fingerprint = fp(side == 'A' ? 'a' : 'b');
    return f;
  };
  const AbPlan p = plan("ab-protocol-ok");
  std::ostringstream report, progress;
  const AbRunResult r = run_ab(p, runner, default_cell_results_reader(), report, progress);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(runner.calls, (std::vector<std::string>{"r1A", "r1B", "r2B", "r2A", "r3A", "r3B", "r4B", "r4A", "r5A",
                                                    "r5B", "r6B", "r6A"}));
  ASSERT_EQ(r.ops.size(), 1u);
  ASSERT_TRUE(r.ops[0].reported) << r.ops[0].no_report_reason;
  EXPECT_EQ(r.ops[0].slower_shapes + r.ops[0].undecided_shapes, 0);
  EXPECT_EQ(r.ops[0].faster_shapes, 1);
  EXPECT_NEAR(r.ops[0].shapes[0].change_pct, -20, 1e-12);
  EXPECT_NE(report.str().find(">>> copy: the sides executed different code"), std::string::npos) << report.str();
  EXPECT_NE(report.str().find("1 B_FASTER, 0 B_SLOWER, 0 UNDECIDED"), std::string::npos) << report.str();

  const auto status = testing_support::read_lines(p.out_dir + "/status.tsv");
  ASSERT_EQ(status.size(), 13u);
  EXPECT_EQ(status[0], "round\tside\top\trc\telapsed_s\trows_ok\trows_failed\trows_unstable\trows_warned\tstate\tnote");
  EXPECT_EQ(status[1], "1\tA\tcopy\t0\t0.25\t1\t0\t0\t1\tok\t");
  EXPECT_EQ(status[3].substr(0, 8), "2\tB\tcopy");
  const nlohmann::json plan_doc = parse_json_document(read_text_file(p.out_dir + "/ab_plan.json"), "ab_plan.json");
  EXPECT_EQ(plan_doc["round_orders"], nlohmann::json({"AB", "BA", "AB", "BA", "AB", "BA"}));
  EXPECT_EQ(plan_doc["identical_sides"], false);
  EXPECT_EQ(read_text_file(p.out_dir + "/ab_report.txt"), report.str());
  EXPECT_EQ(testing_support::read_lines(p.out_dir + "/ab_report.tsv").size(), 2u);
  const nlohmann::json rep = parse_json_document(read_text_file(p.out_dir + "/ab_report.json"), "ab_report.json");
  EXPECT_EQ(rep["ops"][0]["shapes"][0]["verdict"], "B_FASTER");
  EXPECT_EQ(rep["ops"][0]["shapes"][0]["a_us"].size(), 6u);
}

TEST(AbProtocol, ACaliberMismatchIsRefusedAfterRoundOneBeforeAnyLatency) {
  FakeRunner runner;
  runner.decide = [](int, char side) {
    FakeCell f;
    if (side == 'B') f.identity->device.arch = "sm_89";
    return f;
  };
  const AbPlan p = plan("ab-protocol-mismatch");
  std::ostringstream report, progress;
  EXPECT_THROW(run_ab(p, runner, default_cell_results_reader(), report, progress), CaliberMismatchError);
  EXPECT_EQ(runner.calls, (std::vector<std::string>{"r1A", "r1B"}));
  EXPECT_NE(report.str().find("!!! [caliber] device.arch: A=sm_90, B=sm_89\n"), std::string::npos) << report.str();
  EXPECT_EQ(report.str().find("B vs A"), std::string::npos) << report.str();  // no latency was compared
  EXPECT_EQ(read_text_file(p.out_dir + "/ab_report.txt"), report.str());

  // The override prints the difference and runs every round.
  FakeRunner again;
  again.decide = runner.decide;
  AbPlan allowed = plan("ab-protocol-mismatch-allowed");
  allowed.allow_caliber_mismatch = true;
  std::ostringstream report2;
  const AbRunResult r = run_ab(allowed, again, default_cell_results_reader(), report2, progress);
  EXPECT_EQ(again.calls.size(), 12u);
  EXPECT_TRUE(r.ops[0].reported);
  EXPECT_NE(report2.str().find("!!! [caliber] device.arch: A=sm_90, B=sm_89\n"), std::string::npos);
  EXPECT_NE(report2.str().find("proceeding anyway"), std::string::npos);
}

TEST(AbProtocol, AMissingIdentityIsRefused) {
  FakeRunner runner;
  runner.decide = [](int, char side) {
    FakeCell f;
    if (side == 'A') f.identity.reset();
    return f;
  };
  std::ostringstream report, progress;
  EXPECT_THROW(run_ab(plan("ab-protocol-no-identity"), runner, default_cell_results_reader(), report, progress),
               CaliberMismatchError);
  EXPECT_NE(report.str().find("!!! [caliber] run_identity.json: A=<missing: no run_identity.json for "),
            std::string::npos)
      << report.str();
}

TEST(AbProtocol, DriftWithinASideIsRefusedWithTheRoundsNamed) {
  FakeRunner runner;
  runner.decide = [](int round, char side) {
    FakeCell f;
    if (round == 4 && side == 'A') f.identity->device.driver_version = "13.1";
    return f;
  };
  std::ostringstream report, progress;
  EXPECT_THROW(run_ab(plan("ab-protocol-drift"), runner, default_cell_results_reader(), report, progress),
               CaliberMismatchError);
  EXPECT_NE(report.str().find("!!! [caliber] device.driver_version: A.r1=13.0, A.r4=13.1\n"), std::string::npos)
      << report.str();
}

TEST(AbProtocol, IdenticalCodeAfterRoundOneSkipsTheOp) {
  FakeRunner runner;
  runner.decide = [](int, char) {
    FakeCell f;
    f.fingerprint = fp('a');
    return f;
  };
  std::ostringstream report, progress;
  AbRunResult r = run_ab(plan("ab-protocol-no-code-diff"), runner, default_cell_results_reader(), report, progress);
  EXPECT_EQ(runner.calls.size(), 2u);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.skipped_no_code_diff, std::vector<std::string>{"copy"});
  EXPECT_FALSE(r.ops[0].reported);
  EXPECT_NE(report.str().find("!!! NO_CODE_DIFF op=copy: both sides executed byte-identical code"), std::string::npos)
      << report.str();
  // Allowed: all rounds run and are reported.
  FakeRunner again;
  again.decide = runner.decide;
  AbPlan allowed = plan("ab-protocol-no-code-diff-allowed");
  allowed.allow_no_code_diff = true;
  r = run_ab(allowed, again, default_cell_results_reader(), report, progress);
  EXPECT_EQ(again.calls.size(), 12u);
  EXPECT_TRUE(r.ops[0].reported);
}

TEST(AbProtocol, AFailedCellStopsItsOpWithoutAReport) {
  FakeRunner runner;
  runner.decide = [](int round, char side) {
    FakeCell f;
    if (round == 3 && side == 'B') f.rc = 1;
    return f;
  };
  AbPlan p = plan("ab-protocol-failed");
  p.ops = {"copy", "scale"};
  std::ostringstream report, progress;
  const AbRunResult r = run_ab(p, runner, default_cell_results_reader(), report, progress);
  EXPECT_EQ(r.exit_code, 1);
  ASSERT_EQ(r.ops.size(), 2u);
  EXPECT_FALSE(r.ops[0].reported);
  EXPECT_FALSE(r.ops[1].reported);
  // Each op stops at its failed cell (round 3, B) and the next op still runs.
  EXPECT_EQ(runner.calls, (std::vector<std::string>{"r1A", "r1B", "r2B", "r2A", "r3A", "r3B", "r1A", "r1B", "r2B",
                                                    "r2A", "r3A", "r3B"}));
  EXPECT_NE(report.str().find("!!! copy round 3 side B: exit 1 (see "), std::string::npos) << report.str();
  EXPECT_NE(report.str().find("!!! copy: round 3 side B failed (rc 1)"), std::string::npos) << report.str();
  const auto status = testing_support::read_lines(p.out_dir + "/status.tsv");
  ASSERT_EQ(status.size(), 13u);
  EXPECT_EQ(status[6].rfind("3\tB\tcopy\t1\t0.25\t0\t0\t0\t0\tfailed\texit 1 (see ", 0), 0u) << status[6];
}

}  // namespace
}  // namespace caliber
