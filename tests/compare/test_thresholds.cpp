#include <gtest/gtest.h>

#include "caliber/errors.h"
#include "compare/thresholds.h"

namespace caliber::compare {
namespace {

const char* kGood = R"({
  "schema_version": 1,
  "kind": "caliber.thresholds",
  "description": "example",
  "statistics": {"alpha": 0.01, "min_samples": 8},
  "report_only": {"relative_pct": 5, "absolute_us": 1},
  "architectures": {
    "sm_90": {
      "calibration": "H200 runner",
      "rules": [
        {"name": "copy", "params": {"size_bytes": 268435456}, "contract": {"schedule": "per_iter", "cache": "cold"},
         "relative_pct": 5, "absolute_us": 2, "calibration": "spread 0.05% over 5 processes"},
        {"name": "rms*", "relative_pct": 20, "absolute_us": 10, "calibration": "test numbers"}
      ]
    },
    "gfx1201": {"rules": []}
  }
})";

CompareRow row(const std::string& name, nlohmann::json params, const std::string& schedule) {
  CompareRow r;
  r.name = name;
  r.params = std::move(params);
  r.contract["schedule"] = schedule;
  r.contract["cache"] = "cold";
  return r;
}

TEST(Thresholds, ParsesEveryField) {
  const Thresholds t = parse_thresholds(kGood, "t.json");
  EXPECT_EQ(t.file, "t.json");
  EXPECT_DOUBLE_EQ(t.statistics.alpha, 0.01);
  EXPECT_EQ(t.statistics.min_samples, 8);
  EXPECT_DOUBLE_EQ(t.report_only.relative_pct, 5);
  EXPECT_DOUBLE_EQ(t.report_only.absolute_us, 1);
  ASSERT_EQ(t.architectures.size(), 2u);
  const auto& sm90 = t.architectures.at("sm_90");
  EXPECT_EQ(sm90.calibration, "H200 runner");
  ASSERT_EQ(sm90.rules.size(), 2u);
  EXPECT_EQ(sm90.rules[0].name, "copy");
  EXPECT_EQ(sm90.rules[0].line, 11);
  EXPECT_DOUBLE_EQ(sm90.rules[0].threshold.relative_pct, 5);
  EXPECT_DOUBLE_EQ(sm90.rules[0].threshold.absolute_us, 2);
  EXPECT_EQ(sm90.rules[0].calibration, "spread 0.05% over 5 processes");
  EXPECT_EQ(sm90.rules[1].describe(), "sm_90 rule 1 (rms*)");
  EXPECT_TRUE(t.architectures.at("gfx1201").rules.empty());
}

TEST(Thresholds, DefaultsWhenOptionalSectionsAreAbsent) {
  const Thresholds t = parse_thresholds(
      R"({"schema_version": 1, "kind": "caliber.thresholds", "architectures": {}})", "t.json");
  EXPECT_DOUBLE_EQ(t.statistics.alpha, 0.05);
  EXPECT_EQ(t.statistics.min_samples, 5);
  EXPECT_DOUBLE_EQ(t.report_only.relative_pct, 10);
  EXPECT_DOUBLE_EQ(t.report_only.absolute_us, 0);
}

TEST(Thresholds, GlobsThatCloseTheirBracketsAreNames) {
  const auto accepted = [](const std::string& name) {
    const std::string text = "{\"schema_version\": 1, \"kind\": \"caliber.thresholds\", \"architectures\": {\"sm_90\": "
                             "{\"rules\": [{\"name\": \"" + name + "\", \"relative_pct\": 5, \"absolute_us\": 1, "
                             "\"calibration\": \"x\"}]}}}";
    try {
      parse_thresholds(text, "t.json");
    } catch (const InputError&) {
      return false;
    }
    return true;
  };
  EXPECT_TRUE(accepted("rms[!x]*"));
  EXPECT_TRUE(accepted("[]]x"));
  EXPECT_TRUE(accepted("a\\\\[b"));  // an escaped '[' (JSON "a\\[b": fnmatch's a\[b)
  EXPECT_FALSE(accepted("rms["));
  EXPECT_FALSE(accepted("[!]"));
  EXPECT_FALSE(accepted("a\\\\"));  // fnmatch's "a\": escapes nothing
}

TEST(Thresholds, RulesSelectByNameGlobParamsAndContract) {
  const Thresholds t = parse_thresholds(kGood, "t.json");
  const nlohmann::json big = {{"size_bytes", 268435456}, {"dtype", "float32"}};
  const GateRule* r = t.rule_for(row("copy", big, "per_iter"), "sm_90");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->index, 0u);
  EXPECT_EQ(t.rule_for(row("copy", big, "graph"), "sm_90"), nullptr);                 // contract
  EXPECT_EQ(t.rule_for(row("copy", {{"size_bytes", 1024}}, "per_iter"), "sm_90"), nullptr);  // params
  EXPECT_EQ(t.rule_for(row("copy", nlohmann::json::object(), "per_iter"), "sm_90"), nullptr);
  ASSERT_NE(t.rule_for(row("rmsnorm", {}, "graph"), "sm_90"), nullptr);              // glob
  EXPECT_EQ(t.rule_for(row("rmsnorm", {}, "graph"), "sm_90")->index, 1u);
  EXPECT_EQ(t.rule_for(row("layernorm", {}, "graph"), "sm_90"), nullptr);
  EXPECT_EQ(t.rule_for(row("rmsnorm", {}, "graph"), "gfx1201"), nullptr);            // declared, empty
  EXPECT_EQ(t.rule_for(row("rmsnorm", {}, "graph"), "sm_80"), nullptr);              // undeclared
}

struct BadCase {
  const char* label;
  std::string text;
  const char* message;  // the whole one-line error
};

std::string doc_with_rule(const std::string& rule_body) {
  return "{\n"
         "  \"schema_version\": 1,\n"
         "  \"kind\": \"caliber.thresholds\",\n"
         "  \"architectures\": {\n"
         "    \"sm_90\": {\"rules\": [\n"
         "      {\"name\": \"copy\",\n"
         "       " + rule_body + "}\n"
         "    ]}\n"
         "  }\n"
         "}\n";
}

class BadThresholds : public ::testing::TestWithParam<BadCase> {};

TEST_P(BadThresholds, AreRefusedWithFileLineAndField) {
  const BadCase& c = GetParam();
  try {
    parse_thresholds(c.text, "t.json");
    FAIL() << c.label << ": accepted";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), c.message) << c.label;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Thresholds, BadThresholds,
    ::testing::Values(
        BadCase{"negative relative",
                doc_with_rule(R"("relative_pct": -5, "absolute_us": 10, "calibration": "x")"),
                "t.json:7: field 'architectures.sm_90.rules[0].relative_pct': must be >= 0 (got -5)"},
        BadCase{"negative absolute",
                doc_with_rule(R"("relative_pct": 5, "absolute_us": -0.5, "calibration": "x")"),
                "t.json:7: field 'architectures.sm_90.rules[0].absolute_us': must be >= 0 (got -0.5)"},
        BadCase{"unknown rule key",
                doc_with_rule(R"("relative_pct": 5, "absolute_us": 1, "calibration": "x", "floor_us": 3)"),
                "t.json:7: field 'architectures.sm_90.rules[0].floor_us': unknown key (expected one "
                "of: name, params, contract, relative_pct, absolute_us, calibration)"},
        BadCase{"missing calibration", doc_with_rule(R"("relative_pct": 5, "absolute_us": 1)"),
                "t.json:6: field 'architectures.sm_90.rules[0].calibration': missing"},
        BadCase{"empty calibration",
                doc_with_rule(R"("relative_pct": 5, "absolute_us": 1, "calibration": " ")"),
                "t.json:7: field 'architectures.sm_90.rules[0].calibration': must not be empty"},
        BadCase{"unknown schedule",
                doc_with_rule(R"("contract": {"schedule": "isolatd"}, "relative_pct": 5, "absolute_us": 1, "calibration": "x")"),
                "t.json:7: field 'architectures.sm_90.rules[0].contract.schedule': unknown schedule "
                "'isolatd' (expected isolated|per_iter|pipelined|graph)"},
        BadCase{"unknown contract key",
                doc_with_rule(R"("contract": {"clock": "x"}, "relative_pct": 5, "absolute_us": 1, "calibration": "x")"),
                "t.json:7: field 'architectures.sm_90.rules[0].contract.clock': unknown key "
                "(expected one of: quantity, instrument, schedule, cache, statistic)"},
        BadCase{"schema version",
                "{\n  \"schema_version\": 2,\n  \"kind\": \"caliber.thresholds\",\n  \"architectures\": {}\n}\n",
                "t.json:2: field 'schema_version': unsupported schema version 2 (this caliber reads 1)"},
        BadCase{"kind", "{\"schema_version\": 1,\n \"kind\": \"caliber.results\", \"architectures\": {}}",
                "t.json:2: field 'kind': expected 'caliber.thresholds', got 'caliber.results'"},
        BadCase{"unknown top-level key",
                "{\"schema_version\": 1, \"kind\": \"caliber.thresholds\",\n \"architecture\": {}}",
                "t.json:2: field 'architecture': unknown key (expected one of: schema_version, kind, "
                "description, statistics, report_only, architectures)"},
        BadCase{"duplicate key",
                "{\"schema_version\": 1, \"kind\": \"caliber.thresholds\",\n \"architectures\": {\n"
                "  \"sm_90\": {\"rules\": []},\n  \"sm_90\": {\"rules\": []}}}",
                "t.json:4: field 'architectures.sm_90': duplicate key"},
        BadCase{"alpha", "{\"schema_version\": 1, \"kind\": \"caliber.thresholds\",\n \"statistics\": {\"alpha\": 1.5},\n \"architectures\": {}}",
                "t.json:2: field 'statistics.alpha': must be in (0, 1) (got 1.5)"},
        BadCase{"min samples", "{\"schema_version\": 1, \"kind\": \"caliber.thresholds\",\n \"statistics\": {\"min_samples\": 1},\n \"architectures\": {}}",
                "t.json:2: field 'statistics.min_samples': must be >= 2 (got 1)"},
        BadCase{"rules not a list", "{\"schema_version\": 1, \"kind\": \"caliber.thresholds\",\n \"architectures\": {\"sm_90\":\n {\"rules\": {}}}}",
                "t.json:3: field 'architectures.sm_90.rules': expected an array, got object"},
        BadCase{"name not a glob",
                "{\"schema_version\": 1, \"kind\": \"caliber.thresholds\",\n \"architectures\": {\"sm_90\": {\"rules\": [\n"
                " {\"name\": \"[\", \"relative_pct\": 5, \"absolute_us\": 1, \"calibration\": \"x\"}]}}}",
                "t.json:3: field 'architectures.sm_90.rules[0].name': the '[' at character 1 is not closed by a ']' (a "
                "glob: * ? [abc] [!abc])"},
        BadCase{"truncated", "{\"schema_version\": 1,\n \"kind\": \"caliber.thresholds\",\n \"architectures\": {",
                "t.json:3: malformed JSON: syntax error while parsing object key - unexpected end of "
                "input; expected string literal"}));

}  // namespace
}  // namespace caliber::compare
