// caliber screen end to end on the host fixture: each verdict, what it lets through, and the
// caliber columns of screen.tsv.
#include <gtest/gtest.h>

#include <algorithm>

#include "support/ab_fixture.h"
#include "support/run_cli.h"
#include "support/text_lines.h"

namespace caliber {
namespace {

using testing_support::fixture_args;
using testing_support::fixture_plugin;
using testing_support::fresh_out_dir;
using testing_support::run_cli;

std::vector<std::vector<std::string>> tsv(const std::string& path) {
  std::vector<std::vector<std::string>> rows;
  for (const std::string& line : testing_support::read_lines(path)) rows.push_back(testing_support::split_tabs(line));
  return rows;
}

TEST(CliScreen, ChangedCodePrintsOnePairAndTheCaliberColumns) {
  const std::string out = fresh_out_dir("cli-screen-changed");
  const auto r = run_cli(fixture_args("screen", out, fixture_plugin(CALIBER_AB_FIXTURE_FAST),
                                      fixture_plugin(CALIBER_AB_FIXTURE_SLOW)));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("fixture: CODE_CHANGED -- the executed code differs: worth a multi-round A/B"), std::string::npos);
  EXPECT_NE(r.out.find("over 3 shapes -- one pair (not yet a verdict)"), std::string::npos) << r.out;
  const auto rows = tsv(out + "/screen.tsv");
  ASSERT_EQ(rows.size(), 2u);
  const auto& h = rows[0];
  const auto col = [&](const std::string& name) {
    return static_cast<std::size_t>(std::find(h.begin(), h.end(), name) - h.begin());
  };
  EXPECT_EQ(rows[1][col("verdict")], "CODE_CHANGED");
  EXPECT_EQ(rows[1][col("kernels_a")], "1");
  EXPECT_NE(rows[1][col("fingerprint_a")], rows[1][col("fingerprint_b")]);
  EXPECT_GT(std::stod(rows[1][col("delta_median_pct")]), 50);  // 3x the work
  // The caliber columns are exactly `caliber identity --tsv` of the cell.
  const auto id = run_cli("identity " + out + "/fixture/r1_A --tsv");
  ASSERT_EQ(id.exit_code, 0);
  const auto header = testing_support::split_tabs(id.out.substr(0, id.out.find('\n')));
  const auto values = testing_support::split_tabs(id.out.substr(id.out.find('\n') + 1, id.out.size() - id.out.find('\n') - 2));
  ASSERT_EQ(header.size(), 9u);
  for (std::size_t i = 0; i < header.size(); ++i) {
    ASSERT_LT(col(header[i]), h.size()) << header[i];
    EXPECT_EQ(rows[1][col(header[i])], values[i]) << header[i];
  }
}

TEST(CliScreen, IdenticalCodeIsTheNoiseFloorLabelledSo) {
  const std::string out = fresh_out_dir("cli-screen-same");
  const auto r = run_cli(fixture_args("screen", out, fixture_plugin(CALIBER_AB_FIXTURE_FAST),
                                      fixture_plugin(CALIBER_AB_FIXTURE_FAST_COPY)));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("fixture: NO_CODE_DIFF -- both sides executed byte-identical code"), std::string::npos);
  EXPECT_NE(r.out.find("-- noise floor of this op (identical code; not a result)"), std::string::npos) << r.out;
}

TEST(CliScreen, NoKernelNoRowsAndUnscreenedPrintWhatTheyMayOnly) {
  std::string out = fresh_out_dir("cli-screen-no-kernel");
  auto r = run_cli(fixture_args("screen", out, fixture_plugin(CALIBER_AB_FIXTURE_FAST),
                                fixture_plugin(CALIBER_AB_FIXTURE_SLOW), "", "--iters 10 --no-code-ran"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("fixture: NO_KERNEL -- rows were measured but sides A and B executed no device code"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("fixture: no speedup is printed for NO_KERNEL"), std::string::npos);
  EXPECT_EQ(r.out.find("B vs A"), std::string::npos);
  EXPECT_EQ(tsv(out + "/screen.tsv")[1][14], "");  // delta_median_pct empty

  out = fresh_out_dir("cli-screen-no-rows");
  r = run_cli(fixture_args("screen", out, fixture_plugin(CALIBER_AB_FIXTURE_FAST),
                           fixture_plugin(CALIBER_AB_FIXTURE_SLOW), "", "--iters 10 && test {side} = A"));
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.out.find("fixture: NO_ROWS -- nothing comparable was measured (rc A=0, B=1"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("fixture: no speedup is printed for NO_ROWS"), std::string::npos);
  EXPECT_EQ(r.out.find("B vs A"), std::string::npos);

  out = fresh_out_dir("cli-screen-unscreened");
  r = run_cli(fixture_args("screen", out, fixture_plugin(CALIBER_AB_FIXTURE_FAST),
                           fixture_plugin(CALIBER_AB_FIXTURE_SLOW), "", "--iters 10 --no-fingerprint"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("fixture: UNSCREENED -- sides A and B recorded no code fingerprint"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("-- one pair, code difference unknown (not a result)"), std::string::npos) << r.out;
}

TEST(CliScreen, AMissingIdentityIsRefusedBeforeTheDelta) {
  const std::string out = fresh_out_dir("cli-screen-no-identity");
  const auto r = run_cli(fixture_args("screen", out, fixture_plugin(CALIBER_AB_FIXTURE_FAST),
                                      fixture_plugin(CALIBER_AB_FIXTURE_SLOW), "", "--iters 10 --no-identity"));
  EXPECT_EQ(r.exit_code, 4) << r.out << r.err;
  EXPECT_NE(r.out.find("!!! [caliber] run_identity.json: A=<missing: no run_identity.json for "), std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("B vs A"), std::string::npos);
}

}  // namespace
}  // namespace caliber
