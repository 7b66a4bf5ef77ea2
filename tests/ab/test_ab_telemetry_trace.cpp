// The telemetry trace of a whole A/B (ab/ab_telemetry_trace.h): without a sampler (here, the
// trace is off), the cells' timeline and the reason are still written, once per session.
#include <gtest/gtest.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "ab/ab_protocol.h"
#include "ab/ab_telemetry_trace.h"
#include "support/cli_run.h"

namespace caliber {
namespace {

using testing_support::fresh_dir;
using testing_support::slurp;

TEST(AbTelemetryTrace, WithoutASamplerTheCellsAndTheReasonAreWrittenOnce) {
  AbPlan plan;
  plan.out_dir = fresh_dir("ab_telemetry_trace");
  plan.telemetry_device = -1;
  {
    AbTelemetryTrace trace(plan);
    CellSpec a;
    a.op = "rmsnorm";
    a.round = 1;
    a.side = 'A';
    trace.cell(a, 1.0, 2.54);
    trace.write();
    trace.cell(a, 3.0, 4.0);  // after the write: not in the file
    trace.write();
  }
  EXPECT_EQ(slurp(plan.out_dir + "/telemetry_trace_s1.cells.tsv"),
            "op\tround\tside\tstart_ms\tend_ms\nrmsnorm\t1\tA\t1.0\t2.5\n");
  const nlohmann::json why = nlohmann::json::parse(slurp(plan.out_dir + "/telemetry_trace_s1.json"));
  EXPECT_EQ(why, nlohmann::json({{"available", false}, {"reason", "off (--telemetry-device -1)"}}));
  EXPECT_FALSE(std::filesystem::exists(plan.out_dir + "/telemetry_trace_s1.csv"));
}

TEST(AbTelemetryTrace, ALaterSessionTakesTheNextNumberAndWritesOnItsEnd) {
  AbPlan plan;
  plan.out_dir = fresh_dir("ab_telemetry_trace_sessions");
  plan.telemetry_device = -1;
  { AbTelemetryTrace first(plan); }
  { AbTelemetryTrace second(plan); }  // a resumed A/B
  EXPECT_TRUE(std::filesystem::exists(plan.out_dir + "/telemetry_trace_s1.json"));
  EXPECT_TRUE(std::filesystem::exists(plan.out_dir + "/telemetry_trace_s2.json"));
  EXPECT_EQ(slurp(plan.out_dir + "/telemetry_trace_s2.cells.tsv"), "op\tround\tside\tstart_ms\tend_ms\n");
}

}  // namespace
}  // namespace caliber
