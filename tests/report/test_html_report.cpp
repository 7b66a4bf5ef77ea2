// report.html from rows in memory: text from the data is escaped, charts and contracts are there.
#include <gtest/gtest.h>

#include <sstream>

#include "report/benchmark_report.h"
#include "support/headless_chromium.h"
#include "support/report_rows.h"

namespace caliber {
namespace {

using testing_support::count_of;
using testing_support::ledger_shape;
using testing_support::ok_result;
using testing_support::status_result;

TEST(HtmlReportText, TextFromTheDataIsEscaped) {
  const ShapeRow s = ledger_shape(4096, 4096, "<b>model</b>");
  BenchmarkResultRow evil = ok_result(s, "<script>alert(1)</script>", 30);
  BenchmarkResultRow failed = status_result(s, "other", BenchmarkStatus::failed, "<img src=x onerror=alert(1)>");
  const BenchmarkReport r = build_benchmark_report({s}, {ok_result(s, "caliber", 20), evil, failed}, "caliber", {},
                                                   ReportSources{"l", "r", "", "", "m"});
  std::ostringstream out;
  write_html_report(out, r);
  const std::string html = out.str();
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("<img"), std::string::npos);
  EXPECT_EQ(html.find("<b>model"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(html.find("&lt;img src=x onerror=alert(1)&gt;"), std::string::npos);
  // Charts: speedup, roofline, one latency chart for the one shape, coverage; a contract beside each.
  EXPECT_EQ(count_of(html, "<figure class=\"chart"), 4u);
  EXPECT_EQ(count_of(html, "<aside class=\"contract\">"), 4u);
  EXPECT_NE(html.find("no measured ceilings for this device"), std::string::npos);
}

// The config a provider chose (docs/runner.md, "Configs recorded and replayed") is under its
// status in the coverage grid: the description shown, the key and description on hover.
TEST(HtmlReportText, TheCoverageGridShowsTheConfigOfARow) {
  const ShapeRow s = ledger_shape(4096, 4096);
  BenchmarkResultRow tuned = ok_result(s, "tuned", 25);
  tuned.config = ProviderConfig{ConfigPinning::replayed, "panel=128", "panels of <128> columns", "run-0"};
  BenchmarkResultRow keyed = ok_result(s, "cublaslt", 22);
  keyed.config = ProviderConfig{ConfigPinning::recorded, "algo 66", "", ""};
  const BenchmarkReport r = build_benchmark_report({s}, {ok_result(s, "caliber", 20), tuned, keyed}, "caliber", {},
                                                   ReportSources{"l", "r", "", "", "m"});
  std::ostringstream out;
  write_html_report(out, r);
  const std::string html = out.str();
  EXPECT_NE(html.find("<small class=\"config\" title=\"key panel=128: panels of &lt;128&gt; columns\">config panels "
                      "of &lt;128&gt; columns (replayed from run run-0)</small>"),
            std::string::npos)
      << html;
  // Without a description, the key is shown.
  EXPECT_NE(html.find("<small class=\"config\" title=\"key algo 66\">config algo 66 (recorded)</small>"),
            std::string::npos);
  EXPECT_EQ(count_of(html, "<small class=\"config\""), 2u);  // the candidate chose nothing
}

}  // namespace
}  // namespace caliber
