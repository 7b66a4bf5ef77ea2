// The checked measurement (measure/checked_subject.h) end to end on the host backend with injected
// time, and on a scripted asynchronous device: honest callables are verified; callables that
// compute once, drift, skip on a repeated pointer, leave outputs unwritten, change their inputs,
// or skip their work when their output already holds a result are caught; work the timer cannot
// see is refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <vector>

#include "backends/host/host_backend.h"
#include "caliber/errors.h"
#include "caliber/measure.h"
#include "measure/checked_subject.h"
#include "support/test_host_device.h"

namespace caliber {
namespace {

namespace check = integrity_check;
using integrity::Subject;
using measurement::CheckedSubject;

constexpr std::size_t kN = 1024;
constexpr double kComputeUs = 100;  // injected cost of a call that does its work
constexpr double kSkipUs = 1;       // and of one that does not

DeviceInfo test_host() { return testing_support::test_host_device(); }

Contract fixed_host(std::int64_t n = 12) {
  Contract c = default_contract(BackendKind::host);
  c.cache = CachePolicy::warm;
  c.warmup = 2;
  c.iterations.mode = IterationRule::Mode::fixed;
  c.iterations.count = n;
  return c;
}

// y = 2 x over host buffers; the callable advances the injected clock by what it does.
struct Buffers {
  std::vector<float> x = std::vector<float>(kN);
  std::vector<float> y = std::vector<float>(kN, 0.0f);
  Buffers() {
    for (std::size_t i = 0; i < kN; ++i) x[i] = 0.5f + static_cast<float>(i % 97) / 97.0f;
  }
  DeclaredBuffers declared() {
    DeclaredBuffers b;
    b.inputs.push_back({"x", x.data(), x.size() * sizeof(float), DType::fp32});
    b.outputs.push_back({"y", y.data(), y.size() * sizeof(float), DType::fp32});
    return b;
  }
  void compute(float factor = 2.0f) {
    for (std::size_t i = 0; i < kN; ++i) y[i] = factor * x[i];
  }
};

struct Harness {
  ManualClock clock;
  host::HostBackend backend{clock, test_host()};
  Buffers buf;
  std::size_t calls = 0;

  Result measure_with(const std::function<void(Harness&)>& body, bool declare = true, Contract c = fixed_host()) {
    MeasureOptions o;
    o.clock = &clock;
    o.telemetry = false;
    o.keep_samples = true;
    if (declare) o.buffers = buf.declared();
    return caliber::measure(backend, [&](const LaunchContext&) { body(*this); }, c, o);
  }
  void work() {
    buf.compute();
    clock.advance_us(kComputeUs);
  }
};

TEST(CheckedSubject, AnHonestCallableIsVerified) {
  Harness h;
  const Result r = h.measure_with([](Harness& s) { s.work(); });
  // partial: no draw_inputs, the inputs stayed fixed (TimedCallAudit.* covers fresh inputs)
  EXPECT_EQ(r.integrity.verdict(), IntegrityVerdict::partial) << r.integrity.first_failure();
  EXPECT_EQ(r.integrity.find(check::fresh_inputs)->outcome, CheckOutcome::not_run);
  EXPECT_EQ(r.integrity.find(check::output_after_timing)->outcome, CheckOutcome::passed);
  EXPECT_EQ(r.integrity.find(check::output_complete)->outcome, CheckOutcome::passed);
  EXPECT_EQ(r.integrity.find(check::inputs_unchanged)->outcome, CheckOutcome::passed);
  // Host work is synchronous: the device-work checks do not apply and are not recorded.
  EXPECT_EQ(r.integrity.find(check::device_work), nullptr);
  // The fixed count is kept: the verified call is the last of the 12 samples.
  EXPECT_EQ(r.summary.n, 12);
  EXPECT_DOUBLE_EQ(r.value_us, kComputeUs);
}

TEST(CheckedSubject, ALazyCallableFailsAfterTiming) {
  Harness h;
  const Result r = h.measure_with([](Harness& s) {
    if (s.calls++ == 0) {
      s.work();
    } else {
      s.clock.advance_us(kSkipUs);
    }
  });
  EXPECT_EQ(r.integrity.verdict(), IntegrityVerdict::failed);
  EXPECT_EQ(r.integrity.find(check::output_complete)->outcome, CheckOutcome::failed);
  EXPECT_NE(r.integrity.find(check::output_complete)->detail.find("1024 of 1024 elements of 'y'"), std::string::npos)
      << r.integrity.find(check::output_complete)->detail;
  EXPECT_EQ(r.integrity.find(check::output_after_timing)->outcome, CheckOutcome::failed);
  EXPECT_FALSE(r.warnings.empty());
}

TEST(CheckedSubject, DriftAfterSomeCallsIsCaught) {
  Harness h;
  const Result r = h.measure_with([](Harness& s) {
    s.buf.compute(s.calls++ < 5 ? 2.0f : 2.02f);
    s.clock.advance_us(kComputeUs);
  });
  const IntegrityCheck* after = r.integrity.find(check::output_after_timing);
  ASSERT_NE(after, nullptr);
  EXPECT_EQ(after->outcome, CheckOutcome::failed);
  EXPECT_NE(after->detail.find("differs from the untimed call's output"), std::string::npos) << after->detail;
  // Every element is written and finite: only the comparison with the first output sees it.
  EXPECT_EQ(r.integrity.find(check::output_complete)->outcome, CheckOutcome::passed);
}

TEST(CheckedSubject, SkippingOnARepeatedPointerIsCaught) {
  Harness h;
  const void* last = nullptr;
  const Result r = h.measure_with([&](Harness& s) {
    if (s.buf.x.data() == last) {
      s.clock.advance_us(kSkipUs);
      return;
    }
    last = s.buf.x.data();
    s.work();
  });
  EXPECT_EQ(r.integrity.verdict(), IntegrityVerdict::failed);
  EXPECT_EQ(r.integrity.find(check::output_complete)->outcome, CheckOutcome::failed);
}

TEST(CheckedSubject, AnUnwrittenBandOfTheOutputIsFoundByTheFullScan) {
  Harness h;
  const Result r = h.measure_with([](Harness& s) {
    for (std::size_t i = 0; i < kN; ++i) {
      if (i < 300 || i >= 340) s.buf.y[i] = 2.0f * s.buf.x[i];
    }
    s.clock.advance_us(kComputeUs);
  });
  const IntegrityCheck* complete = r.integrity.find(check::output_complete);
  ASSERT_NE(complete, nullptr);
  EXPECT_EQ(complete->outcome, CheckOutcome::failed);
  EXPECT_NE(complete->detail.find("40 of 1024"), std::string::npos) << complete->detail;
}

TEST(CheckedSubject, ChangedInputsAreCaughtAndRestored) {
  Harness h;
  const std::vector<float> original = h.buf.x;
  const Result r = h.measure_with([](Harness& s) {
    s.work();
    s.buf.x[7] += 1.0f;  // scribbles on its input after computing
  });
  const IntegrityCheck* inputs = r.integrity.find(check::inputs_unchanged);
  ASSERT_NE(inputs, nullptr);
  EXPECT_EQ(inputs->outcome, CheckOutcome::failed);
  EXPECT_NE(inputs->detail.find("'x'"), std::string::npos) << inputs->detail;
  EXPECT_NE(inputs->detail.find("restored"), std::string::npos) << inputs->detail;
  EXPECT_EQ(h.buf.x, original);  // the next measurement reads the original inputs
}

// acc += x, in place: acc is read and written by every call.
struct InPlaceHarness {
  ManualClock clock;
  host::HostBackend backend{clock, test_host()};
  std::vector<float> x = std::vector<float>(kN, 0.5f);
  std::vector<float> acc = std::vector<float>(kN);
  std::size_t calls = 0;
  InPlaceHarness() {
    for (std::size_t i = 0; i < kN; ++i) acc[i] = static_cast<float>(i % 13);
  }
  void work() {
    for (std::size_t i = 0; i < kN; ++i) acc[i] += x[i];
    clock.advance_us(kComputeUs);
  }
  Result measure_with(const std::function<void(InPlaceHarness&)>& body) {
    MeasureOptions o;
    o.clock = &clock;
    o.telemetry = false;
    o.buffers.inputs.push_back({"x", x.data(), kN * sizeof(float), DType::fp32});
    o.buffers.in_place.push_back({"acc", acc.data(), kN * sizeof(float), DType::fp32});
    return caliber::measure(backend, [&](const LaunchContext&) { body(*this); }, fixed_host(), o);
  }
};

TEST(CheckedSubject, AnInPlaceUpdateIsVerifiedFromItsOriginalValues) {
  InPlaceHarness h;
  std::vector<float> seen_by_verified;
  const Result r = h.measure_with([&](InPlaceHarness& s) {
    seen_by_verified = s.acc;  // what this call starts from
    s.work();
  });
  // Fourteen calls added x fourteen times to what they found, but each verified call (the
  // untimed one and the last timed one) started from the original values and wrote the same
  // bits: without the restore the last one would differ from the untimed call's result.
  // partial: no draw_inputs, the inputs stayed fixed (TimedCallAudit.* covers fresh inputs)
  EXPECT_EQ(r.integrity.verdict(), IntegrityVerdict::partial) << r.integrity.first_failure();
  EXPECT_EQ(r.integrity.find(check::output_after_timing)->outcome, CheckOutcome::passed);
  for (std::size_t i = 0; i < kN; ++i) ASSERT_EQ(seen_by_verified[i], static_cast<float>(i % 13)) << i;
  // acc changes by design: it is not watched as an input; x is.
  const IntegrityCheck* inputs = r.integrity.find(check::inputs_unchanged);
  ASSERT_NE(inputs, nullptr);
  EXPECT_EQ(inputs->outcome, CheckOutcome::passed) << inputs->detail;
  EXPECT_NE(inputs->detail.find("1 input (4096 bytes)"), std::string::npos) << inputs->detail;
  const IntegrityCheck* complete = r.integrity.find(check::output_complete);
  ASSERT_NE(complete, nullptr);
  EXPECT_EQ(complete->outcome, CheckOutcome::passed);
  EXPECT_NE(complete->detail.find("the 1024 elements updated in place are finite"), std::string::npos)
      << complete->detail;
}

TEST(CheckedSubject, AnInPlaceUpdateThatSkipsItsWorkIsCaught) {
  InPlaceHarness h;
  const Result r = h.measure_with([](InPlaceHarness& s) {
    if (s.calls++ == 0) {
      s.work();
    } else {
      s.clock.advance_us(kSkipUs);
    }
  });
  // The verified call found the original values and left them: not the untimed call's result.
  const IntegrityCheck* after = r.integrity.find(check::output_after_timing);
  ASSERT_NE(after, nullptr);
  EXPECT_EQ(after->outcome, CheckOutcome::failed);
  EXPECT_NE(after->detail.find("output 'acc' differs from the untimed call's output"), std::string::npos)
      << after->detail;
}

TEST(CheckedSubject, AnInPlaceUpdateThatSkipsOnFreshValuesIsSaidToHaveLeftThem) {
  // acc += x, skipped whenever acc starts negative, which only the fresh set does: the verified
  // call on fresh inputs leaves acc as it started, not as the previous call's result.
  InPlaceHarness h;
  const std::vector<float> x0 = h.x, acc0 = h.acc;
  std::vector<float> x1(kN, 0.25f), acc1(kN);
  for (std::size_t i = 0; i < kN; ++i) acc1[i] = -1.0f - static_cast<float>(i % 7);
  Subject s;
  s.call = [&](const LaunchContext&) {
    if (h.acc[0] >= 0) h.work();
    h.clock.advance_us(kComputeUs);
  };
  s.buffers.inputs.push_back({"x", h.x.data(), kN * sizeof(float), DType::fp32});
  s.buffers.in_place.push_back({"acc", h.acc.data(), kN * sizeof(float), DType::fp32});
  s.judge = [&](bool fresh) -> std::string {
    const std::vector<float>& start = fresh ? acc1 : acc0;
    for (std::size_t i = 0; i < kN; ++i) {
      if (h.acc[i] != start[i] + h.x[i]) return "acc != acc0 + x at element " + std::to_string(i);
    }
    return {};
  };
  s.judge_description = "acc == acc0 + x";
  s.load_fresh_inputs = [&] {
    h.x = x1;
    h.acc = acc1;
  };
  s.restore_inputs = [&] {
    h.x = x0;
    h.acc = acc0;
  };
  CheckedSubject checked(h.backend, std::move(s));
  MeasureOptions o;
  o.clock = &h.clock;
  o.telemetry = false;
  const Result r = checked.measure(fixed_host(), o);
  const IntegrityCheck* after = r.integrity.find(check::output_after_timing);
  ASSERT_NE(after, nullptr);
  EXPECT_EQ(after->outcome, CheckOutcome::failed);
  EXPECT_NE(after->detail.find("(a verified call on fresh inputs left its output as it was before the call): acc != "
                               "acc0 + x at element 0"),
            std::string::npos)
      << after->detail;
}

TEST(CheckedSubject, AnInPlaceUpdateIsVerifiedOneCallAtATime) {
  // A pipelined window (or a graph of several calls) would apply the update several times before
  // the check, whose expectation is one update of the original values.
  InPlaceHarness h;
  MeasureOptions o;
  o.clock = &h.clock;
  o.telemetry = false;
  o.buffers.in_place.push_back({"acc", h.acc.data(), kN * sizeof(float), DType::fp32});
  Contract c = fixed_host();
  c.schedule = Schedule::pipelined;
  c.statistic = parse_statistic("mean");  // what a pipelined window can report
  try {
    caliber::measure(h.backend, [&](const LaunchContext&) { h.work(); }, c, o);
    FAIL() << "accepted";
  } catch (const ContractError& e) {
    EXPECT_NE(std::string(e.what()).find("schedule pipelined: a call that updates buffers in place is verified one "
                                         "call at a time"),
              std::string::npos)
        << e.what();
  }
}

TEST(CheckedSubject, AnInPlaceBufferNeedsAnAddressAndOneDeclaration) {
  InPlaceHarness h;
  MeasureOptions o;
  o.clock = &h.clock;
  o.telemetry = false;
  o.buffers.in_place.push_back({"acc", nullptr, 64, DType::fp32});
  try {
    caliber::measure(h.backend, [](const LaunchContext&) {}, fixed_host(), o);
    FAIL() << "accepted";
  } catch (const ContractError& e) {
    EXPECT_NE(std::string(e.what()).find("declared in-place buffer 'acc' has no address"), std::string::npos)
        << e.what();
  }
  // Declared twice, as an input too: it would be watched for the change it makes by design.
  o.buffers.in_place = {{"acc", h.acc.data(), kN * sizeof(float), DType::fp32}};
  o.buffers.inputs = {{"acc_again", h.acc.data() + 8, 16, DType::fp32}};
  try {
    caliber::measure(h.backend, [](const LaunchContext&) {}, fixed_host(), o);
    FAIL() << "accepted";
  } catch (const ContractError& e) {
    EXPECT_NE(std::string(e.what()).find("in-place buffer 'acc' overlaps declared input 'acc_again'"),
              std::string::npos)
        << e.what();
  }
}

TEST(CheckedSubject, UndeclaredBuffersSayTheOutputsWereNotVerified) {
  Harness h;
  const Result r = h.measure_with(
      [](Harness& s) {
        ++s.calls;
        s.work();
      },
      /*declare=*/false);
  EXPECT_EQ(r.integrity.verdict(), IntegrityVerdict::unverified);
  EXPECT_NE(r.integrity.find(check::output_after_timing)->detail.find("no buffers declared"), std::string::npos);
  EXPECT_EQ(h.calls, 2u + 12u);  // nothing to verify on the host: no extra call, warmup and samples only
  EXPECT_EQ(r.summary.n, 12);
}

TEST(CheckedSubject, SkippingTheWorkWhenTheOutputHoldsAResultIsCaughtByTheVerifiedCallsTime) {
  Harness h;
  const Result r = h.measure_with([](Harness& s) {
    if (std::isnan(s.buf.y[0])) {
      s.work();  // only when caliber poisoned the output
    } else {
      s.clock.advance_us(kSkipUs);
    }
  });
  // The outputs are right every time caliber looks...
  EXPECT_EQ(r.integrity.find(check::output_after_timing)->outcome, CheckOutcome::passed);
  // ...but the one timed call on a poisoned output took 100x the others.
  const IntegrityCheck* time = r.integrity.find(check::verified_call_time);
  ASSERT_NE(time, nullptr);
  EXPECT_EQ(time->outcome, CheckOutcome::failed);
  EXPECT_NE(time->detail.find("100x the median"), std::string::npos) << time->detail;
  // Every poisoned call is slow, so the re-timed ones are too: 3 more, each 100 us.
  EXPECT_NE(time->detail.find("and 3 more poisoned calls took 100, 100, 100 us"), std::string::npos) << time->detail;
  EXPECT_EQ(r.summary.n, 12);  // the re-timed calls are not samples
}

TEST(CheckedSubject, OneSlowVerifiedCallIsReTimedNotCondemned) {
  // The host thread was preempted during the verified call, once: 30x the others' time. The
  // re-timed poisoned call takes the usual time, so the check passes and says what it saw.
  Harness h;
  std::size_t poisoned_calls = 0;
  const Result r = h.measure_with([&](Harness& s) {
    const bool poisoned = std::isnan(s.buf.y[0]);
    s.work();
    if (poisoned && ++poisoned_calls == 2) s.clock.advance_us(29 * kComputeUs);  // 1st: the untimed call
  });
  EXPECT_EQ(poisoned_calls, 3u);  // untimed, verified, one re-timing
  // partial: no draw_inputs, the inputs stayed fixed (TimedCallAudit.* covers fresh inputs)
  EXPECT_EQ(r.integrity.verdict(), IntegrityVerdict::partial) << r.integrity.first_failure();
  const IntegrityCheck* time = r.integrity.find(check::verified_call_time);
  ASSERT_NE(time, nullptr);
  EXPECT_EQ(time->outcome, CheckOutcome::passed);
  EXPECT_NE(time->detail.find("took 3000 us once, 30x the other timed calls' median 100 us; re-timed on poisoned "
                              "outputs it took 100 us (re-timing 1 of 3)"),
            std::string::npos)
      << time->detail;
  // The slow reading stays one of the samples: re-timing judges the call, it does not edit data.
  EXPECT_EQ(r.summary.n, 12);
  EXPECT_DOUBLE_EQ(r.summary.max_us, 30 * kComputeUs);
}

TEST(CheckedSubject, AReTimedVerifiedCallIsJudgedAgain) {
  // Slow on the verified call, then wrong on the re-timed one: the re-timing's output counts.
  Harness h;
  std::size_t poisoned_calls = 0;
  const Result r = h.measure_with([&](Harness& s) {
    if (!std::isnan(s.buf.y[0])) {
      s.work();
      return;
    }
    ++poisoned_calls;
    if (poisoned_calls == 3) {
      s.clock.advance_us(kSkipUs);  // leaves the poison
      return;
    }
    s.work();
    if (poisoned_calls == 2) s.clock.advance_us(29 * kComputeUs);
  });
  EXPECT_EQ(r.integrity.verdict(), IntegrityVerdict::failed);
  EXPECT_EQ(r.integrity.find(check::output_after_timing)->outcome, CheckOutcome::failed);
}

TEST(CheckedSubject, ANondeterministicCallableNeedsADeclaredTolerance) {
  auto noisy = [](Harness& s) {
    const float jitter = 1.0f + 1e-6f * static_cast<float>(s.calls++ % 3);
    s.buf.compute(2.0f * jitter);
    s.clock.advance_us(kComputeUs);
  };
  Harness bitwise;
  EXPECT_EQ(bitwise.measure_with(noisy).integrity.verdict(), IntegrityVerdict::failed);

  Harness tolerant;
  MeasureOptions o;
  o.clock = &tolerant.clock;
  o.telemetry = false;
  o.buffers = tolerant.buf.declared();
  o.output_rule = {OutputRule::Kind::tolerance, 1e-5, 0.0};
  const Result r = caliber::measure(tolerant.backend, [&](const LaunchContext&) { noisy(tolerant); }, fixed_host(), o);
  // partial: no draw_inputs, the inputs stayed fixed (TimedCallAudit.* covers fresh inputs)
  EXPECT_EQ(r.integrity.verdict(), IntegrityVerdict::partial) << r.integrity.first_failure();
  o.buffers.outputs[0].dtype.reset();  // a tolerance needs to know the elements
  EXPECT_THROW(caliber::measure(tolerant.backend, [](const LaunchContext&) {}, fixed_host(), o), ContractError);
}

// y = 2x with a second, fresh input set for the verified call: the output_after_timing check of a
// call `body` (which computes into h.buf.y and advances the clock), its x restored afterwards.
IntegrityCheck fresh_input_check(Harness& h, const std::vector<float>& fresh, const std::function<void()>& body) {
  const std::vector<float> original = h.buf.x;
  Subject s;
  s.call = [&](const LaunchContext&) { body(); };
  s.buffers = h.buf.declared();
  s.judge = [&](bool) -> std::string {
    for (std::size_t i = 0; i < kN; ++i) {
      if (h.buf.y[i] != 2.0f * h.buf.x[i]) return "y != 2x at element " + std::to_string(i);
    }
    return {};
  };
  s.judge_description = "y == 2x";
  s.load_fresh_inputs = [&] { h.buf.x = fresh; };
  s.restore_inputs = [&] { h.buf.x = original; };
  CheckedSubject checked(h.backend, std::move(s));
  MeasureOptions o;
  o.clock = &h.clock;
  o.telemetry = false;
  const Result r = checked.measure(fixed_host(), o);
  EXPECT_EQ(h.buf.x, original);  // restored after the verified call
  const IntegrityCheck* after = r.integrity.find(check::output_after_timing);
  return after ? *after : IntegrityCheck{};
}

TEST(CheckedSubject, FreshInputsCatchACallableThatRemembersItsResultByAddress) {
  Harness h;
  std::vector<float> fresh(kN);
  for (std::size_t i = 0; i < kN; ++i) fresh[i] = -h.buf.x[i] + 0.25f;
  std::vector<float> memo;
  const void* last = nullptr;
  const IntegrityCheck after = fresh_input_check(h, fresh, [&] {
    if (h.buf.x.data() == last && !memo.empty()) {
      std::copy(memo.begin(), memo.end(), h.buf.y.begin());  // right for the inputs it saw before
    } else {
      h.buf.compute();
      memo = h.buf.y;
      last = h.buf.x.data();
    }
    h.clock.advance_us(kComputeUs);
  });
  EXPECT_EQ(after.outcome, CheckOutcome::failed);
  EXPECT_NE(after.detail.find("correct before timing, wrong after the timed calls (a verified call on fresh inputs "
                              "left its output bit for bit the previous call's result: a result computed for other "
                              "inputs): y != 2x at element 0"),
            std::string::npos)
      << after.detail;
}

TEST(CheckedSubject, ACallWrongOnlyForTheFreshValuesIsNotCalledARememberedResult) {
  // Honest about running, inaccurate for negative inputs: the fresh set has them, the original not.
  Harness h;
  std::vector<float> fresh(kN);
  for (std::size_t i = 0; i < kN; ++i) fresh[i] = -1.0f - static_cast<float>(i);
  const IntegrityCheck after = fresh_input_check(h, fresh, [&] {
    for (std::size_t i = 0; i < kN; ++i) h.buf.y[i] = h.buf.x[i] < 0 ? 2.0f * h.buf.x[i] + 1.0f : 2.0f * h.buf.x[i];
    h.clock.advance_us(kComputeUs);
  });
  EXPECT_EQ(after.outcome, CheckOutcome::failed);
  EXPECT_NE(after.detail.find("correct before timing, wrong after the timed calls (a verified call on fresh inputs: "
                              "its output changed during the call and is wrong for these input values): y != 2x "
                              "at element 0"),
            std::string::npos)
      << after.detail;
  EXPECT_EQ(after.detail.find("previous call's result"), std::string::npos) << after.detail;
}

// An asynchronous device whose census is scripted: what a tracer would have seen.
class ScriptedDevice : public host::HostBackend {
 public:
  ScriptedDevice(Clock& clock, DeviceWorkCensus census) : HostBackend(clock, cuda_like()), census_(std::move(census)) {}
  BackendKind kind() const override { return BackendKind::cuda; }
  bool asynchronous() const override { return true; }
  bool observes_device_work() const override { return census_.observed; }
  DeviceWorkCensus census_call(const std::function<void()>& call) override {
    call();
    ++censuses;
    return census_;
  }
  std::unique_ptr<SampleTimer> make_timer(Instrument) override { return HostBackend::make_timer(Instrument::wallclock); }
  bool supports_graphs() const override { return true; }
  // A graph of the recorded calls that reports `kernels_per_captured_call` kernel nodes per call.
  std::unique_ptr<GraphExec> capture_graph(const std::function<void()>& record) override {
    std::size_t before = calls;
    record();
    GraphNodeCounts counts;
    counts.kernels = (calls - before) * kernels_per_captured_call;
    return std::make_unique<Graph>(record, counts);
  }
  std::size_t calls = 0;
  std::size_t censuses = 0;
  std::size_t kernels_per_captured_call = 1;

 private:
  struct Graph : GraphExec {
    Graph(std::function<void()> r, GraphNodeCounts c) : replay(std::move(r)), counts(c) {}
    void launch() override { replay(); }
    std::optional<GraphNodeCounts> node_counts() const override { return counts; }
    std::function<void()> replay;
    GraphNodeCounts counts;
  };
  static DeviceInfo cuda_like() {
    DeviceInfo d = test_host();
    d.backend = BackendKind::cuda;
    return d;
  }
  DeviceWorkCensus census_;
};

DeviceWorkCensus census(std::size_t kernels, std::optional<bool> ordered, std::size_t other_threads = 0) {
  DeviceWorkCensus c;
  c.observed = true;
  c.kernels = kernels;
  c.ordered = ordered;
  c.other_threads = other_threads;
  c.ordering_detail = ordered == false ? "work forked from the measured stream is not joined back" : "scripted";
  return c;
}

Contract cuda_fixed(Instrument i, Schedule s) {
  Contract c = default_contract(BackendKind::cuda);
  c.instrument = i;
  c.schedule = s;
  c.cache = CachePolicy::warm;
  c.warmup = 2;
  c.iterations.mode = IterationRule::Mode::fixed;
  c.iterations.count = 6;
  c.graph_calls = 4;
  return c;
}

Result measure_on(ScriptedDevice& d, ManualClock& clock, const Contract& c) {
  MeasureOptions o;
  o.clock = &clock;
  o.telemetry = false;
  return caliber::measure(d, [&](const LaunchContext&) { ++d.calls; clock.advance_us(5); }, c, o);
}

TEST(CheckedSubjectOnADevice, ACallThatLaunchesNothingCannotBeTimed) {
  ManualClock clock;
  ScriptedDevice d(clock, census(0, true));
  try {
    measure_on(d, clock, cuda_fixed(Instrument::wallclock, Schedule::isolated));
    FAIL() << "a call with no device work was timed";
  } catch (const IntegrityError& e) {
    EXPECT_NE(std::string(e.what()).find("launched no device work"), std::string::npos) << e.what();
  }
}

TEST(CheckedSubjectOnADevice, WorkOffTheMeasuredStreamIsRefusedForEventsOnly) {
  ManualClock clock;
  ScriptedDevice d(clock, census(2, false));
  EXPECT_THROW(measure_on(d, clock, cuda_fixed(Instrument::event, Schedule::per_iter)), IntegrityError);
  // A full-device synchronize waits for every stream: the wall clock still sees the work.
  const Result r = measure_on(d, clock, cuda_fixed(Instrument::wallclock, Schedule::isolated));
  EXPECT_EQ(r.integrity.find(check::work_on_stream)->outcome, CheckOutcome::passed);
  EXPECT_EQ(r.integrity.find(check::device_work)->outcome, CheckOutcome::passed);
}

TEST(CheckedSubjectOnADevice, WorkFromAnotherHostThreadIsRefusedUnderEveryInstrument) {
  ManualClock clock;
  ScriptedDevice d(clock, census(1, false, 3));
  for (Instrument i : {Instrument::event, Instrument::wallclock}) {
    try {
      measure_on(d, clock, cuda_fixed(i, Schedule::isolated));
      FAIL() << "work from another thread was timed under " << to_string(i);
    } catch (const IntegrityError& e) {
      EXPECT_NE(std::string(e.what()).find("another host thread"), std::string::npos) << e.what();
    }
  }
}

TEST(CheckedSubjectOnADevice, AnEmptyOrIncompleteGraphIsRefused) {
  ManualClock clock;
  ScriptedDevice empty(clock, census(1, true));
  empty.kernels_per_captured_call = 0;
  try {
    measure_on(empty, clock, cuda_fixed(Instrument::event, Schedule::graph));
    FAIL() << "an empty graph was timed";
  } catch (const IntegrityError& e) {
    EXPECT_NE(std::string(e.what()).find("holds no device work"), std::string::npos) << e.what();
  }
  ScriptedDevice short_graph(clock, census(3, true));  // the call issues 3 kernels, its capture 1
  EXPECT_THROW(measure_on(short_graph, clock, cuda_fixed(Instrument::event, Schedule::graph)), IntegrityError);
  EXPECT_EQ(short_graph.censuses, 2u);  // a steady call was looked at again before refusing

  ScriptedDevice complete(clock, census(1, true));
  const Result r = measure_on(complete, clock, cuda_fixed(Instrument::event, Schedule::graph));
  EXPECT_EQ(r.integrity.find(check::graph_complete)->outcome, CheckOutcome::passed);
  EXPECT_EQ(r.integrity.find(check::work_after_timing)->outcome, CheckOutcome::passed);
}

TEST(CheckedSubjectOnADevice, WithoutATracerTheWorkChecksDidNotRun) {
  ManualClock clock;
  DeviceWorkCensus unobserved;
  unobserved.why_not_observed = "CUPTI is not available: test";
  ScriptedDevice d(clock, unobserved);
  Buffers buf;
  MeasureOptions o;
  o.clock = &clock;
  o.telemetry = false;
  o.buffers = buf.declared();
  const Result r = caliber::measure(
      d, [&](const LaunchContext&) { buf.compute(); clock.advance_us(5); },
      cuda_fixed(Instrument::event, Schedule::per_iter), o);
  EXPECT_EQ(r.integrity.find(check::work_on_stream)->outcome, CheckOutcome::not_run);
  EXPECT_EQ(r.integrity.find(check::work_on_stream)->detail, "CUPTI is not available: test");
  EXPECT_EQ(r.integrity.verdict(), IntegrityVerdict::partial);
}

}  // namespace
}  // namespace caliber
