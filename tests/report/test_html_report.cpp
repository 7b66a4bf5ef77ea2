// report.html from rows in memory: text from the data is escaped, charts and contracts are there.
#include <gtest/gtest.h>

#include <sstream>

#include "caliber/benchmark_report.h"
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

}  // namespace
}  // namespace caliber
