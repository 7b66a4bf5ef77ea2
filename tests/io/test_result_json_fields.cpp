// A result's instrument fields (instrument selection, per-kernel breakdown, telemetry)
// survive a write/read round trip, and malformed values fail with the field named.
#include <gtest/gtest.h>

#include "caliber/errors.h"
#include "caliber/result_json.h"

namespace caliber {
namespace {

Result cupti_result() {
  Result r;
  r.name = "scale";
  r.params = {{"size_bytes", 268435456}};
  r.device.backend = BackendKind::cuda;
  r.device.name = "NVIDIA H200";
  r.device.arch = "sm_90";
  r.contract = default_contract(BackendKind::cuda);
  r.contract.instrument = Instrument::cupti;
  r.contract.cupti_reduction = CuptiReduction::span;
  r.contract.throttle_policy = ThrottlePolicy::discard;
  r.value_us = 195.5;
  r.summary.n = 40;
  r.stop_reason = "fixed count";
  r.instrument = {"auto", "auto: cupti available", true};
  r.kernels = {{"scale_kernel(float const*, float*, unsigned long, float)", 40, 7820.0, 195.5, 16896},
               {"[memset]", 40, 40.0, 1.0, 0}};
  r.kernel_set_changes = 2;
  r.telemetry = summarize_telemetry({}, 10.0, 1980);
  r.telemetry.readings = 31;
  r.telemetry.sm_clock_min_mhz = 1755;
  r.telemetry.sm_clock_median_mhz = 1980;
  r.telemetry.sm_clock_peak_mhz = 1980;
  r.telemetry.max_temp_c = 52;
  r.telemetry.max_power_w = 612.5;
  r.telemetry.throttle_reasons_seen = {"sw_power_cap", "unknown_0x400"};
  r.telemetry.throttled_readings = 3;
  r.telemetry.flagged_samples = 4;
  r.telemetry.discarded_samples = 4;
  TelemetrySample t;
  t.timestamp_ms = 12.5;
  t.sm_clock_mhz = 1755;
  t.mem_clock_mhz = 3201;
  t.temp_c = 52;
  t.power_w = 612.5;
  t.util_pct = 100;
  t.throttle_reasons = kThrottleSwPowerCap | kThrottleGpuIdle;
  r.telemetry_samples = {t};
  return r;
}

TEST(ResultJsonIssue3, InstrumentKernelsAndTelemetryRoundTrip) {
  const Result r = cupti_result();
  const nlohmann::json j = to_json(r);
  EXPECT_EQ(j["instrument_selection"]["requested"], "auto");
  EXPECT_EQ(j["contract"]["cupti_reduction"], "span");
  EXPECT_EQ(j["telemetry_samples"][0]["throttle_reasons"], nlohmann::json::array({"gpu_idle", "sw_power_cap"}));
  const Result back = result_from_json(j, "r.json", 0, "results[0]");
  EXPECT_EQ(back.instrument, r.instrument);
  EXPECT_EQ(back.kernels, r.kernels);
  EXPECT_EQ(back.kernel_set_changes, 2);
  EXPECT_EQ(back.telemetry, r.telemetry);
  EXPECT_EQ(back.telemetry_samples, r.telemetry_samples);
  EXPECT_EQ(back.contract, r.contract);
}

TEST(ResultJsonIssue3, UnavailableTelemetryRoundTripsWithItsReason) {
  Result r = cupti_result();
  r.contract.instrument = Instrument::event;
  r.kernels.clear();
  r.kernel_set_changes = 0;
  r.telemetry = telemetry_unavailable("NVML not loaded");
  r.telemetry_samples.clear();
  const nlohmann::json j = to_json(r);
  EXPECT_FALSE(j.contains("kernels"));  // the breakdown exists for cupti only
  EXPECT_EQ(j["telemetry"], (nlohmann::json{{"available", false}, {"reason", "NVML not loaded"}}));
  const Result back = result_from_json(j, "r.json", 0, "results[0]");
  EXPECT_EQ(back.telemetry, r.telemetry);
}

void expect_input_error(const nlohmann::json& j, const std::string& field) {
  try {
    result_from_json(j, "r.json", 3, "results[0]");
    FAIL() << "expected InputError on " << field;
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), field) << e.what();
    EXPECT_EQ(e.file(), "r.json");
    EXPECT_EQ(e.line(), 3);
  }
}

TEST(ResultJsonIssue3, MalformedNewFieldsNameTheField) {
  const nlohmann::json good = to_json(cupti_result());
  nlohmann::json j = good;
  // A file written before telemetry existed reads as "not recorded", never as a made-up summary.
  j.erase("telemetry");
  j.erase("instrument_selection");
  const Result old = result_from_json(j, "r.json", 3, "results[0]");
  EXPECT_EQ(old.telemetry, telemetry_unavailable("not recorded"));
  EXPECT_EQ(old.instrument.requested, "cupti");
  EXPECT_EQ(old.instrument.reason, "not recorded");
  j = good;
  j["telemetry"] = "hot";
  expect_input_error(j, "results[0].telemetry");
  j = good;
  j["telemetry"]["throttle_reasons_seen"][0] = "too_hot";
  expect_input_error(j, "results[0].telemetry.throttle_reasons_seen[0]");
  j = good;
  j["telemetry_samples"][0]["temp_c"] = "hot";
  expect_input_error(j, "results[0].telemetry_samples[0].temp_c");
  j = good;
  j.erase("kernels");
  expect_input_error(j, "results[0].kernels");
  j = good;
  j["kernels"][1]["max_blocks"] = -5;
  expect_input_error(j, "results[0].kernels[1].max_blocks");
  j = good;
  j["instrument_selection"]["requested"] = "stopwatch";
  expect_input_error(j, "results[0].instrument_selection.requested");
  j = good;
  j["instrument_selection"].erase("kernel_tracing");
  expect_input_error(j, "results[0].instrument_selection.kernel_tracing");
}

}  // namespace
}  // namespace caliber
