#include "backends/cuda/event_timer.cuh"

#include <vector>

#include "backends/cuda/cuda_check.cuh"
#include "backends/cuda/str_cat.h"
#include "caliber/result.h"

namespace caliber::cuda {
namespace {

class EventTimer final : public SampleTimer {
 public:
  EventTimer(cudaStream_t stream, LaunchGate* gate) : stream_(stream), gate_(gate) {
    if (gate_) gate_->reset_counts();
  }
  ~EventTimer() override {
    for (cudaEvent_t e : events_) cudaEventDestroy(e);
    for (cudaEvent_t e : marks_) cudaEventDestroy(e);
  }
  Instrument instrument() const override { return Instrument::event; }
  void reset(std::size_t count) override {
    while (events_.size() < 2 * count) {
      cudaEvent_t e{};
      CALIBER_CUDA_CHECK(cudaEventCreate(&e));
      events_.push_back(e);
    }
  }
  void start(std::size_t i) override {
    if (gate_) gate_->hold(stream_);
    CALIBER_CUDA_CHECK(cudaEventRecord(events_.at(2 * i), stream_));
  }
  void stop(std::size_t i) override {
    CALIBER_CUDA_CHECK(cudaEventRecord(events_.at(2 * i + 1), stream_));
    if (gate_) gate_->release();
  }
  bool reads_host_clock() const override { return false; }
  // External event-record nodes in the graph being captured, around each call.
  bool marks_calls() const override { return true; }
  void mark_call(std::size_t call, bool after) override {
    while (marks_.size() < 2 * call + 2) {
      cudaEvent_t e{};
      CALIBER_CUDA_CHECK(cudaEventCreate(&e));
      marks_.push_back(e);
    }
    CALIBER_CUDA_CHECK(cudaEventRecordWithFlags(marks_[2 * call + (after ? 1 : 0)], stream_, cudaEventRecordExternal));
  }
  void read_marked_replay(std::size_t calls) override {
    std::vector<double> us(calls);
    for (std::size_t j = 0; j < calls; ++j) {
      float ms = 0;
      CALIBER_CUDA_CHECK(cudaEventElapsedTime(&ms, marks_.at(2 * j), marks_.at(2 * j + 1)));
      us[j] = static_cast<double>(ms) * 1000.0;
    }
    within_.call_us.push_back(std::move(us));
    within_.told_apart_by = "events around each call of the replays at the audits";
  }
  CallsWithinSamples calls_within_samples() const override { return within_; }
  std::vector<double> collect_us(std::size_t count) override {
    std::vector<double> d(count);
    for (std::size_t i = 0; i < count; ++i) {
      float ms = 0;
      CALIBER_CUDA_CHECK(cudaEventElapsedTime(&ms, events_.at(2 * i), events_.at(2 * i + 1)));
      d[i] = static_cast<double>(ms) * 1000.0;
    }
    return d;
  }
  void annotate(Result& r) const override {
    if (!gate_ || gate_->held() == 0) return;
    const std::size_t expired = gate_->expired();
    r.notes.push_back(str_cat("events: a launch gate held the stream before each of the ", gate_->held(),
                              " samples until the call and its stop event were enqueued, so no "
                              "window holds the host's launch latency"));
    if (expired > 0) {
      r.warnings.push_back(str_cat(expired, " of ", gate_->held(), " launch gates opened at their ",
                                   LaunchGate::kTimeoutNs / 1000000,
                                   " ms timeout (the call waits for the device, or takes that long to enqueue): "
                                   "those samples include launch latency"));
    }
  }

 private:
  cudaStream_t stream_;
  LaunchGate* gate_;
  std::vector<cudaEvent_t> events_;
  std::vector<cudaEvent_t> marks_;  // before and after each call of a marked graph
  CallsWithinSamples within_;
};

}  // namespace

std::unique_ptr<SampleTimer> make_event_timer(cudaStream_t stream, LaunchGate* gate) {
  return std::make_unique<EventTimer>(stream, gate);
}

}  // namespace caliber::cuda
