// The engine's invariants, proven with a recording backend and injected time, through
// caliber::measure and through the engine's hooks: nothing but the call is inside a timed window,
// each schedule produces the sample count it promises, the hooks run between windows, and
// telemetry comes from the source the engine is given.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <span>
#include <string>

#include "caliber/errors.h"
#include "caliber/measure.h"
#include "core/result_flags.h"
#include "measure/engine.h"
#include "support/fixed_contract.h"
#include "support/recording_backend.h"

namespace caliber {
namespace {

using testing_support::RecordingBackend;

Contract fixed(Schedule s, CachePolicy cache, std::int64_t n, std::int64_t warmup = 2) {
  return testing_support::fixed_cuda_contract(s, cache, n, warmup);
}

Result run(RecordingBackend& b, const Contract& c, MeasureOptions o = {}) {
  o.keep_samples = true;
  o.clock = &b.clock;
  return measure(b, [&b](const LaunchContext& ctx) { b.run_call(ctx); }, c, o);
}

// The adaptive rule with this minimum sample count and no minimum time.
Contract adaptive(std::int64_t min_samples) {
  Contract c = fixed(Schedule::per_iter, CachePolicy::warm, 1);
  c.iterations = IterationRule{};
  c.iterations.min_samples = min_samples;
  c.iterations.min_time_ms = 0;
  return c;
}

std::vector<std::string> after_warmup(const RecordingBackend& b, std::size_t warmup_events) {
  return {b.events.begin() + static_cast<long>(warmup_events), b.events.end()};
}

TEST(Measure, IsolatedColdKeepsFlushAndSyncOutsideTheWindow) {
  RecordingBackend b;
  const Result r = run(b, fixed(Schedule::isolated, CachePolicy::cold, 3));
  ASSERT_EQ(r.samples_us.size(), 3u);
  for (double s : r.samples_us) EXPECT_DOUBLE_EQ(s, 5.0);  // the call only: no flush (1000), no sync (3)
  EXPECT_DOUBLE_EQ(r.value_us, 5.0);
  EXPECT_EQ(r.flush_bytes, 2u << 20);
  // warmup: (flush, call) x 2, sync; then per sample: flush, sync, start, call, stop, sync.
  const std::vector<std::string> want = {"flush", "call",  "flush", "call",  "sync",  "flush", "sync",
                                         "start0", "call", "stop0", "sync",  "flush", "sync",  "start1",
                                         "call",  "stop1", "sync",  "flush", "sync",  "start2", "call",
                                         "stop2", "sync"};
  EXPECT_EQ(b.events, want);
}

TEST(Measure, PerIterColdFlushesBetweenWindowsAndSyncsOnceAtTheEnd) {
  RecordingBackend b;
  const Result r = run(b, fixed(Schedule::per_iter, CachePolicy::cold, 3));
  for (double s : r.samples_us) EXPECT_DOUBLE_EQ(s, 5.0);
  const std::vector<std::string> want = {"flush", "start0", "call", "stop0", "flush", "start1", "call",
                                         "stop1", "flush",  "start2", "call", "stop2", "sync"};
  EXPECT_EQ(after_warmup(b, 5), want);
}

TEST(Measure, PipelinedIsOneWindowAroundNCallsAndOneSample) {
  RecordingBackend b;
  const Result r = run(b, fixed(Schedule::pipelined, CachePolicy::warm, 4));
  ASSERT_EQ(r.samples_us.size(), 1u);
  EXPECT_DOUBLE_EQ(r.samples_us[0], 5.0);  // 20 us / 4 calls
  EXPECT_EQ(r.timed_calls, 4u);
  const std::vector<std::string> want = {"start0", "call", "call", "call", "call", "stop0", "sync"};
  EXPECT_EQ(after_warmup(b, 3), want);
}

TEST(Measure, GraphSampleIsReplayTimeOverCallsPerReplay) {
  RecordingBackend b;
  Contract c = fixed(Schedule::graph, CachePolicy::warm, 3);
  c.graph_calls = 4;
  const Result r = run(b, c);
  ASSERT_EQ(r.samples_us.size(), 3u);
  for (double s : r.samples_us) EXPECT_DOUBLE_EQ(s, 5.0);
  EXPECT_EQ(r.timed_calls, 12u);
  // warmup (2 calls + sync), capture of 4 calls, one untimed replay, then 3 timed replays.
  EXPECT_EQ(std::count(b.events.begin(), b.events.end(), "capture:call"), 4);
  EXPECT_EQ(std::count(b.events.begin(), b.events.end(), "graph_launch"), 4);
  EXPECT_EQ(std::count(b.events.begin(), b.events.end(), "replay:call"), 16);
  const auto first_start = std::find(b.events.begin(), b.events.end(), "start0");
  ASSERT_NE(first_start, b.events.end());
  EXPECT_EQ(*(first_start + 1), "graph_launch");
}

TEST(Measure, GraphWithRotationCapturesEnoughGraphsToCoverEveryCopy) {
  RecordingBackend b;
  Contract c = fixed(Schedule::graph, CachePolicy::rotate, 6);
  c.graph_calls = 4;
  MeasureOptions o;
  o.rotation_copies = 10;
  o.working_set_bytes = 1 << 20;  // 10 MiB >= 2 x 1 MiB
  const Result r = run(b, c, o);
  EXPECT_EQ(r.rotation_copies, 10u);
  EXPECT_EQ(std::count(b.events.begin(), b.events.end(), "begin_capture"), 3);  // ceil(10 / 4)
  // The captured calls (after 2 warmup calls) cover rotations 0..9 and wrap.
  std::vector<std::size_t> rot;
  for (std::size_t i = 2; i < 14; ++i) rot.push_back(b.calls.at(i).rotation);
  EXPECT_EQ(rot, (std::vector<std::size_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1}));
}

// Under graph, a subject that can hold one input set per captured call gets one: call j of the
// graph runs with rotation j (its own inputs and outputs), and the sets are released after.
struct InputSetsRun {
  std::vector<std::size_t> asked;
  std::vector<std::size_t> rotations;  // of the calls after warmup
  std::size_t poisons_between_calls = 0;  // captured into an audit graph
  std::size_t audits = 0;
  Result result;
};

bool has_note(const Result& r, const std::string& text) {
  return std::any_of(r.notes.begin(), r.notes.end(), [&](const std::string& n) { return n.find(text) != std::string::npos; });
}

InputSetsRun run_with_input_sets(Schedule schedule, std::size_t held) {
  RecordingBackend b;
  Contract c = fixed(schedule, CachePolicy::warm, 3);
  if (schedule == Schedule::graph) c.graph_calls = 4;
  InputSetsRun out;
  measurement::EngineHooks hooks;
  hooks.input_sets = [&out, held](std::size_t n) {
    out.asked.push_back(n);
    return n == 1 ? std::size_t{1} : held;
  };
  hooks.next_audit = [](std::size_t n) { return std::optional<std::size_t>(n); };
  hooks.audit = [&out](std::size_t) { ++out.audits; };
  hooks.poison_between_calls = [&out] { ++out.poisons_between_calls; };
  MeasureOptions o;
  o.clock = &b.clock;
  out.result = measurement::run_measurement(b, [&b](const LaunchContext& ctx) { b.run_call(ctx); }, c, o, hooks);
  for (std::size_t i = 2; i < b.calls.size(); ++i) out.rotations.push_back(b.calls[i].rotation);
  return out;
}

TEST(Measure, GraphGivesEachCapturedCallItsOwnInputSet) {
  const InputSetsRun r = run_with_input_sets(Schedule::graph, 4);
  EXPECT_EQ(r.asked, (std::vector<std::size_t>{4, 1}));  // before the capture; released after
  ASSERT_GE(r.rotations.size(), 4u);
  EXPECT_EQ(std::vector<std::size_t>(r.rotations.begin(), r.rotations.begin() + 4),
            (std::vector<std::size_t>{0, 1, 2, 3}));
  EXPECT_TRUE(has_note(r.result, "each of the 4 calls of a graph replay ran on its own input")) << r.result.notes.size();
  // every call's own outputs are poisoned before each replay: no audit graph, whose poison between
  // calls would land on call 0's outputs after call 0 wrote them
  EXPECT_GE(r.audits, 1u);
  EXPECT_EQ(r.poisons_between_calls, 0u);
}

TEST(Measure, GraphCallsShareTheInputSetWhenTheSubjectHasNoRoomAndSaySo) {
  const InputSetsRun r = run_with_input_sets(Schedule::graph, 1);
  EXPECT_EQ(r.asked, (std::vector<std::size_t>{4}));
  for (std::size_t k : r.rotations) EXPECT_EQ(k, 0u);
  EXPECT_TRUE(has_note(r.result, "the 4 calls of a graph replay shared one input set"));
  EXPECT_EQ(r.poisons_between_calls, 4u);  // the audit graph: a captured poison before each of its calls
}

TEST(Measure, OnlyTheGraphScheduleAsksForInputSets) {
  const InputSetsRun r = run_with_input_sets(Schedule::per_iter, 4);
  EXPECT_TRUE(r.asked.empty());
  for (std::size_t k : r.rotations) EXPECT_EQ(k, 0u);
}

TEST(Measure, GraphColdCapturesTheFlushOnlyForCupti) {
  RecordingBackend b;
  Contract c = fixed(Schedule::graph, CachePolicy::cold, 2);
  c.graph_calls = 3;
  EXPECT_THROW(run(b, c), ContractError);
}

TEST(Measure, GraphColdWithOneCallPerGraphFlushesBeforeEachReplayOutsideTheWindow) {
  RecordingBackend b;
  Contract c = fixed(Schedule::graph, CachePolicy::cold, 3);
  c.graph_calls = 1;
  const Result r = run(b, c);
  ASSERT_EQ(r.samples_us.size(), 3u);
  for (double s : r.samples_us) EXPECT_DOUBLE_EQ(s, 5.0);  // the call only: no flush (1000) inside
  // No flush is captured; each timed replay is preceded by one, outside its window.
  EXPECT_EQ(std::count(b.events.begin(), b.events.end(), "capture:flush"), 0);
  EXPECT_EQ(std::count(b.events.begin(), b.events.end(), "replay:flush"), 0);
  const auto first = std::find(b.events.begin(), b.events.end(), "start0");
  ASSERT_NE(first, b.events.end());
  const std::vector<std::string> timed(first - 1, b.events.end());
  const std::vector<std::string> want = {"flush", "start0", "graph_launch", "replay:call", "stop0",
                                         "flush", "start1", "graph_launch", "replay:call", "stop1",
                                         "flush", "start2", "graph_launch", "replay:call", "stop2", "sync"};
  EXPECT_EQ(timed, want);
}

TEST(Measure, PreparationRunsBeforeEveryCallOutsideTheWindow) {
  RecordingBackend b;
  MeasureOptions o;
  o.prepare = [&b] {
    b.log("prepare");
    b.clock.advance_us(50);
  };
  const Result r = run(b, fixed(Schedule::per_iter, CachePolicy::warm, 2, 1), o);
  for (double s : r.samples_us) EXPECT_DOUBLE_EQ(s, 5.0);
  const std::vector<std::string> want = {"prepare", "call",  "sync",    "prepare", "start0", "call",
                                         "stop0",   "prepare", "start1", "call",    "stop1",  "sync"};
  EXPECT_EQ(b.events, want);
}

TEST(Measure, PipelinedRefusesPreparation) {
  RecordingBackend b;
  MeasureOptions o;
  o.prepare = [] {};
  EXPECT_THROW(run(b, fixed(Schedule::pipelined, CachePolicy::warm, 4), o), ContractError);
}

TEST(Measure, WallclockOnAnAsyncDeviceDrainsBeforeStop) {
  RecordingBackend b;
  Contract c = fixed(Schedule::isolated, CachePolicy::warm, 2);
  c.instrument = Instrument::wallclock;
  const Result r = run(b, c);
  for (double s : r.samples_us) EXPECT_DOUBLE_EQ(s, 8.0);  // call 5 + the drain 3: launch + run + sync
  const std::vector<std::string> want = {"sync", "start0", "call", "sync", "stop0", "sync",
                                         "sync", "start1", "call", "sync", "stop1", "sync"};
  EXPECT_EQ(after_warmup(b, 3), want);
  ASSERT_EQ(r.notes.size(), 1u);
  EXPECT_EQ(r.notes[0],
            "wallclock on cuda: each sample is launch + run + full-device sync, what a caller waiting for "
            "the result sees");
}

TEST(Measure, HostDispatchStopsTheTimerBeforeTheDrain) {
  // The recording double's call moves the clock by 5 (a launch that returns at once would move
  // it by its dispatch cost only); the drain (3) must be outside every sample.
  RecordingBackend b;
  Contract c = fixed(Schedule::isolated, CachePolicy::warm, 3);
  c.instrument = Instrument::wallclock;
  c.quantity = Quantity::host_dispatch;
  const Result r = run(b, c);
  for (double s : r.samples_us) EXPECT_DOUBLE_EQ(s, 5.0);
  const std::vector<std::string> want = {"sync", "call", "sync", "sync", "call", "sync", "sync", "call", "sync"};
  EXPECT_EQ(after_warmup(b, 3), want);
}

TEST(Measure, WarmupCallsAreNeverTimed) {
  RecordingBackend b;
  const Result r = run(b, fixed(Schedule::isolated, CachePolicy::warm, 4, 7));
  EXPECT_EQ(b.calls.size(), 11u);
  EXPECT_EQ(r.timed_calls, 4u);
  for (std::size_t i = 0; i < b.calls.size(); ++i) EXPECT_EQ(b.calls[i].call_index, i);
}

TEST(Measure, RotationCyclesThroughCopies) {
  RecordingBackend b;
  MeasureOptions o;
  o.rotation_copies = 3;
  o.working_set_bytes = 1 << 20;
  run(b, fixed(Schedule::per_iter, CachePolicy::rotate, 4, 2), o);
  std::vector<std::size_t> rot;
  for (const auto& c : b.calls) rot.push_back(c.rotation);
  EXPECT_EQ(rot, (std::vector<std::size_t>{0, 1, 2, 0, 1, 2}));
}

TEST(Measure, RotationWithoutEnoughDistinctInputsIsRefused) {
  RecordingBackend b;
  EXPECT_THROW(run(b, fixed(Schedule::per_iter, CachePolicy::rotate, 4)), ContractError);
  MeasureOptions o;
  o.rotation_copies = 2;
  o.working_set_bytes = 1000;  // 2 KB of inputs cannot defeat a 1 MiB cache
  try {
    run(b, fixed(Schedule::per_iter, CachePolicy::rotate, 4), o);
    FAIL();
  } catch (const ContractError& e) {
    EXPECT_NE(std::string(e.what()).find("2 copies x 1000 bytes"), std::string::npos) << e.what();
  }
}

TEST(Measure, ContractForAnotherBackendIsRefused) {
  RecordingBackend b(BackendKind::host);
  EXPECT_THROW(run(b, fixed(Schedule::isolated, CachePolicy::warm, 2)), ContractError);
}

TEST(Measure, AdaptiveStopsAtMinSamplesWhenThePrecisionIsReached) {
  RecordingBackend b;
  const Result r = run(b, adaptive(20));
  // First batch of one sample measures the cost, the second brings n to min_samples; identical
  // samples give a zero-width interval.
  EXPECT_EQ(r.summary.n, 20);
  EXPECT_EQ(r.stop_reason, "target precision reached");
  EXPECT_TRUE(r.warnings.empty());
}

TEST(Measure, AdaptiveHonoursMinTime) {
  RecordingBackend b;
  Contract c = fixed(Schedule::isolated, CachePolicy::warm, 1);
  c.iterations = IterationRule{};
  c.iterations.min_samples = 6;
  c.iterations.min_time_ms = 1.0;  // each isolated sample costs 5 + 3 + 3 = 11 us of wall time
  const Result r = run(b, c);
  EXPECT_EQ(r.stop_reason, "target precision reached");
  EXPECT_GE(r.summary.n * 11, 1000);
}

TEST(Measure, AdaptiveStopsAtMaxTimeWithAWarningWhenSamplesDisagree) {
  RecordingBackend b;
  Contract c = fixed(Schedule::per_iter, CachePolicy::warm, 1, 1);
  c.iterations = IterationRule{};
  c.iterations.min_samples = 10;
  c.iterations.min_time_ms = 0;
  c.iterations.max_time_ms = 2;
  int k = 0;
  MeasureOptions o;
  o.clock = &b.clock;
  const Result r = measure(
      b,
      [&](const LaunchContext&) {
        b.log("call");
        b.clock.advance_us(++k % 2 ? 5.0 : 15.0);  // two modes: the median never settles
      },
      c, o);
  EXPECT_EQ(r.stop_reason, "max time reached");
  ASSERT_FALSE(r.warnings.empty());
  EXPECT_NE(r.warnings[0].find("max time 2 ms reached before the median's 95% CI narrowed to +/-0.5%"),
            std::string::npos)
      << r.warnings[0];
  EXPECT_GE(r.wall_time_ms, 2.0);
  EXPECT_LE(r.wall_time_ms, 2.0 * 1.6);  // one batch may overshoot the estimate, not double it
}

TEST(Measure, UnstableSamplesAreFlagged) {
  RecordingBackend b;
  Contract c = fixed(Schedule::per_iter, CachePolicy::warm, 10, 1);
  int k = 0;
  MeasureOptions o;
  o.clock = &b.clock;
  const Result r = measure(
      b,
      [&](const LaunchContext&) { b.clock.advance_us(k++ < 6 ? 10.0 : 20.0); },
      c, o);
  EXPECT_FALSE(r.stable);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_EQ(r.warnings[0], "unstable: p90/p10 = 2.000 > 1.2");
  EXPECT_EQ(r.flags, std::vector<std::string>{"unstable:spread"});
  EXPECT_EQ(instability_reason(r), "p90/p10 = 2.00 > 1.2");
}

TEST(Measure, BelowSixSamplesNoIntervalOfTheMedianIsClaimed) {
  RecordingBackend b;
  const Result r = run(b, fixed(Schedule::per_iter, CachePolicy::warm, 5));
  EXPECT_EQ(r.summary.n, 5);
  EXPECT_FALSE(r.median_ci95_us.has_value());
  EXPECT_EQ(r.stop_reason, "fixed count");
  EXPECT_NE(std::find(r.warnings.begin(), r.warnings.end(),
                      "precision not established: no 95% confidence interval of the median exists below 6 "
                      "samples (n = 5)"),
            r.warnings.end());
  RecordingBackend six;
  const Result r6 = run(six, fixed(Schedule::per_iter, CachePolicy::warm, 6));
  ASSERT_TRUE(r6.median_ci95_us.has_value());  // [x(1), x(6)]
  EXPECT_EQ(r6.median_ci95_us->lo, r6.summary.min_us);
  EXPECT_EQ(r6.median_ci95_us->hi, r6.summary.max_us);
}

TEST(Measure, AnAdaptiveRuleThatCouldClaimPrecisionFromFewerThanSixSamplesIsRefused) {
  RecordingBackend b;
  try {
    run(b, adaptive(1));
    FAIL() << "expected ContractError";
  } catch (const ContractError& e) {
    EXPECT_NE(std::string(e.what()).find("min_samples (--min-samples) must be >= 6 with the adaptive rule (got 1)"),
              std::string::npos)
        << e.what();
  }
  EXPECT_TRUE(b.events.empty());  // refused before anything ran
}

// A telemetry reader that always reports the same reading, and a pacer that lets no period pass:
// the sampler reads once when the measurement starts and once when it ends, deterministically.
class FixedReader final : public TelemetryReader {
 public:
  explicit FixedReader(TelemetrySample s) : s_(s) {}
  TelemetrySample read() override { return s_; }
  int sm_clock_max_mhz() const override { return 1980; }
  std::string source() const override { return "fixed"; }

 private:
  TelemetrySample s_;
};

class NoPeriods final : public TelemetryPacer {
 public:
  bool wait(double) override { return false; }
  void interrupt() override {}
};

TelemetrySample power_capped() {
  TelemetrySample s;
  s.sm_clock_mhz = 1500;
  s.temp_c = 70;
  s.power_w = 700;
  s.throttle_reasons = kThrottleSwPowerCap;
  return s;
}

TelemetrySample full_clock() {
  TelemetrySample s;
  s.sm_clock_mhz = 1980;
  s.temp_c = 40;
  s.power_w = 300;
  return s;
}

Result run_with_telemetry(const TelemetrySample& reading, ThrottlePolicy policy, MeasureOptions o = {}) {
  RecordingBackend b;
  FixedReader reader(reading);
  NoPeriods pacer;
  b.telemetry_reader = &reader;
  o.telemetry_pacer = &pacer;
  Contract c = fixed(Schedule::per_iter, CachePolicy::warm, 10, 1);
  c.throttle_policy = policy;
  return run(b, c, o);
}

TEST(Measure, TelemetryIsSummarizedAndNothingIsFlaggedAtFullClock) {
  MeasureOptions o;
  o.keep_telemetry_samples = true;
  const Result r = run_with_telemetry(full_clock(), ThrottlePolicy::flag, o);
  EXPECT_TRUE(r.telemetry.available);
  EXPECT_EQ(r.telemetry.readings, 2);  // when the measurement started and when it ended
  EXPECT_EQ(r.telemetry.sm_clock_median_mhz, 1980);
  EXPECT_EQ(r.telemetry.max_temp_c, 40);
  EXPECT_EQ(r.telemetry.flagged_samples, 0);
  EXPECT_EQ(r.telemetry_samples.size(), 2u);
  EXPECT_TRUE(r.stable);
  EXPECT_TRUE(r.warnings.empty());
  EXPECT_TRUE(r.flags.empty());
}

TEST(Measure, ThrottlePolicyFlagCountsTheSamplesAndTheResultIsNotStable) {
  const Result r = run_with_telemetry(power_capped(), ThrottlePolicy::flag);
  EXPECT_EQ(r.telemetry.flagged_samples, 10);
  EXPECT_EQ(r.telemetry.discarded_samples, 0);
  EXPECT_EQ(r.summary.n, 10);
  EXPECT_FALSE(r.stable);  // identical samples, but all of them ran power-capped
  const std::vector<std::string> want = {
      "10 of 10 samples may have run throttled (reasons: sw_power_cap; lowest SM clock 1500 MHz of "
      "1980 MHz, threshold 90%)",
      "not stable: more than 10% of the samples were flagged as throttled"};
  EXPECT_EQ(r.warnings, want);
  // What happened is a flag as well as a sentence, and the instability is explained by it.
  EXPECT_EQ(r.flags, (std::vector<std::string>{"throttled:sw_power_cap", "unstable:throttled"}));
  EXPECT_EQ(instability_reason(r), "10 of 10 samples may have run throttled (sw_power_cap)");
}

TEST(Measure, ThrottlePolicyDiscardRefusesWhenNothingIsLeft) {
  try {
    run_with_telemetry(power_capped(), ThrottlePolicy::discard);
    FAIL() << "expected DeviceError";
  } catch (const DeviceError& e) {
    EXPECT_NE(std::string(e.what()).find("throttle policy discard: every sample was flagged"),
              std::string::npos)
        << e.what();
  }
}

TEST(Measure, ThrottlePolicyFailFailsTheMeasurement) {
  try {
    run_with_telemetry(power_capped(), ThrottlePolicy::fail);
    FAIL() << "expected DeviceError";
  } catch (const DeviceError& e) {
    EXPECT_EQ(std::string(e.what()),
              "throttle policy fail: 10 of 10 samples may have run throttled (reasons: sw_power_cap; "
              "lowest SM clock 1500 MHz of 1980 MHz, threshold 90%)");
  }
  EXPECT_NO_THROW(run_with_telemetry(full_clock(), ThrottlePolicy::fail));
}

TEST(Measure, ARetimedVerifiedSampleIsNotJudgedByTheTelemetryOfTheSamples) {
  // The re-timing runs after the telemetry stopped, and is no sample: the samples' windows are
  // the ones the throttle rule judges.
  RecordingBackend b;
  FixedReader reader(power_capped());
  NoPeriods pacer;
  b.telemetry_reader = &reader;
  MeasureOptions o;
  o.clock = &b.clock;
  o.telemetry_pacer = &pacer;
  measurement::EngineHooks hooks;
  hooks.before_verified_sample = [](std::size_t) {};
  hooks.on_samples = [](const std::vector<double>&, const std::function<double(std::size_t)>& resample) {
    resample(0);
  };
  const Result r = measurement::run_measurement(b, [&b](const LaunchContext& ctx) { b.run_call(ctx); },
                                                fixed(Schedule::per_iter, CachePolicy::warm, 10, 1), o, hooks);
  EXPECT_EQ(r.summary.n, 10);
  EXPECT_EQ(r.telemetry.flagged_samples, 10);
  EXPECT_EQ(r.warnings.front(),
            "10 of 10 samples may have run throttled (reasons: sw_power_cap; lowest SM clock 1500 MHz of 1980 MHz, "
            "threshold 90%)");
}

TEST(Measure, WithoutTelemetryTheResultSaysWhyAndTheMeasurementGoesOn) {
  RecordingBackend b;
  const Result r = run(b, fixed(Schedule::per_iter, CachePolicy::warm, 5));
  EXPECT_FALSE(r.telemetry.available);
  EXPECT_EQ(r.telemetry.unavailable_reason, "recording backend: no telemetry");
  EXPECT_EQ(r.summary.n, 5);
}

TEST(Measure, TheInstrumentChoiceAndItsWarningAreRecorded) {
  RecordingBackend b;
  MeasureOptions o;
  InstrumentSelection sel;
  sel.instrument = Instrument::event;
  sel.choice.requested = "auto";
  sel.choice.reason = "auto: cupti unavailable (test); fell back to event";
  sel.warning = "instrument auto fell back to event";
  o.instrument_selection = sel;
  const Result r = run(b, fixed(Schedule::per_iter, CachePolicy::warm, 5), o);
  EXPECT_EQ(r.instrument.requested, "auto");
  EXPECT_EQ(r.instrument.reason, sel.choice.reason);
  EXPECT_FALSE(r.instrument.kernel_tracing);
  ASSERT_FALSE(r.warnings.empty());
  EXPECT_EQ(r.warnings[0], "instrument auto fell back to event");

  sel.instrument = Instrument::cupti;  // disagrees with the contract's event
  o.instrument_selection = sel;
  EXPECT_THROW(run(b, fixed(Schedule::per_iter, CachePolicy::warm, 5), o), ContractError);
}

TEST(Measure, ByDefaultTheContractsInstrumentIsRecordedAsRequested) {
  RecordingBackend b;
  const Result r = run(b, fixed(Schedule::per_iter, CachePolicy::warm, 5));
  EXPECT_EQ(r.instrument.requested, "event");
  EXPECT_EQ(r.instrument.reason, "requested");
}

TEST(Measure, KeepingTracingOnNeedsABackendThatTraces) {
  RecordingBackend b;
  MeasureOptions o;
  o.keep_activity_tracing_on = true;
  EXPECT_THROW(run(b, fixed(Schedule::per_iter, CachePolicy::warm, 5), o), ContractError);
}

// The engine with its hooks and a telemetry source given directly (src/measure/engine.h).
Result run_engine(RecordingBackend& b, const Contract& c, const measurement::EngineHooks& hooks,
                  const measurement::TelemetrySource& telemetry = {}) {
  MeasureOptions o;
  o.keep_samples = true;
  o.clock = &b.clock;
  return measurement::run_measurement(b, [&b](const LaunchContext& ctx) { b.run_call(ctx); }, c, o, hooks,
                                      telemetry);
}

TEST(Measure, VerifiedSamplesEndAFixedCountAndTheirHooksRunOutsideTheWindows) {
  RecordingBackend b;
  measurement::EngineHooks hooks;
  hooks.verified_samples = 2;
  hooks.before_verified_sample = [&b](std::size_t stage) { b.log("before" + std::to_string(stage)); };
  hooks.after_verified_sample = [&b](std::size_t stage) { b.log("after" + std::to_string(stage)); };
  const Result r = run_engine(b, fixed(Schedule::per_iter, CachePolicy::warm, 4, 1), hooks);
  EXPECT_EQ(r.summary.n, 4);  // the fixed count stays what the contract says
  const std::vector<std::string> want = {"start0", "call",  "stop0",  "start1", "call",  "stop1",  "sync",
                                         "before0", "start0", "call", "stop0", "sync", "after0",
                                         "before1", "start0", "call", "stop0", "sync", "after1"};
  EXPECT_EQ(after_warmup(b, 2), want);
}

TEST(Measure, AVerifiedSampleUsesInputCopyZero) {
  RecordingBackend b;
  measurement::EngineHooks hooks;
  hooks.before_verified_sample = [](std::size_t) {};
  MeasureOptions o;
  o.clock = &b.clock;
  o.rotation_copies = 3;
  o.working_set_bytes = 1 << 20;
  measurement::run_measurement(b, [&b](const LaunchContext& ctx) { b.run_call(ctx); },
                               fixed(Schedule::per_iter, CachePolicy::rotate, 3, 1), o, hooks, {});
  std::vector<std::size_t> rot;
  for (const auto& c : b.calls) rot.push_back(c.rotation);
  EXPECT_EQ(rot, (std::vector<std::size_t>{0, 1, 2, 0}));  // warmup, 2 samples, then the verified one
}

TEST(Measure, BetweenBatchesRunsAfterEachBatchOfTheStoppingRuleHasSynchronized) {
  RecordingBackend b;
  measurement::EngineHooks hooks;
  hooks.between_batches = [&b] { b.log("between"); };
  const Result r = run_engine(b, adaptive(20), hooks);
  EXPECT_EQ(r.summary.n, 20);
  // The adaptive rule takes one sample, then 19: two batches, each closed by its sync.
  EXPECT_EQ(std::count(b.events.begin(), b.events.end(), "between"), 2);
  for (std::size_t i = 0; i < b.events.size(); ++i) {
    if (b.events[i] == "between") {
      EXPECT_EQ(b.events.at(i - 1), "sync");
    }
  }
}

TEST(Measure, ReTimingAVerifiedSampleRunsItsHooksAgainAndAddsNoSample) {
  RecordingBackend b;
  measurement::EngineHooks hooks;
  hooks.before_verified_sample = [&b](std::size_t) { b.log("before"); };
  double retimed = -1;
  hooks.on_samples = [&](const std::vector<double>& samples, const std::function<double(std::size_t)>& resample) {
    EXPECT_EQ(samples.size(), 6u);
    retimed = resample(0);
  };
  const Result r = run_engine(b, fixed(Schedule::isolated, CachePolicy::warm, 6, 1), hooks);
  EXPECT_DOUBLE_EQ(retimed, 5.0);
  EXPECT_EQ(r.summary.n, 6);
  EXPECT_EQ(r.timed_calls, 6u);
  EXPECT_EQ(std::count(b.events.begin(), b.events.end(), "before"), 2);
}

// A telemetry source that logs when the engine starts and stops it, and judges every sample
// throttled without a policy of its own.
class LoggingTelemetry final : public measurement::SampleTelemetry {
 public:
  LoggingTelemetry(RecordingBackend& b, std::size_t& windows) : b_(b), windows_(windows) {}
  void start() override { b_.log("telemetry_start"); }
  void stop() override { b_.log("telemetry_stop"); }
  bool judge(Result& r, std::vector<double>& samples, std::span<const measurement::HostWindow> w) override {
    windows_ = w.size();
    r.telemetry.available = true;
    r.telemetry.flagged_samples = static_cast<std::int64_t>(samples.size());
    return true;
  }

 private:
  RecordingBackend& b_;
  std::size_t& windows_;
};

TEST(Measure, TelemetryComesFromTheSourceItIsGivenAndSeesEverySamplesWindow) {
  RecordingBackend b;
  std::size_t windows = 0;
  const measurement::TelemetrySource source = [&](Backend&, Clock&, const Contract&, const MeasureOptions&, Result&) {
    return std::make_unique<LoggingTelemetry>(b, windows);
  };
  const Result r = run_engine(b, fixed(Schedule::per_iter, CachePolicy::warm, 5, 1), {}, source);
  EXPECT_EQ(b.events.front(), "telemetry_start");  // before the warmup
  EXPECT_EQ(b.events.back(), "telemetry_stop");    // once the last batch has synchronized
  EXPECT_EQ(windows, 5u);
  EXPECT_EQ(r.telemetry.flagged_samples, 5);
  EXPECT_FALSE(r.stable);  // identical samples, but the telemetry said too many were throttled
}

TEST(Measure, WithoutATelemetrySourceNothingIsSampled) {
  RecordingBackend b;
  const Result r = run_engine(b, fixed(Schedule::per_iter, CachePolicy::warm, 5, 1), {}, {});
  EXPECT_TRUE(r.stable);
  EXPECT_FALSE(r.telemetry.available);
}

}  // namespace
}  // namespace caliber

namespace caliber {
namespace {

// The engine ends a batch after the audited sample and audits it once the batch synchronized;
// fresh inputs come before every call that is not verified.
TEST(Measure, ABatchEndsAfterAnAuditedSampleWhichIsAuditedAfterItsSync) {
  RecordingBackend b;
  measurement::EngineHooks hooks;
  hooks.before_call = [&b] { b.log("draw"); };
  hooks.next_audit = [](std::size_t sample) -> std::optional<std::size_t> {
    if (sample <= 2) return 2;
    return std::nullopt;
  };
  std::vector<std::size_t> audited;
  hooks.audit = [&](std::size_t s) {
    b.log("audit");
    audited.push_back(s);
  };
  const Contract c = fixed(Schedule::per_iter, CachePolicy::warm, 5, 1);
  MeasureOptions o;
  o.clock = &b.clock;
  const Result r = measurement::run_measurement(b, [&b](const LaunchContext& ctx) { b.run_call(ctx); }, c, o, hooks);
  EXPECT_EQ(r.summary.n, 5);
  EXPECT_EQ(audited, std::vector<std::size_t>{2});
  const auto audit = std::find(b.events.begin(), b.events.end(), "audit");
  ASSERT_NE(audit, b.events.end());
  EXPECT_EQ(*(audit - 1), "sync");     // after the batch synchronized
  EXPECT_EQ(*(audit - 2), "stop2");    // which ended with sample 2
  EXPECT_EQ(std::count(b.events.begin(), b.events.end(), "draw"), 6);  // warmup + 5 timed calls
  EXPECT_EQ(r.contract.inputs, InputValues::fresh);
  // The timer is made for the contract as measured (the cuda backend gates per_iter's event
  // windows when caliber draws inputs between the calls).
  ASSERT_EQ(b.timer_contracts.size(), 1u);
  EXPECT_EQ(b.timer_contracts[0].inputs, InputValues::fresh);
}

// The result's contract says what the timed calls saw: without a draw before each call, the same
// values, whatever the contract asked.
TEST(Measure, AResultWhoseCallsGotNoDrawnInputsSaysItsInputsWereFixed) {
  RecordingBackend b;
  Contract c = fixed(Schedule::per_iter, CachePolicy::warm, 5, 1);
  ASSERT_EQ(c.inputs, InputValues::fresh);
  MeasureOptions o;
  o.clock = &b.clock;
  const Result r = measurement::run_measurement(b, [&b](const LaunchContext& ctx) { b.run_call(ctx); }, c, o,
                                                measurement::EngineHooks{});
  EXPECT_EQ(r.contract.inputs, InputValues::fixed);
  EXPECT_EQ(r.contract.schedule, Schedule::per_iter);
  ASSERT_EQ(b.timer_contracts.size(), 1u);
  EXPECT_EQ(b.timer_contracts[0].inputs, InputValues::fixed);
}

// What the timer saw inside its samples reaches the integrity layer once, after the last sample.
TEST(Measure, TheCallsTheTimerToldApartInsideItsSamplesGoToTheHookOnce) {
  RecordingBackend b(BackendKind::cuda);
  b.calls_within_samples.call_us = {{3, 4}, {5, 6}};
  measurement::EngineHooks hooks;
  std::vector<CallsWithinSamples> seen;
  hooks.on_calls_within_samples = [&](const CallsWithinSamples& c) {
    b.log("calls_within");
    seen.push_back(c);
  };
  Contract c = fixed(Schedule::graph, CachePolicy::warm, 4, 1);
  c.graph_calls = 2;
  MeasureOptions o;
  o.clock = &b.clock;
  measurement::run_measurement(b, [&b](const LaunchContext& ctx) { b.run_call(ctx); }, c, o, hooks);
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].call_us, (std::vector<std::vector<double>>{{3, 4}, {5, 6}}));
  EXPECT_EQ(b.events.back(), "calls_within");  // after every window and sync
}

TEST(Measure, WithoutADrawnAuditTheLastSampleIsAudited) {
  RecordingBackend b;
  measurement::EngineHooks hooks;
  hooks.next_audit = [](std::size_t) -> std::optional<std::size_t> { return 1000; };
  std::vector<std::size_t> audited;
  hooks.audit = [&](std::size_t s) { audited.push_back(s); };
  MeasureOptions o;
  o.clock = &b.clock;
  measurement::run_measurement(b, [&b](const LaunchContext& ctx) { b.run_call(ctx); },
                               fixed(Schedule::per_iter, CachePolicy::warm, 4, 1), o, hooks);
  EXPECT_EQ(audited, std::vector<std::size_t>{3});
}

}  // namespace
}  // namespace caliber
