#include <gtest/gtest.h>

#include "caliber/errors.h"
#include "compare/row_matching.h"

namespace caliber::compare {
namespace {

CompareRow row(const std::string& name, const std::string& schedule, const std::string& arch = "sm_90") {
  CompareRow r;
  r.name = name;
  r.params = {{"size_bytes", 64}};
  r.arch = arch;
  r.contract["instrument"] = "event";
  r.contract["schedule"] = schedule;
  r.contract["cache"] = "cold";
  r.value_us = 1;
  return r;
}

TEST(CompareRowKey, IncludesNameParamsAndMeasurementVariant) {
  EXPECT_EQ(row("copy", "per_iter").key(), R"(copy {"size_bytes":64} [|event|per_iter|cold])");
  EXPECT_EQ(row("copy", "per_iter").base_key(), R"(copy {"size_bytes":64})");
  EXPECT_EQ(row("copy", "per_iter").label(), "copy size_bytes=64 [event/per_iter/cold]");
  CompareRow bare;
  bare.name = "BM_x/8";
  EXPECT_EQ(bare.label(), "BM_x/8 [?/?/?]");
}

TEST(MatchRows, PairsRowsWithTheSameKeyAndKeepsTheirOrder) {
  const auto pairs = match_rows({row("copy", "per_iter"), row("copy", "graph"), row("scale", "per_iter")},
                                {row("scale", "per_iter"), row("copy", "graph"), row("copy", "per_iter"),
                                 row("tiny", "per_iter")});
  ASSERT_EQ(pairs.size(), 4u);
  EXPECT_EQ(pairs[0].baseline->key(), pairs[0].current->key());
  EXPECT_EQ(pairs[1].current->contract["schedule"], "graph");
  EXPECT_EQ(pairs[2].current->name, "scale");
  EXPECT_FALSE(pairs[3].baseline.has_value());
  EXPECT_EQ(pairs[3].current->name, "tiny");
}

TEST(MatchRows, PairsTheOneRowWhoseVariantChanged) {
  const auto pairs = match_rows({row("copy", "isolated")}, {row("copy", "graph")});
  ASSERT_EQ(pairs.size(), 1u);
  ASSERT_TRUE(pairs[0].current.has_value());
  EXPECT_EQ(pairs[0].baseline->contract["schedule"], "isolated");
  EXPECT_EQ(pairs[0].current->contract["schedule"], "graph");
}

TEST(MatchRows, DoesNotGuessBetweenSeveralChangedVariants) {
  const auto pairs = match_rows({row("copy", "isolated")}, {row("copy", "graph"), row("copy", "pipelined")});
  ASSERT_EQ(pairs.size(), 3u);
  EXPECT_FALSE(pairs[0].current.has_value());
  EXPECT_FALSE(pairs[1].baseline.has_value());
  EXPECT_FALSE(pairs[2].baseline.has_value());
}

TEST(RequireUniqueRows, RefusesADuplicateWithItsLine) {
  CompareRow a = row("copy", "per_iter"), b = row("copy", "per_iter");
  a.line = 2;
  b.line = 5;
  try {
    require_unique_rows({a, row("copy", "graph"), b}, "f.csv");
    FAIL() << "accepted";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "f.csv:5: field 'name': duplicate row copy size_bytes=64 "
                           "[event/per_iter/cold] (first at line 2)");
  }
}

TEST(RunnerTrust, EveryRowMustReportTheArchitecture) {
  EXPECT_NO_THROW(check_runner_trust({row("copy", "per_iter"), row("scale", "per_iter")}, "f.json", "sm_90"));
  CompareRow other = row("scale", "per_iter", "sm_80");
  other.origin = "results[1]";
  other.arch_field = "results[1].device.arch";
  other.line = 40;
  try {
    check_runner_trust({row("copy", "per_iter"), other}, "f.json", "sm_90");
    FAIL() << "accepted";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "f.json:40: field 'results[1].device.arch': runner trust: scale "
                           "size_bytes=64 [event/per_iter/cold] reports architecture sm_80, expected "
                           "sm_90 (--arch)");
  }
}

TEST(RunnerTrust, AnAssumedOrMissingArchitectureIsNotAReport) {
  CompareRow assumed = row("BM_x", "pipelined", "sm_90");
  assumed.arch_assumed = true;
  EXPECT_THROW(check_runner_trust({assumed}, "g.json", "sm_90"), InputError);
  EXPECT_THROW(check_runner_trust({row("BM_x", "pipelined", "")}, "g.json", "sm_90"), InputError);
}

}  // namespace
}  // namespace caliber::compare
