// The history end to end on the host backend: runs added by --history and by `history add`
// (each once), the trend as JSON, the report opened in headless Chromium, thresholds calibrated
// and read by compare; bad input and bad options write nothing.
#include <filesystem>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "io/shape_ledger_json.h"
#include "ledger/importers.h"
#include "support/cli_run.h"
#include "support/headless_chromium.h"

namespace caliber {
namespace {

using testing_support::fresh_dir;
using testing_support::run_caliber;
using testing_support::slurp;
using testing_support::write_text;

ShapeRow rms_row(std::int64_t m) {
  ledger::RowTemplate t;
  t.op = ops::OpType::rmsnorm;
  return ledger::make_row(t, DType::fp32, {{"m", m}, {"n", 64}, {"eps", 1e-6}}, Stage::mixed, std::nullopt,
                          {SourceKind::manual, "test", ""}, "");
}

// A directory with a two-shape rmsnorm ledger and a matrix of the built-in provider.
std::string run_inputs(const std::string& name) {
  const std::string dir = fresh_dir(name);
  write_shape_ledger(dir + "/shape_ledger.jsonl", {rms_row(4), rms_row(8)});
  write_text(dir + "/baseline_matrix.yaml",
             "schema_version: 1\nkernel: rmsnorm\nop_type: rmsnorm\ndtype: [fp32]\nreference_provider: caliber\n"
             "layout_contract: row_major\nproviders:\n"
             "  caliber: {enabled: true, entrypoint: \"builtin:caliber\", provider: caliber}\n");
  return dir;
}

testing_support::CliResult run_into_history(const std::string& dir, int i) {
  return run_caliber({"run", "--op", "rmsnorm", "--backend", "host", "--shape-ledger", dir + "/shape_ledger.jsonl",
                      "--baseline-matrix", dir + "/baseline_matrix.yaml", "--out", dir + "/r" + std::to_string(i),
                      "--max-time-ms", "2", "--min-samples", "6", "--warmup", "1", "--history", dir + "/h.sqlite",
                      "--commit", "c" + std::to_string(i)});
}

TEST(HistoryCli, RunsAddedOnceTrendReportAndCalibratedThresholdsCompareReads) {
  const std::string dir = run_inputs("history_cli");
  for (int i = 0; i < 3; ++i) {
    const auto r = run_into_history(dir, i);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find("history: added " + dir + "/r" + std::to_string(i)), std::string::npos) << r.err;
  }
  const auto again = run_caliber({"history", "add", "--history", dir + "/h.sqlite", dir + "/r1"});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.out.find("already stored: " + dir + "/r1"), std::string::npos) << again.out;

  const auto trend = run_caliber({"history", "trend", "--history", dir + "/h.sqlite", "--json"});
  ASSERT_EQ(trend.exit_code, 0) << trend.err;
  const nlohmann::json j = nlohmann::json::parse(trend.out);
  ASSERT_EQ(j["series"].size(), 2u);
  for (const auto& s : j["series"]) {
    EXPECT_EQ(s["name"], "rmsnorm");
    ASSERT_EQ(s["points"].size(), 3u);
    EXPECT_EQ(s["points"][2]["commit"], "c2");
    EXPECT_EQ(s["points"][0]["status"], "ok");
    EXPECT_TRUE(s["points"][0]["ci_low_us"].is_number()) << "the interval of a run row with samples";
  }

  const auto cal = run_caliber({"thresholds", "calibrate", "--history", dir + "/h.sqlite", "--min-runs", "3",
                                "--out", dir + "/thresholds.json"});
  ASSERT_EQ(cal.exit_code, 0) << cal.err;
  EXPECT_NE(cal.out.find("2 rules calibrated"), std::string::npos) << cal.out;
  const auto cmp = run_caliber({"compare", dir + "/r0", dir + "/r2", "--thresholds", dir + "/thresholds.json"});
  EXPECT_EQ(cmp.exit_code, 0) << cmp.err;
  EXPECT_NE(cmp.out.find("GATE"), std::string::npos) << cmp.out;
}

TEST(HistoryCli, TheReportRendersInHeadlessChromiumWithOnePlotPerSeries) {
  const std::string dir = fresh_dir("history_cli_report");
  for (int i = 0; i < 3; ++i) {
    const std::string json = dir + "/b" + std::to_string(i) + ".json";
    const auto b = run_caliber({"bench", "--backend", "host", "--kernel", "tiny,copy", "--size", "64KiB", "--iters",
                                "8", "--json", json, "--history", dir + "/h.sqlite", "--commit", "c" + std::to_string(i)});
    ASSERT_EQ(b.exit_code, 0) << b.err;
  }
  const auto r = run_caliber({"history", "report", "--history", dir + "/h.sqlite", "--out", dir + "/h.html"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("2 series"), std::string::npos) << r.out;
  const std::string chromium = testing_support::find_chromium();
  if (chromium.empty()) {
    GTEST_SKIP() << "chromium is not installed (Debian package 'chromium'; scripts/test.sh installs it): "
                    "the history report was not opened in a browser";
  }
  const auto page = testing_support::open_in_chromium(chromium, dir + "/h.html");
  ASSERT_EQ(page.exit_code, 0);
  EXPECT_TRUE(page.console.empty()) << page.console.front();
  EXPECT_EQ(testing_support::count_of(page.dom, "<section class=\"series\""), 2u);
  EXPECT_EQ(testing_support::svg_points(page.dom, "series-1"), 3);
  EXPECT_EQ(testing_support::svg_points(page.dom, "series-2"), 3);
}

TEST(HistoryCli, ABadInputAmongTheRunsAddsNothing) {
  const std::string dir = fresh_dir("history_cli_bad");
  ASSERT_EQ(run_caliber({"bench", "--backend", "host", "--kernel", "tiny", "--iters", "4", "--json",
                         dir + "/good.json"}).exit_code, 0);
  write_text(dir + "/bad.json", "{\"kind\": \"caliber.results\",");
  const auto r = run_caliber({"history", "add", "--history", dir + "/h.sqlite", dir + "/good.json", dir + "/bad.json"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(dir + "/bad.json"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir + "/h.sqlite")) << "the history was opened before the inputs were read";
}

TEST(HistoryCli, HistoryOptionsAreCheckedBeforeAnythingIsMeasured) {
  const std::string dir = fresh_dir("history_cli_options");
  auto bench = [&](std::vector<std::string> extra) {
    std::vector<std::string> a = {"bench", "--backend", "host", "--kernel", "tiny", "--iters", "4"};
    a.insert(a.end(), extra.begin(), extra.end());
    return run_caliber(a);
  };
  const auto no_file = bench({"--history", dir + "/h.sqlite"});
  EXPECT_EQ(no_file.exit_code, 2);
  EXPECT_NE(no_file.err.find("--history needs --json or --csv"), std::string::npos) << no_file.err;
  const auto no_history = bench({"--commit", "abc", "--json", dir + "/x.json"});
  EXPECT_EQ(no_history.exit_code, 2);
  EXPECT_NE(no_history.err.find("--commit needs --history"), std::string::npos) << no_history.err;
  const auto unreachable = bench({"--history", dir + "/missing/dir/h.sqlite", "--json", dir + "/y.json"});
  EXPECT_EQ(unreachable.exit_code, 2);
  EXPECT_NE(unreachable.err.find("cannot open the history database"), std::string::npos) << unreachable.err;
  EXPECT_FALSE(std::filesystem::exists(dir + "/x.json"));
  EXPECT_FALSE(std::filesystem::exists(dir + "/y.json"));
}

TEST(HistoryCli, CalibratingAShortHistoryRefusesEverySeriesAndWritesNothing) {
  const std::string dir = fresh_dir("history_cli_short");
  ASSERT_EQ(run_caliber({"bench", "--backend", "host", "--kernel", "tiny", "--iters", "4", "--json", dir + "/b.json",
                         "--history", dir + "/h.sqlite"}).exit_code, 0);
  const auto r = run_caliber({"thresholds", "calibrate", "--history", dir + "/h.sqlite", "--out", dir + "/t.json"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("refused: series 1 tiny"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1 measured runs; 10 needed"), std::string::npos) << r.out;
  EXPECT_FALSE(std::filesystem::exists(dir + "/t.json"));
}

}  // namespace
}  // namespace caliber
