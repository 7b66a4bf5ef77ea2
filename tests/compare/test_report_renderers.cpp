// The four outputs of `caliber compare` on one literal report, as exact text. The expected text
// is the format docs/gate.md documents (column order, alignment, labels), written out by hand.
#include <gtest/gtest.h>

#include <sstream>

#include "caliber/contract.h"
#include "compare/report_renderers.h"

namespace caliber::compare {
namespace {

CompareRow row(const std::string& name, double us) {
  CompareRow r;
  r.name = name;
  r.params = {{"size_bytes", 1024}};
  r.arch = "sm_90";
  r.contract = contract_fields(default_contract(BackendKind::cuda));
  r.value_us = us;
  r.integrity = "verified";
  return r;
}

CompareReport sample_report() {
  Thresholds t;
  t.file = "t.json";
  GateRule copy;
  copy.arch = "sm_90";
  copy.name = "copy";
  copy.threshold = {20, 10};
  copy.calibration = "test";
  GateRule tmpl = copy;
  tmpl.index = 1;
  tmpl.name = "tmpl*";
  t.architectures["sm_90"].rules = {copy, tmpl};
  return evaluate_gate({row("copy", 100), row("scale", 200)},
                       {row("copy", 150), row("scale", 202), row("tmpl<float>", 3)}, t, GateOptions{},
                       "base.json", "cur.json");
}

template <typename F>
std::string render(F write, const CompareReport& r) {
  std::ostringstream out;
  write(out, r);
  return out.str();
}

const std::string kFail =
    "[GATE FAIL: slower +50.0%, +50.00 us (limits 20% and 10 us); threshold only: no raw samples in "
    "either file]";
const std::string kReport = "[REPORT: same +1.0%, +2.000 us; within threshold]";
const std::string kSkip = "[GATE SKIP: new row: no baseline]";

// The row column is as wide as the longest label (the tmpl<float> row, 49 characters).
TEST(CompareTable, AlignsColumnsAndEndsWithTheSummary) {
  const std::string expected =
      "caliber compare: baseline base.json, current cur.json\n"
      "thresholds: t.json (rank test alpha 0.05, at least 5 samples per side)\n"
      "row                                                arch   baseline_us  current_us   delta  p  verdict  gate\n"
      "copy size_bytes=1024 [event/per_iter/cold]         sm_90        100.0       150.0  +50.0%  -  SLOWER   " + kFail + "\n"
      "scale size_bytes=1024 [event/per_iter/cold]        sm_90        200.0       202.0   +1.0%  -  SAME     " + kReport + "\n"
      "tmpl<float> size_bytes=1024 [event/per_iter/cold]  sm_90            -       3.000       -  -  -        " + kSkip + "\n"
      "gate FAIL: 1 of 2 gated rows failed (0 passed, 1 skipped, 0 unknown); 1 report-only rows\n";
  EXPECT_EQ(render(write_compare_table, sample_report()), expected);
}

TEST(CompareMarkdown, GatedRowsFirstAndReportOnlyRowsFolded) {
  const std::string header =
      "| row | arch | baseline us | current us | delta | p | verdict | gate |\n"
      "|---|---|--:|--:|--:|--:|---|---|\n";
  const std::string expected =
      "### caliber compare: FAIL\n\n"
      "gate FAIL: 1 of 2 gated rows failed (0 passed, 1 skipped, 0 unknown); 1 report-only rows\n\n"
      "Baseline `base.json`, current `cur.json`, thresholds `t.json` (rank test alpha 0.05, at least 5 "
      "samples per side).\n\n" +
      header +
      "| `copy size_bytes=1024 [event/per_iter/cold]` | sm_90 | 100.0 | 150.0 | +50.0% | - | SLOWER | " + kFail + " |\n"
      "| `tmpl<float> size_bytes=1024 [event/per_iter/cold]` | sm_90 | - | 3.000 | - | - | - | " + kSkip + " |\n"
      "\n"
      "<details><summary>1 report-only rows</summary>\n\n" +
      header +
      "| `scale size_bytes=1024 [event/per_iter/cold]` | sm_90 | 200.0 | 202.0 | +1.0% | - | SAME | " + kReport + " |\n"
      "\n</details>\n\n";
  EXPECT_EQ(render(write_compare_markdown, sample_report()), expected);
}

TEST(CompareMarkdown, EscapesPipesAndAngleBrackets) {
  CompareRow cur = row("a|b", 1);
  cur.status = RowStatus::failed;
  cur.status_detail = "x<y|z";
  const auto r = evaluate_gate({row("a|b", 1)}, {cur}, Thresholds{}, GateOptions{}, "a", "b");
  const std::string md = render(write_compare_markdown, r);
  EXPECT_NE(md.find("| `a\\|b size_bytes=1024 [event/per_iter/cold]` | sm_90 | 1.000 | - | - | - | - | "
                    "[REPORT: current row failed: x&lt;y\\|z] |\n"),
            std::string::npos)
      << md;
}

TEST(CompareJunit, OneTestCasePerGatedRowAndAFailurePerFailedGate) {
  const std::string expected =
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<testsuites name=\"caliber compare\" tests=\"2\" failures=\"1\" skipped=\"1\">\n"
      "  <testsuite name=\"caliber.gate\" tests=\"2\" failures=\"1\" skipped=\"1\">\n"
      "    <properties>\n"
      "      <property name=\"baseline\" value=\"base.json\"/>\n"
      "      <property name=\"current\" value=\"cur.json\"/>\n"
      "      <property name=\"thresholds\" value=\"t.json\"/>\n"
      "    </properties>\n"
      "    <testcase classname=\"caliber.gate.sm_90\" name=\"copy size_bytes=1024 [event/per_iter/cold]\">\n"
      "      <failure type=\"regression\" message=\"" + kFail + "\">" + kFail + "\n"
      "calibration: test</failure>\n"
      "    </testcase>\n"
      "    <testcase classname=\"caliber.gate.sm_90\" name=\"tmpl&lt;float&gt; size_bytes=1024 [event/per_iter/cold]\">\n"
      "      <skipped message=\"" + kSkip + "\"/>\n"
      "    </testcase>\n"
      "  </testsuite>\n"
      "</testsuites>\n";
  EXPECT_EQ(render(write_compare_junit, sample_report()), expected);
}

TEST(CompareJson, CarriesResultSummaryAndEveryRow) {
  const auto doc = nlohmann::json::parse(render(write_compare_json, sample_report()));
  EXPECT_EQ(doc["schema_version"], 1);
  EXPECT_EQ(doc["kind"], "caliber.comparison");
  EXPECT_EQ(doc["baseline"], "base.json");
  EXPECT_EQ(doc["thresholds"], "t.json");
  EXPECT_EQ(doc["result"], "fail");
  EXPECT_EQ(doc["statistics"], (nlohmann::json{{"test", "mann-whitney-u"}, {"alpha", 0.05},
                                               {"min_samples", 5}, {"strict", false}}));
  EXPECT_EQ(doc["summary"]["gated"], 2);
  EXPECT_EQ(doc["summary"]["failed"], 1);
  EXPECT_EQ(doc["summary"]["report_only"], 1);
  ASSERT_EQ(doc["rows"].size(), 3u);
  const auto& copy = doc["rows"][0];
  EXPECT_EQ(copy["name"], "copy");
  EXPECT_EQ(copy["gated"], true);
  EXPECT_EQ(copy["outcome"], "fail");
  EXPECT_EQ(copy["gate_label"], kFail);
  EXPECT_EQ(copy["baseline"]["value_us"], 100.0);
  EXPECT_EQ(copy["current"]["value_us"], 150.0);
  EXPECT_EQ(copy["delta_us"], 50.0);
  EXPECT_EQ(copy["delta_pct"], 50.0);
  EXPECT_EQ(copy["verdict"], "SLOWER");
  EXPECT_EQ(copy["rule"]["relative_pct"], 20.0);
  EXPECT_EQ(copy["rule"]["calibration"], "test");
  EXPECT_EQ(doc["rows"][1]["outcome"], "report");
  EXPECT_EQ(doc["rows"][2]["baseline"], nullptr);
}

TEST(CompareJson, ListsContractDifferences) {
  CompareRow cur = row("copy", 100);
  cur.contract["schedule"] = "graph";
  cur.contract["graph_calls"] = "20";
  const auto r = evaluate_gate({row("copy", 100)}, {cur}, Thresholds{}, GateOptions{}, "a", "b");
  const auto doc = nlohmann::json::parse(render(write_compare_json, r));
  EXPECT_EQ(doc["result"], "refused");
  EXPECT_EQ(doc["thresholds"], nullptr);
  EXPECT_EQ(doc["rows"][0]["contract_differences"],
            nlohmann::json::parse(R"([{"field": "schedule", "baseline": "per_iter", "current": "graph"},
                                      {"field": "graph_calls", "baseline": null, "current": "20"}])"));
}

TEST(GateSummaryLine, SaysRefusedAndCountsRowsNotCompared) {
  CompareRow cur = row("copy", 100);
  cur.contract["cache"] = "warm";
  const auto r = evaluate_gate({row("copy", 100)}, {cur}, Thresholds{}, GateOptions{}, "a", "b");
  EXPECT_EQ(gate_summary_line(r),
            "gate REFUSED (contract mismatch): 0 of 0 gated rows failed (0 passed, 0 skipped, 0 "
            "unknown); 1 report-only rows; 1 rows not compared: contract differs");
}

TEST(GateSummaryLine, NamesTheRemedyWhenCallsPerGraphDiffer) {
  CompareRow base = row("copy", 100);
  base.contract["schedule"] = "graph";
  base.contract["graph_calls"] = "2";
  CompareRow cur = base;
  cur.contract["graph_calls"] = "4";
  const auto r = evaluate_gate({base}, {cur}, Thresholds{}, GateOptions{}, "a", "b");
  EXPECT_EQ(gate_summary_line(r),
            "gate REFUSED (contract mismatch): 0 of 0 gated rows failed (0 passed, 0 skipped, 0 "
            "unknown); 1 report-only rows; 1 rows not compared: contract differs (1 in graph_calls: --graph-calls "
            "auto chooses them from each run's eager medians; run the current side with --replay-configs "
            "BASELINE_DIR to take the baseline's, or fix them with --graph-calls N)");
}

}  // namespace
}  // namespace caliber::compare
