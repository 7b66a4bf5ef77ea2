// report.html in headless Chromium: it renders every chart with its contract, logs nothing, and
// fetches nothing (a Content Security Policy forbids it; Chromium would log the attempt).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "support/headless_chromium.h"
#include "support/run_cli.h"

namespace caliber {
namespace {

namespace fs = std::filesystem;
using testing_support::find_chromium;

const std::string kFixture = std::string(CALIBER_TEST_DATA) + "/report/fixture";

std::string fixture_report() {
  const std::string out = testing_support::temp_path("html-report");
  fs::remove_all(out);
  const auto r = testing_support::run_cli_in(kFixture,
                                             "report --shape-ledger shape_ledger.jsonl --results benchmark_results.jsonl "
                                             "--candidate caliber --ceilings device_ceilings.json --out " + out);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return out + "/report.html";
}

TEST(HtmlReport, IsOneSelfContainedFile) {
  const std::string html = testing_support::read_file_text(fixture_report());
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(html.find("Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\""),
            std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("src="), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  // The only URLs are the SVG namespace names of the inline charts.
  EXPECT_EQ(testing_support::count_of(html, "https:"), 0u);
  EXPECT_EQ(testing_support::count_of(html, "http:"), testing_support::count_of(html, "xmlns=\"http://www.w3.org/2000/svg\""));
}

TEST(HtmlReport, RendersInHeadlessChromium) {
  const std::string chromium = find_chromium();
  if (chromium.empty()) {
    GTEST_SKIP() << "chromium is not installed (Debian package 'chromium'; scripts/test.sh installs it): "
                    "the HTML report was not opened in a browser";
  }
  testing_support::expect_report_page_renders(chromium, fixture_report(), 9);
}

TEST(HtmlReport, TheBrowserCheckCatchesAPageThatTriesTheNetwork) {
  const std::string chromium = find_chromium();
  if (chromium.empty()) GTEST_SKIP() << "chromium is not installed (Debian package 'chromium')";
  std::string html = testing_support::read_file_text(fixture_report());
  html.replace(html.find("<body>"), 6, "<body><img src=\"https://example.invalid/pixel.png\">");
  const std::string page_file = testing_support::temp_path("leaky-report.html");
  std::ofstream(page_file) << html;
  const auto page = testing_support::open_in_chromium(chromium, page_file);
  ASSERT_EQ(page.exit_code, 0);
  ASSERT_EQ(page.console.size(), 1u);
  EXPECT_NE(page.console[0].find("Content Security Policy"), std::string::npos) << page.console[0];
}

}  // namespace
}  // namespace caliber
