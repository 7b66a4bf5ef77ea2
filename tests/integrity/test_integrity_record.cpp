// The integrity record on literal checks: the verdict rule, the worse outcome winning, merging,
// and the JSON form, whose reader refuses a verdict the checks do not support.
#include <gtest/gtest.h>

#include "caliber/errors.h"
#include "caliber/integrity.h"
#include "caliber/result_json.h"

namespace caliber {
namespace {

namespace check = integrity_check;

Integrity with(std::initializer_list<std::pair<std::string_view, CheckOutcome>> checks) {
  Integrity i;
  for (const auto& [name, outcome] : checks) i.record(name, outcome, std::string(name) + " detail");
  return i;
}

TEST(IntegrityRecord, VerdictFollowsTheChecks) {
  EXPECT_EQ(Integrity{}.verdict(), IntegrityVerdict::unverified);  // nothing checked
  EXPECT_EQ(with({{check::output_after_timing, CheckOutcome::passed}}).verdict(), IntegrityVerdict::verified);
  EXPECT_EQ(with({{check::output_after_timing, CheckOutcome::not_run}}).verdict(), IntegrityVerdict::unverified);
  EXPECT_EQ(with({{check::output_after_timing, CheckOutcome::passed}, {check::work_on_stream, CheckOutcome::not_run}})
                .verdict(),
            IntegrityVerdict::partial);
  // Additional evidence that could not be gathered does not lower the verdict.
  EXPECT_EQ(with({{check::output_after_timing, CheckOutcome::passed},
                  {check::physically_possible, CheckOutcome::passed},
                  {check::output_before_timing, CheckOutcome::not_run}})
                .verdict(),
            IntegrityVerdict::verified);
  // A number no ceiling bounded is not verified: the physical bound did not run.
  EXPECT_EQ(with({{check::output_after_timing, CheckOutcome::passed}, {check::physically_possible, CheckOutcome::not_run}})
                .verdict(),
            IntegrityVerdict::partial);
  EXPECT_EQ(with({{check::output_after_timing, CheckOutcome::passed}, {check::physically_possible, CheckOutcome::failed}})
                .verdict(),
            IntegrityVerdict::failed);
  EXPECT_EQ(with({{check::output_after_timing, CheckOutcome::not_run}, {check::inputs_unchanged, CheckOutcome::failed}})
                .verdict(),
            IntegrityVerdict::failed);
}

TEST(IntegrityRecord, TheWorseOutcomeOfACheckWins) {
  Integrity i;
  i.record(check::inputs_unchanged, CheckOutcome::passed, "first");
  i.record(check::inputs_unchanged, CheckOutcome::failed, "changed during the timed calls");
  i.record(check::inputs_unchanged, CheckOutcome::passed, "later pass");
  ASSERT_EQ(i.checks.size(), 1u);
  EXPECT_EQ(i.checks[0].outcome, CheckOutcome::failed);
  EXPECT_EQ(i.checks[0].detail, "changed during the timed calls");
  EXPECT_EQ(i.first_failure(), "inputs_unchanged: changed during the timed calls");
}

TEST(IntegrityRecord, MergeKeepsEveryCheckAtItsWorst) {
  Integrity a = with({{check::output_after_timing, CheckOutcome::passed}, {check::device_work, CheckOutcome::passed}});
  a.verification_seed = 42;
  Integrity b = with({{check::output_after_timing, CheckOutcome::failed}, {check::graph_complete, CheckOutcome::passed}});
  b.input_seed = 7;
  a.merge(b);
  ASSERT_EQ(a.checks.size(), 3u);
  EXPECT_EQ(a.find(check::output_after_timing)->outcome, CheckOutcome::failed);
  EXPECT_EQ(a.find(check::graph_complete)->outcome, CheckOutcome::passed);
  EXPECT_EQ(a.verification_seed, 42u);
  EXPECT_EQ(a.input_seed, 7u);  // the first record that has one gives it
}

TEST(IntegrityRecord, JsonRoundTripsAndRefusesAClaimedVerdict) {
  Integrity i = with({{check::output_after_timing, CheckOutcome::passed}, {check::work_on_stream, CheckOutcome::not_run}});
  i.verification_seed = 0x00c0ffee12345678ull;
  nlohmann::json j = to_json(i);
  EXPECT_EQ(j.at("verdict"), "partial");
  EXPECT_EQ(j.at("verification_seed"), "00c0ffee12345678");
  EXPECT_TRUE(j.at("input_seed").is_null());
  i.input_seed = 0xfeedull;
  j = to_json(i);
  EXPECT_EQ(j.at("input_seed"), "000000000000feed");
  EXPECT_EQ(integrity_from_json(j, "f.json", 3, "integrity"), i);
  j["verdict"] = "verified";  // a file cannot claim more than its checks show
  try {
    integrity_from_json(j, "f.json", 3, "integrity");
    FAIL() << "a verdict its checks do not support was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "integrity.verdict");
    EXPECT_EQ(e.line(), 3);
  }
  j["verdict"] = "partial";
  j["checks"][0]["outcome"] = "maybe";
  EXPECT_THROW(integrity_from_json(j, "f.json", 3, "integrity"), InputError);
}

}  // namespace
}  // namespace caliber
