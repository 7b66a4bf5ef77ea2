// Fresh inputs and audited timed calls (integrity/timed_call_audit.h) on the host backend with
// injected time: every call before and during timing runs on values drawn for it, audited samples
// are judged against the reference of their own inputs, and the verdict says when a callable gave
// no way to draw its inputs. Each cheating callable below passes when the inputs stay fixed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <limits>
#include <vector>

#include "backends/host/host_backend.h"
#include "caliber/measure.h"
#include "integrity/measurement_checks.h"
#include "integrity/timed_call_audit.h"
#include "measure/checked_subject.h"
#include "ops/uniform_draw.h"
#include "support/test_host_device.h"

namespace caliber {
namespace {

namespace check = integrity_check;

constexpr std::size_t kN = 256;
constexpr double kComputeUs = 100;
constexpr double kSkipUs = 1;

Contract fixed_host(std::int64_t n = 24) {
  Contract c = default_contract(BackendKind::host);
  c.cache = CachePolicy::warm;
  c.warmup = 2;
  c.iterations.mode = IterationRule::Mode::fixed;
  c.iterations.count = n;
  return c;
}

// y = 2 x; draw(seed) writes x from the ops' uniform draw, check(seed) compares y with 2 x(seed).
struct Harness {
  ManualClock clock;
  host::HostBackend backend{clock, testing_support::test_host_device()};
  std::vector<float> x = std::vector<float>(kN, 1.0f);
  std::vector<float> y = std::vector<float>(kN, 0.0f);
  std::size_t draws = 0;

  static float drawn(std::uint64_t seed, std::size_t i) {
    return ops::uniform_element(seed, i, ops::uniform_scale(-1.0f, 1.0f), -1.0f);
  }
  void compute() {
    for (std::size_t i = 0; i < kN; ++i) y[i] = 2.0f * x[i];
    clock.advance_us(kComputeUs);
  }
  Result measure_with(const std::function<void()>& body, bool fresh, Contract c = fixed_host()) {
    MeasureOptions o;
    o.clock = &clock;
    o.telemetry = false;
    o.keep_samples = true;
    o.buffers.inputs.push_back({"x", x.data(), kN * sizeof(float), DType::fp32});
    o.buffers.outputs.push_back({"y", y.data(), kN * sizeof(float), DType::fp32});
    if (fresh) {
      o.draw_inputs = [this](std::uint64_t seed) {
        ++draws;
        for (std::size_t i = 0; i < kN; ++i) x[i] = drawn(seed, i);
      };
      o.check_drawn = [this](std::uint64_t seed) -> std::string {
        for (std::size_t i = 0; i < kN; ++i) {
          if (y[i] != 2.0f * drawn(seed, i)) return "y[" + std::to_string(i) + "] is not 2 x";
        }
        return "";
      };
    }
    return caliber::measure(backend, [&](const LaunchContext&) { body(); }, c, o);
  }
};

// Remembers the result of every input it has seen (by content); on inputs it has not seen it
// returns without doing anything, cheaply.
struct MemoThatSkipsTheUnseen {
  Harness& h;
  std::map<std::vector<float>, std::vector<float>> seen;
  bool first = true;
  void operator()() {
    const auto hit = seen.find(h.x);
    if (hit != seen.end()) {
      h.y = hit->second;
      h.clock.advance_us(kSkipUs);
    } else if (first || seen.size() < 2) {  // the untimed call and the fresh verified call
      h.compute();
      seen.emplace(h.x, h.y);
    } else {
      h.clock.advance_us(kSkipUs);
    }
    first = false;
  }
};

TEST(TimedCallAudit, AnHonestCallableOnFreshInputsIsVerified) {
  Harness h;
  const Result r = h.measure_with([&] { h.compute(); }, true);
  EXPECT_EQ(r.integrity.verdict(), IntegrityVerdict::verified) << r.integrity.first_failure();
  EXPECT_EQ(r.integrity.find(check::fresh_inputs)->outcome, CheckOutcome::passed);
  const IntegrityCheck* audited = r.integrity.find(check::audited_calls);
  ASSERT_NE(audited, nullptr);
  EXPECT_EQ(audited->outcome, CheckOutcome::passed) << audited->detail;
  // warmup 2 + 23 timed calls (the 24th is the verified one, on the original inputs)
  EXPECT_EQ(h.draws, 25u);
  EXPECT_NE(r.integrity.find(check::fresh_inputs)->detail.find("each of 25 calls"), std::string::npos);
  EXPECT_DOUBLE_EQ(r.value_us, kComputeUs);
  EXPECT_EQ(r.integrity.find(check::calls_alike)->outcome, CheckOutcome::passed);
}

TEST(TimedCallAudit, WithoutADrawTheInputsAreFixedAndTheVerdictPartial) {
  Harness h;
  const Result r = h.measure_with([&] { h.compute(); }, false);
  const IntegrityCheck* fresh = r.integrity.find(check::fresh_inputs);
  ASSERT_NE(fresh, nullptr);
  EXPECT_EQ(fresh->outcome, CheckOutcome::not_run);
  EXPECT_NE(fresh->detail.find("inputs fixed"), std::string::npos) << fresh->detail;
  EXPECT_EQ(r.integrity.verdict(), IntegrityVerdict::partial);
  EXPECT_EQ(r.integrity.find(check::audited_calls), nullptr);
}

TEST(TimedCallAudit, AMemoThatSkipsUnseenInputsPassesOnFixedInputsAndFailsOnFreshOnes) {
  {
    Harness h;
    MemoThatSkipsTheUnseen cheat{h};
    const Result r = h.measure_with(std::ref(cheat), false);
    EXPECT_FALSE(r.integrity.failed()) << "the gap this closes: " << r.integrity.first_failure();
    EXPECT_DOUBLE_EQ(r.value_us, kSkipUs);  // a number it did not earn
  }
  Harness h;
  MemoThatSkipsTheUnseen cheat{h};
  const Result r = h.measure_with(std::ref(cheat), true);
  EXPECT_EQ(r.integrity.verdict(), IntegrityVerdict::failed);
  const IntegrityCheck* audited = r.integrity.find(check::audited_calls);
  ASSERT_NE(audited, nullptr);
  EXPECT_EQ(audited->outcome, CheckOutcome::failed);
  EXPECT_NE(audited->detail.find("poison left"), std::string::npos) << audited->detail;
}

TEST(TimedCallAudit, AContentMemoNeverHitsOnFreshInputs) {
  Harness h;
  std::map<std::vector<float>, std::vector<float>> seen;
  std::size_t hits = 0;
  const Result r = h.measure_with(
      [&] {
        const auto hit = seen.find(h.x);
        if (hit != seen.end()) {
          ++hits;
          h.y = hit->second;
          h.clock.advance_us(kSkipUs);
          return;
        }
        h.compute();
        seen.emplace(h.x, h.y);
      },
      true);
  EXPECT_EQ(r.integrity.verdict(), IntegrityVerdict::verified) << r.integrity.first_failure();
  EXPECT_DOUBLE_EQ(r.value_us, kComputeUs);  // every timed call did its work
  EXPECT_LE(hits, 1u);                        // at most the verified call, on the original inputs again
}

// Right outputs on every call, but one call in four does its work where the timer does not look
// (it posts kSkipUs): the audits pass whatever calls they judge; the calls' times give it away.
TEST(TimedCallAudit, CallsFarFasterThanTheirSiblingsFailTheRowThoughTheirOutputsAreRight) {
  Harness h;
  std::size_t calls = 0;
  const Result r = h.measure_with(
      [&] {
        for (std::size_t i = 0; i < kN; ++i) h.y[i] = 2.0f * h.x[i];
        h.clock.advance_us(++calls % 4 == 0 ? kSkipUs : kComputeUs);
      },
      true);
  EXPECT_EQ(r.integrity.find(check::audited_calls)->outcome, CheckOutcome::passed) << "the gap this closes";
  const IntegrityCheck* alike = r.integrity.find(check::calls_alike);
  ASSERT_NE(alike, nullptr);
  EXPECT_EQ(alike->outcome, CheckOutcome::failed);
  EXPECT_EQ(alike->detail.find("calls do not look alike: 6 of 23 timed samples"), 0u) << alike->detail;
  EXPECT_EQ(r.integrity.verdict(), IntegrityVerdict::failed);
}

// The audited samples come from the entropy: gap = 1 + value mod (2 kMeanAuditGap - 1).
TEST(TimedCallAudit, AuditPositionsFollowTheEntropyAndEndAtTheCap) {
  Harness h;
  MeasureOptions o;
  o.buffers.inputs.push_back({"x", h.x.data(), kN * sizeof(float), DType::fp32});
  o.buffers.outputs.push_back({"y", h.y.data(), kN * sizeof(float), DType::fp32});
  o.draw_inputs = [](std::uint64_t) {};
  o.check_drawn = [](std::uint64_t) { return std::string(); };
  integrity::SubjectChecks subject(h.backend, measurement::subject_from_options([&](const LaunchContext&) { h.compute(); }, o));
  subject.run_untimed_check();
  std::deque<std::uint64_t> values = {77, 4, 0, 29};  // nonce, then gaps 5, 1, 15
  integrity::TimedCallAudit audit(subject, [&] {
    const std::uint64_t v = values.empty() ? 0 : values.front();
    if (!values.empty()) values.pop_front();
    return v;
  });
  EXPECT_EQ(audit.next_audit(0), 4u);
  audit.audit(4);
  EXPECT_EQ(audit.next_audit(5), 5u);
  audit.audit(5);
  EXPECT_EQ(audit.next_audit(6), 20u);
  for (std::size_t k = 2; k < integrity::kMaxAudits; ++k) audit.audit(100 + k);
  EXPECT_EQ(audit.next_audit(200), std::nullopt);
  Integrity integ;
  audit.record(integ);
  EXPECT_FALSE(integ.failed());
  EXPECT_EQ(integ.find(check::audited_calls)->detail.find("16 timed samples"), 0u) << integ.find(check::audited_calls)->detail;
}

// A host backend that replays captured calls (the graph's calls run again at each launch), as
// the scripted devices of the integrity tests do: enough for the graph schedule's input sets.
class GraphHost : public host::HostBackend {
 public:
  explicit GraphHost(Clock& clock) : HostBackend(clock, cuda_like()) {}
  BackendKind kind() const override { return BackendKind::cuda; }
  bool asynchronous() const override { return true; }
  DeviceWorkCensus census_call(const std::function<void()>& call) override {
    call();
    DeviceWorkCensus c;
    c.why_not_observed = "test: no tracer";
    return c;
  }
  std::unique_ptr<SampleTimer> make_timer(Instrument) override { return HostBackend::make_timer(Instrument::wallclock); }
  bool supports_graphs() const override { return true; }
  std::unique_ptr<GraphExec> capture_graph(const std::function<void()>& record) override {
    record();
    return std::make_unique<Replay>(record);
  }

 private:
  struct Replay : GraphExec {
    explicit Replay(std::function<void()> r) : record(std::move(r)) {}
    void launch() override { record(); }
    std::function<void()> record;
  };
  static DeviceInfo cuda_like() {
    DeviceInfo d = testing_support::test_host_device();
    d.backend = BackendKind::cuda;
    return d;
  }
};

// y = 2 x on one of 4 input and output sets (LaunchContext::rotation), each drawn from the audit's
// seed and its index. The cheat remembers the last inputs it computed on and copies that result
// when the next call sees the same values: the calls of a replay that share one set.
struct SetsHarness {
  static constexpr std::size_t kSets = 4;
  ManualClock clock;
  GraphHost backend{clock};
  std::vector<std::vector<float>> x = std::vector<std::vector<float>>(kSets, std::vector<float>(kN, 1.0f));
  std::vector<std::vector<float>> y = std::vector<std::vector<float>>(kSets, std::vector<float>(kN, 0.0f));
  std::size_t held = 1;
  std::vector<std::size_t> asked;
  std::vector<float> last_x, last_y;

  static std::uint64_t set_seed(std::uint64_t seed, std::size_t k) { return seed + 0x9e3779b97f4a7c15ull * k; }
  void call(std::size_t k, bool memo) {
    if (memo && x[k] == last_x) {
      y[k] = last_y;
      clock.advance_us(kSkipUs);
      return;
    }
    for (std::size_t i = 0; i < kN; ++i) y[k][i] = 2.0f * x[k][i];
    clock.advance_us(kComputeUs);
    last_x = x[k];
    last_y = y[k];
  }
  Result measure(bool own_sets, bool memo) {
    MeasureOptions o;
    o.clock = &clock;
    o.telemetry = false;
    o.buffers.inputs.push_back({"x", x[0].data(), kN * sizeof(float), DType::fp32});
    o.buffers.outputs.push_back({"y", y[0].data(), kN * sizeof(float), DType::fp32});
    o.draw_inputs = [this](std::uint64_t seed) {
      for (std::size_t k = 0; k < held; ++k) {
        for (std::size_t i = 0; i < kN; ++i) x[k][i] = Harness::drawn(set_seed(seed, k), i);
        if (k > 0) std::fill(y[k].begin(), y[k].end(), std::numeric_limits<float>::quiet_NaN());
      }
    };
    o.check_drawn = [this](std::uint64_t seed) -> std::string {
      for (std::size_t k = 0; k < held; ++k) {
        for (std::size_t i = 0; i < kN; ++i) {
          if (!(y[k][i] == 2.0f * Harness::drawn(set_seed(seed, k), i))) return "set " + std::to_string(k) + " is wrong";
        }
      }
      return "";
    };
    if (own_sets) {
      o.input_sets = [this](std::size_t n) {
        asked.push_back(n);
        held = std::min(n, kSets);
        return held;
      };
    }
    Contract c = default_contract(BackendKind::cuda);
    c.schedule = Schedule::graph;
    c.cache = CachePolicy::warm;
    c.graph_calls = kSets;
    c.warmup = 2;
    c.iterations.mode = IterationRule::Mode::fixed;
    c.iterations.count = 12;
    return caliber::measure(backend, [this, memo](const LaunchContext& ctx) { call(ctx.rotation, memo); }, c, o);
  }
};

// Without sets of their own the calls of a replay share its inputs: the copying cheat passes every
// audit and posts a replay of one computation and three copies. With them, no call of a replay
// sees the values another saw, and it posts the work.
TEST(TimedCallAudit, CapturedCallsThatCopyTheFirstCallsResultPostTheWorkWhenEachHasItsOwnSet) {
  SetsHarness shared;
  const Result copied = shared.measure(false, true);
  EXPECT_FALSE(copied.integrity.failed()) << "the gap this closes: " << copied.integrity.first_failure();
  EXPECT_DOUBLE_EQ(copied.value_us, (kComputeUs + 3 * kSkipUs) / 4);  // a number it did not earn
  SetsHarness own;
  const Result r = own.measure(true, true);
  EXPECT_EQ(own.asked, (std::vector<std::size_t>{4, 1}));
  EXPECT_EQ(r.integrity.find(check::audited_calls)->outcome, CheckOutcome::passed)
      << r.integrity.find(check::audited_calls)->detail;
  EXPECT_DOUBLE_EQ(r.value_us, kComputeUs);
  EXPECT_TRUE(std::any_of(r.notes.begin(), r.notes.end(), [](const std::string& n) {
    return n.find("each of the 4 calls of a graph replay ran on its own input and output set") != std::string::npos;
  }));
}

// A pass inside the samples (a timer that told a replay's calls apart) adds its detail to the
// samples' own judgement; a failure inside them replaces it.
TEST(TimedCallAudit, APassInsideTheSamplesIsRecordedWithTheSamplesJudgementAndAFailureReplacesIt) {
  for (const bool fail_inside : {false, true}) {
    Harness h;
    MeasureOptions o;
    o.buffers.inputs.push_back({"x", h.x.data(), kN * sizeof(float), DType::fp32});
    o.buffers.outputs.push_back({"y", h.y.data(), kN * sizeof(float), DType::fp32});
    o.draw_inputs = [](std::uint64_t) {};
    o.check_drawn = [](std::uint64_t) { return std::string(); };
    integrity::SubjectChecks subject(h.backend,
                                     measurement::subject_from_options([&](const LaunchContext&) { h.compute(); }, o));
    subject.run_untimed_check();
    integrity::MeasurementChecks checks(subject, fixed_host(), [] { return std::uint64_t{3}; });
    ASSERT_TRUE(checks.audits_timed_calls());
    checks.check_sample_times({10, 10, 11, 10, 10, 10}, [](std::size_t) { return 10.0; });
    CallsWithinSamples c;
    c.call_us = {{5, 5, fail_inside ? 0.1 : 6.0}};
    c.told_apart_by = "marks";
    checks.check_calls_within_samples(c);
    checks.finish();
    const IntegrityCheck* alike = checks.record().find(check::calls_alike);
    ASSERT_NE(alike, nullptr);
    if (fail_inside) {
      EXPECT_EQ(alike->outcome, CheckOutcome::failed);
      EXPECT_EQ(alike->detail.find("calls do not look alike: call 2 of sample 0"), 0u) << alike->detail;
    } else {
      EXPECT_EQ(alike->outcome, CheckOutcome::passed);
      EXPECT_EQ(alike->detail.find("every one of "), 0u) << alike->detail;
      EXPECT_NE(alike->detail.find("; the 3 calls inside each of 1 samples (marks) took within 10x"), std::string::npos)
          << alike->detail;
    }
  }
}

}  // namespace
}  // namespace caliber
