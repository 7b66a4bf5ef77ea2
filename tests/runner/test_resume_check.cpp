// What a resumed caliber run must keep (runner/resume_check.h): the configs its rows ran with,
// and its identity, providers and matrix included.
#include <gtest/gtest.h>

#include <sstream>

#include "caliber/errors.h"
#include "runner/resume_check.h"
#include "support/sample_identity.h"

namespace caliber::runner {
namespace {

using testing_support::sample_identity;

ConfigReplaySource source_pinning(const std::string& shape_id, const std::string& provider, const std::string& key) {
  ConfigReplaySource s;
  s.dir = "/runs/a";
  ProviderConfig c;
  c.key = key;
  s.configs[{shape_id, provider}] = c;
  return s;
}

std::string refusal(const ExistingResults& e, const std::optional<ConfigReplaySource>& source) {
  try {
    check_resume_keeps_configs(e, source, "r/benchmark_results.jsonl");
  } catch (const CaliberMismatchError& err) {
    return err.what();
  }
  return "";
}

TEST(ResumeCheck, RowsWithoutConfigsResumeWithOrWithoutAReplay) {
  const ExistingResults e;
  EXPECT_EQ(refusal(e, std::nullopt), "");
  EXPECT_EQ(refusal(e, source_pinning("s", "p", "k")), "");
}

TEST(ResumeCheck, ARecordingRunResumesOnlyWithoutAReplay) {
  ExistingResults e;
  e.replaying_configs = false;
  EXPECT_EQ(refusal(e, std::nullopt), "");
  EXPECT_NE(refusal(e, source_pinning("s", "p", "k")).find("recorded their own configs; --replay-configs /runs/a"),
            std::string::npos);
}

TEST(ResumeCheck, AReplayingRunResumesOnlyWithASourceThatPinsTheSameKeys) {
  ExistingResults e;
  e.replaying_configs = true;
  e.replayed_keys[{"s", "p"}] = "k1";
  EXPECT_NE(refusal(e, std::nullopt).find("replay the configs of another run"), std::string::npos);
  EXPECT_EQ(refusal(e, source_pinning("s", "p", "k1")), "");
  EXPECT_NE(refusal(e, source_pinning("s", "p", "k2")).find("pins s / p to 'k2', the rows already written ran 'k1'"),
            std::string::npos);
  EXPECT_NE(refusal(e, source_pinning("other", "p", "k1")).find("pins s / p to 'nothing'"), std::string::npos);
}

TEST(ResumeCheck, TheSameIdentityResumes) {
  std::ostringstream err;
  EXPECT_NO_THROW(check_resume_identity(sample_identity(), "", sample_identity(), "out", "out/r.jsonl", err));
  EXPECT_EQ(err.str().find("!!!"), std::string::npos) << err.str();
}

TEST(ResumeCheck, OtherProvidersOrAnotherMatrixRefuseTheResume) {
  RunIdentity providers = sample_identity();
  providers.providers.front().sha256 = std::string(64, '9');
  RunIdentity matrix = sample_identity();
  matrix.baseline_matrix->sha256 = std::string(64, '8');
  for (const auto& [now, field] : {std::pair{providers, "providers"}, std::pair{matrix, "inputs.baseline_matrix"}}) {
    std::ostringstream err;
    EXPECT_THROW(check_resume_identity(sample_identity(), "", now, "out", "out/r.jsonl", err), CaliberMismatchError)
        << field;
    EXPECT_NE(err.str().find(std::string("!!! [caliber] ") + field), std::string::npos) << err.str();
    EXPECT_NE(err.str().find("A = the run in out (20261129T120000Z-0000abcd), B = this session"), std::string::npos)
        << err.str();
  }
}

TEST(ResumeCheck, ARunWithoutAnIdentityCannotBeResumed) {
  std::ostringstream err;
  try {
    check_resume_identity(std::nullopt, "no run_identity.json", sample_identity(), "out", "out/r.jsonl", err);
    FAIL() << "resumed a run without an identity";
  } catch (const CaliberMismatchError& e) {
    EXPECT_NE(std::string(e.what()).find("out/r.jsonl cannot be resumed by this session"), std::string::npos);
  }
  EXPECT_NE(err.str().find("(no identity)"), std::string::npos) << err.str();
}

}  // namespace
}  // namespace caliber::runner
