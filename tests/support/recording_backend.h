// A Backend test double that records every operation in order and moves a ManualClock by a
// fixed amount per operation, so tests can prove what is inside each timed window.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "caliber/backend.h"
#include "caliber/clock.h"

namespace caliber::testing_support {

struct Costs {
  double call_us = 5;      // the measured call (set by the test's callable, see advance_call)
  double flush_us = 1000;  // a cache flush
  double sync_us = 3;      // a device synchronize
};

class RecordingBackend : public Backend {
 public:
  explicit RecordingBackend(BackendKind kind = BackendKind::cuda, Costs costs = {})
      : kind_(kind), costs_(costs) {
    device_.backend = kind;
    device_.name = "recording device";
    device_.arch = "test";
    device_.llc_bytes = 1 << 20;
  }

  BackendKind kind() const override { return kind_; }
  const DeviceInfo& device() const override { return device_; }
  void* stream() override { return &stream_token_; }
  void synchronize_device() override {
    log("sync");
    clock.advance_us(costs_.sync_us);
  }
  void flush_cache() override {
    if (capturing_) {
      log("capture:flush");
      captured_.back()->ops.push_back([this] {
        log("replay:flush");
        clock.advance_us(costs_.flush_us);
      });
      return;
    }
    log("flush");
    clock.advance_us(costs_.flush_us);
  }
  std::uint64_t flush_bytes() const override { return 2 * device_.llc_bytes; }

  std::unique_ptr<SampleTimer> make_timer(Instrument instrument) override;
  // Records the contract each timer was made for (a real backend's timer may depend on all of it).
  std::unique_ptr<SampleTimer> make_timer_for(const Contract& contract) override {
    timer_contracts.push_back(contract);
    return make_timer(contract.instrument);
  }
  std::vector<Contract> timer_contracts;
  // What its timers report of the calls inside their samples (a tracer's view, given by the test).
  CallsWithinSamples calls_within_samples;
  bool supports_graphs() const override { return kind_ == BackendKind::cuda; }
  // Telemetry: the test's reader when set, else "none" like a backend without telemetry.
  TelemetryReader* telemetry(std::string* why_unavailable) override {
    if (!telemetry_reader && why_unavailable) *why_unavailable = "recording backend: no telemetry";
    return telemetry_reader;
  }
  TelemetryReader* telemetry_reader = nullptr;
  std::unique_ptr<GraphExec> capture_graph(const std::function<void()>& record) override;

  // The measured callable calls this: logs "call" (or "capture:call" while capturing) and moves
  // the clock by call_us unless capturing (captured work runs at replay).
  void run_call(const LaunchContext& ctx) {
    calls.push_back(ctx);
    if (capturing_) {
      log("capture:call");
      captured_.back()->ops.push_back([this] {
        log("replay:call");
        clock.advance_us(costs_.call_us);
      });
      return;
    }
    log("call");
    clock.advance_us(costs_.call_us);
  }

  void log(const std::string& what) { events.push_back(what); }

  // Marks between captured calls (an event timer's): when set, its timers mark calls; a mark
  // captured as `k` records the clock into marks[k] when replayed.
  bool event_marks = false;
  std::vector<double> marks;
  void mark(std::size_t k) {
    log("capture:mark" + std::to_string(k));
    captured_.back()->ops.push_back([this, k] {
      if (marks.size() <= k) marks.resize(k + 1, -1);
      marks[k] = clock.now_us();
    });
  }

  ManualClock clock;
  std::vector<std::string> events;
  std::vector<LaunchContext> calls;

 private:
  struct Recorded {
    std::vector<std::function<void()>> ops;
  };
  friend class RecordingGraph;
  BackendKind kind_;
  Costs costs_;
  DeviceInfo device_;
  int stream_token_ = 0;
  bool capturing_ = false;
  std::vector<std::shared_ptr<Recorded>> captured_;
};

class RecordingTimer final : public SampleTimer {
 public:
  RecordingTimer(RecordingBackend& b, Instrument i, bool host_clock)
      : backend_(b), instrument_(i), host_clock_(host_clock) {}
  Instrument instrument() const override { return instrument_; }
  void reset(std::size_t count) override {
    start_.assign(count, -1);
    stop_.assign(count, -1);
  }
  void start(std::size_t i) override {
    backend_.log("start" + std::to_string(i));
    start_.at(i) = backend_.clock.now_us();
  }
  void stop(std::size_t i) override {
    backend_.log("stop" + std::to_string(i));
    stop_.at(i) = backend_.clock.now_us();
  }
  bool reads_host_clock() const override { return host_clock_; }
  CallsWithinSamples calls_within_samples() const override {
    return backend_.event_marks ? marked_ : backend_.calls_within_samples;
  }
  bool marks_calls() const override { return backend_.event_marks; }
  void mark_call(std::size_t call, bool after) override { backend_.mark(2 * call + (after ? 1 : 0)); }
  void read_marked_replay(std::size_t calls) override {
    std::vector<double> us;
    for (std::size_t j = 0; j < calls; ++j) us.push_back(backend_.marks.at(2 * j + 1) - backend_.marks.at(2 * j));
    marked_.call_us.push_back(std::move(us));
  }
  std::vector<double> collect_us(std::size_t count) override {
    std::vector<double> d;
    for (std::size_t i = 0; i < count; ++i) d.push_back(stop_.at(i) - start_.at(i));
    return d;
  }

 private:
  RecordingBackend& backend_;
  Instrument instrument_;
  bool host_clock_;
  std::vector<double> start_, stop_;
  CallsWithinSamples marked_;
};

class RecordingGraph final : public GraphExec {
 public:
  RecordingGraph(RecordingBackend& b, std::shared_ptr<RecordingBackend::Recorded> r)
      : backend_(b), recorded_(std::move(r)) {}
  void launch() override {
    backend_.log("graph_launch");
    for (auto& op : recorded_->ops) op();
  }

 private:
  RecordingBackend& backend_;
  std::shared_ptr<RecordingBackend::Recorded> recorded_;
};

inline std::unique_ptr<SampleTimer> RecordingBackend::make_timer(Instrument instrument) {
  // Events are stream-ordered device marks: they see device time, not host time. In this double
  // both read the manual clock, which only moves for device work (call, flush) and syncs.
  return std::make_unique<RecordingTimer>(*this, instrument, instrument == Instrument::wallclock);
}

inline std::unique_ptr<GraphExec> RecordingBackend::capture_graph(const std::function<void()>& record) {
  log("begin_capture");
  captured_.push_back(std::make_shared<Recorded>());
  capturing_ = true;
  record();
  capturing_ = false;
  log("end_capture");
  return std::make_unique<RecordingGraph>(*this, captured_.back());
}

}  // namespace caliber::testing_support
