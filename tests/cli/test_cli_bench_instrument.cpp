// caliber bench's instrument policy and its options, run as a user would.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include <nlohmann/json.hpp>

#include "support/run_command.h"
#include "support/run_cli.h"

namespace caliber {
namespace {

using testing_support::run_command;

const std::string kExe = CALIBER_EXE;

std::string temp_json(const std::string& name) {
  const std::string path = testing_support::temp_path(name);
  std::remove(path.c_str());
  return path;
}

bool exists(const std::string& path) { return std::ifstream(path).good(); }

TEST(CliBenchInstrument, CuptiOnTheHostIsRefusedAsNotApplicable) {
  const std::string json = temp_json("cupti_host.json");
  const auto r = run_command(kExe + " bench --backend host --kernel tiny --iters 5 --instrument cupti --json " + json);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "caliber: error: instrument cupti is not available: not applicable: the host backend times "
            "host work with the wallclock instrument only (got cupti)\n");
  EXPECT_FALSE(exists(json));
}

TEST(CliBenchInstrument, CuptiThatCannotLoadIsAClearErrorNotAFallback) {
  const auto r = run_command("CALIBER_CUPTI_LIBRARY=none " + kExe +
                             " bench --backend cuda --kernel tiny --iters 5 --instrument cupti");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.rfind("caliber: error: instrument cupti is not available: ", 0), 0u) << r.err;
  EXPECT_EQ(r.out, "");
}

TEST(CliBenchInstrument, AutoOnTheHostRecordsNotApplicable) {
  const std::string json = temp_json("auto_host.json");
  const auto r = run_command(kExe + " bench --backend host --kernel tiny --iters 5 --instrument auto "
                                    "--throttle-policy discard --json " + json);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::ifstream in(json);
  const auto doc = nlohmann::json::parse(in);
  const auto& res = doc["results"][0];
  EXPECT_EQ(res["contract"]["instrument"], "wallclock");
  EXPECT_EQ(res["contract"]["throttle_policy"], "discard");
  EXPECT_EQ(res["instrument_selection"]["requested"], "auto");
  EXPECT_EQ(res["instrument_selection"]["reason"].get<std::string>().rfind("not applicable: ", 0), 0u);
  EXPECT_EQ(res["telemetry"]["available"], false);
  EXPECT_NE(r.out.find("note tiny [wallclock/isolated/cold/median]: instrument auto -> wallclock: not applicable"),
            std::string::npos)
      << r.out;
  // Recorded in the JSON, not repeated under every host row of the table.
  EXPECT_EQ(res["telemetry"]["reason"], "the host backend has no device telemetry");
  EXPECT_EQ(r.out.find("telemetry:"), std::string::npos) << r.out;
}

TEST(CliBenchInstrument, OptionValuesAreChecked) {
  struct Case {
    std::string args;
    std::string error;
  };
  const std::vector<Case> cases = {
      {"--throttle-policy never",
       "caliber: error: --throttle-policy: unknown throttle policy 'never' (expected flag|discard|fail)\n"},
      {"--cupti-reduction most", "caliber: error: --cupti-reduction: unknown cupti reduction 'most' (expected busy|sum|span)\n"},
      {"--instrument wallclock --cupti-reduction sum",
       "caliber: error: --cupti-reduction applies to instrument cupti only (the instrument is wallclock)\n"},
      {"--cupti-reduction span",  // the host's default instrument is wallclock
       "caliber: error: --cupti-reduction applies to instrument cupti only (the instrument is wallclock)\n"},
      {"--cupti-tracing maybe", "caliber: error: --cupti-tracing: unknown value 'maybe' (expected off, on, or off,on)\n"},
      {"--telemetry-period-ms 0", "caliber: error: --telemetry-period-ms must be > 0 (got 0)\n"},
      {"--instrument stopwatch",
       "caliber: error: --instrument: unknown instrument 'stopwatch' (expected cupti|event|wallclock)\n"},
  };
  for (const Case& c : cases) {
    const auto r = run_command(kExe + " bench --backend host --kernel tiny --iters 5 " + c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args;
    EXPECT_EQ(r.err, c.error) << c.args;
    EXPECT_EQ(r.out, "") << c.args;
  }
}

}  // namespace
}  // namespace caliber
