// The plugin_loads preflight of caliber run (docs/preflight.md): a plugin's constructors and entry
// run in a child process, so an entry that exits, crashes or hangs fails the check (exit 3, one
// line naming the matrix's file, line and field) instead of ending the run; a library named
// outside caliber's plugin directory is never loaded.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "io/shape_ledger_json.h"
#include "support/cli_run.h"
#include "support/manual_row.h"

namespace caliber {
namespace {

using testing_support::fresh_dir;
using testing_support::run_caliber;
using testing_support::write_text;

struct Outcome {
  int exit_code = -1;
  std::string err;
  double took_s = 0;
};

// caliber run on one rmsnorm shape with the test plugin's `symbol` as provider "bad" (line 8 of
// the matrix).
Outcome run_with_entry(const std::string& name, const std::string& entrypoint,
                       const std::vector<std::string>& extra = {}) {
  const std::string dir = fresh_dir(name);
  write_shape_ledger(dir + "/shape_ledger.jsonl",
                     {testing_support::manual_row(ops::OpType::rmsnorm, DType::fp32, {{"m", 4}, {"n", 8}, {"eps", 1e-6}})});
  write_text(dir + "/baseline_matrix.yaml",
             "schema_version: 1\nkernel: rmsnorm\nop_type: rmsnorm\ndtype: [fp32]\nreference_provider: caliber\n"
             "layout_contract: row_major\nproviders:\n"
             "  bad: {enabled: true, entrypoint: \"" + entrypoint + "\", provider: plugin}\n"
             "  caliber: {enabled: true, entrypoint: \"builtin:caliber\", provider: caliber}\n");
  std::vector<std::string> args = {"run", "--op", "rmsnorm", "--backend", "host", "--shape-ledger",
                                   dir + "/shape_ledger.jsonl", "--baseline-matrix", dir + "/baseline_matrix.yaml",
                                   "--out", dir + "/out", "--min-time-ms", "0", "--max-time-ms", "2",
                                   "--min-samples", "6", "--warmup", "1"};
  args.insert(args.end(), extra.begin(), extra.end());
  const auto t0 = std::chrono::steady_clock::now();
  const auto r = run_caliber(args);
  Outcome o{r.exit_code, r.err, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()};
  // Nothing measured, nothing written: not even the --out folder the preflight created.
  EXPECT_FALSE(std::filesystem::exists(dir + "/out")) << name;
  return o;
}

// caliber's own lines of `text`: under a sanitizer, a plugin that crashes in the preflight's child
// has the sanitizer's report printed there too, which is not caliber's to count.
std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with("PREFLIGHT_FAILED") || line.starts_with("caliber")) out.push_back(line);
  }
  return out;
}

void expect_one_plugin_failure(const Outcome& o, const std::string& symbol, const std::string& how) {
  EXPECT_EQ(o.exit_code, 3) << o.err;
  const std::vector<std::string> lines = lines_of(o.err);
  ASSERT_EQ(lines.size(), 1u) << o.err;
  const std::string& line = lines.front();
  EXPECT_EQ(line.rfind("PREFLIGHT_FAILED check=plugin_loads: ", 0), 0u) << line;
  EXPECT_NE(line.find("baseline_matrix.yaml:8: field 'providers.bad.entrypoint': provider bad ("), std::string::npos)
      << line;
  EXPECT_NE(line.find(":" + symbol + "): loading it and calling its entry (in a child process), the child " + how),
            std::string::npos)
      << line;
}

TEST(PluginPreflightCli, AnEntryThatExitsFailsTheCheckInsteadOfEndingTheRun) {
  const Outcome o = run_with_entry("preflight_entry_exits", CALIBER_TEST_PLUGIN ":caliber_test_entry_exits");
  expect_one_plugin_failure(o, "caliber_test_entry_exits", "ended before it returned (exit code ");
}

TEST(PluginPreflightCli, AnEntryThatCrashesFailsTheCheck) {
  const Outcome o = run_with_entry("preflight_entry_crashes", CALIBER_TEST_PLUGIN ":caliber_test_entry_crashes");
  // Signal 11, or 6 where a sanitizer's SEGV handler reports and aborts.
  expect_one_plugin_failure(o, "caliber_test_entry_crashes", "ended before it returned (signal ");
}

TEST(PluginPreflightCli, AnEntryThatHangsFailsAtTheStartTimeout) {
  const Outcome o = run_with_entry("preflight_entry_hangs", CALIBER_TEST_PLUGIN ":caliber_test_entry_hangs",
                                   {"--start-timeout-s", "1"});
  expect_one_plugin_failure(o, "caliber_test_entry_hangs", "did not return within 1 s (its process group was killed)");
  EXPECT_LT(o.took_s, 30.0);
}

TEST(PluginPreflightCli, ALibraryOutsideThePluginDirectoryIsNeverLoaded) {
  const Outcome o = run_with_entry("preflight_leaves_plugin_dir", "@plugins/../../../../../usr/lib/libevil.so:entry");
  EXPECT_EQ(o.exit_code, 2) << o.err;
  const std::vector<std::string> lines = lines_of(o.err);
  ASSERT_EQ(lines.size(), 1u) << o.err;
  EXPECT_NE(lines.front().find("baseline_matrix.yaml:8: field 'providers.bad.entrypoint': "), std::string::npos)
      << lines.front();
  EXPECT_NE(lines.front().find("is not a file inside caliber's plugin directory"), std::string::npos) << lines.front();
}

// The preflight's child closes every descriptor but its own, so the entry's write reaches nothing
// there; in the worker it lands on the events channel before the worker's first line, a line
// without the channel's token: the worker is killed (not waited on), started once more, and the
// run fails in bounded time.
TEST(PluginPreflightCli, AnEntryThatSpeaksOnTheWorkersChannelBeforeItsStartEndsTheRunInBoundedTime) {
  const Outcome o = run_with_entry("preflight_entry_speaks", CALIBER_TEST_PLUGIN ":caliber_test_entry_speaks");
  EXPECT_EQ(o.exit_code, 1) << o.err;
  EXPECT_NE(o.err.find("the measuring worker did not start twice in a row"), std::string::npos) << o.err;
  EXPECT_LT(o.took_s, 60.0);
}

}  // namespace
}  // namespace caliber
