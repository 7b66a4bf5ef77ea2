// Opens an HTML file in headless Chromium (Debian's `chromium` package) and reports what the page
// logged and the DOM it rendered. Tests skip with a clear message when Chromium is not installed.
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "support/run_cli.h"

namespace caliber::testing_support {

// The Chromium executable on PATH ("" when none).
inline std::string find_chromium() {
  const char* path = std::getenv("PATH");
  if (!path) return "";
  for (const char* name : {"chromium", "chromium-browser", "google-chrome"}) {
    std::stringstream ss(path);
    std::string dir;
    while (std::getline(ss, dir, ':')) {
      const std::filesystem::path p = std::filesystem::path(dir) / name;
      if (std::filesystem::is_regular_file(p) && ::access(p.c_str(), X_OK) == 0) return p.string();
    }
  }
  return "";
}

struct ChromiumPage {
  int exit_code = -1;
  std::string dom;                     // --dump-dom output
  std::vector<std::string> console;    // every console message the page produced (errors included)
};

// Loads `html_file` with networking and every background service off, in a fresh profile.
// Console messages (a CSP violation from an attempted fetch, a script error) are logged by Chromium
// as lines containing ":CONSOLE".
inline ChromiumPage open_in_chromium(const std::string& chromium, const std::string& html_file,
                                     const std::string& extra_flags = "") {
  static int counter = 0;
  const std::string profile = ::testing::TempDir() + "/chromium-profile-" + std::to_string(::getpid()) + "-" +
                              std::to_string(counter++);
  std::filesystem::remove_all(profile);
  const std::string cmd = chromium +
                          " --headless --no-sandbox --disable-gpu --disable-quic --no-first-run"
                          " --disable-background-networking --disable-component-update --disable-sync --disable-dev-shm-usage"
                          " --user-data-dir=" + profile + " --enable-logging=stderr --v=0 " + extra_flags +
                          " --dump-dom 'file://" + std::filesystem::absolute(html_file).string() + "'";
  const CliRun run = run_cli_command("timeout 120 " + cmd);
  ChromiumPage page;
  page.exit_code = run.exit_code;
  page.dom = run.out;
  std::stringstream lines(run.err);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.find(":CONSOLE") != std::string::npos) page.console.push_back(line);
  }
  std::filesystem::remove_all(profile);
  return page;
}

}  // namespace caliber::testing_support

namespace caliber::testing_support {

inline std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

// data-points="N" of the SVG with this id in the rendered DOM (-1 when absent).
inline long svg_points(const std::string& dom, const std::string& id) {
  const auto at = dom.find("id=\"" + id + "\"");
  if (at == std::string::npos) return -1;
  const auto p = dom.find("data-points=\"", at);
  if (p == std::string::npos) return -1;
  return std::stol(dom.substr(p + 13));
}

// A caliber report.html opened in Chromium: no console message (no script error, no blocked
// fetch), every chart rendered, and a contract beside each one. With `require_comparisons`, the
// speedup and roofline charts must hold data points (a host run on a busy machine may leave every
// row unstable, so the end-to-end test does not require them).
inline void expect_report_page_renders(const std::string& chromium, const std::string& html_file,
                                       std::size_t shapes, bool require_comparisons = true) {
  const ChromiumPage page = open_in_chromium(chromium, html_file);
  ASSERT_EQ(page.exit_code, 0) << "chromium failed on " << html_file;
  EXPECT_TRUE(page.console.empty()) << page.console.front();
  const std::string& dom = page.dom;
  for (const char* id : {"speedup-chart", "roofline-chart", "coverage-grid", "decision", "classification-table"}) {
    EXPECT_NE(dom.find(std::string("id=\"") + id + "\""), std::string::npos) << id;
  }
  EXPECT_GE(svg_points(dom, "speedup-svg"), require_comparisons ? 1 : 0);
  EXPECT_GE(svg_points(dom, "roofline-svg"), require_comparisons ? 1 : 0);
  std::size_t latency_with_data = 0;
  for (std::size_t i = 1; i <= shapes; ++i) {
    EXPECT_NE(dom.find("id=\"latency-" + std::to_string(i) + "\""), std::string::npos) << "latency-" << i;
    latency_with_data += svg_points(dom, "latency-svg-" + std::to_string(i)) > 0;
  }
  EXPECT_GT(latency_with_data, 0u);
  // One contract beside every chart: speedup, roofline, one per shape, coverage.
  EXPECT_EQ(count_of(dom, "<figure class=\"chart"), shapes + 3);
  EXPECT_EQ(count_of(dom, "<aside class=\"contract\">"), shapes + 3);
}

}  // namespace caliber::testing_support
