// The measured call as every schedule sees it: its launch contexts (call index; the input copy
// under cache rotate), what runs before a call outside every window (the options' preparation,
// the cold flush), and what the timed batches leave besides their durations: each sample's host
// window and the number of calls timed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "caliber/backend.h"
#include "caliber/clock.h"
#include "caliber/contract.h"
#include "measure/cache_policy.h"

namespace caliber::measurement {

// When a sample may have run, on the measurement's host clock (microseconds): from just before
// its window opened until the synchronization that closed it returned.
struct HostWindow {
  double begin_us = 0;
  double end_us = 0;
};

class CallSite {
 public:
  // Every argument must outlive the call site. `prepare` and `before_call` may be empty.
  CallSite(Backend& backend, const Callable& call, const Contract& contract, const std::function<void()>& prepare,
           const std::function<void()>& before_call, Clock& clock);

  Backend& backend() { return backend_; }
  const Contract& contract() const { return contract_; }
  Clock& clock() { return clock_; }
  InputRotation& rotation() { return rotation_; }

  // Before a call, outside every window: the options' preparation, the integrity layer's
  // before-call hook (fresh inputs), then the cold flush.
  void prepare();
  // Before a graph replay or a pipelined window: the before-call hook only.
  void refresh() {
    if (before_call_ && refreshing_) before_call_();
  }
  // Off while a verified sample runs (its inputs are the integrity layer's own).
  void set_refreshing(bool on) { refreshing_ = on; }
  LaunchContext next_context();
  void call(const LaunchContext& context) { call_(context); }

  void record_window(double begin_us, double end_us) { windows_.push_back({begin_us, end_us}); }
  // Without a sync per call, a sample's work may run any time until the batch's sync returns:
  // closes one window per begin at the clock's time now.
  void close_windows(const std::vector<double>& begins_us);
  void count_timed_calls(std::uint64_t calls) { timed_calls_ += calls; }
  const std::vector<HostWindow>& windows() const { return windows_; }
  std::uint64_t timed_calls() const { return timed_calls_; }

 private:
  Backend& backend_;
  const Callable& call_;
  const Contract& contract_;
  const std::function<void()>& prepare_;
  const std::function<void()>& before_call_;
  Clock& clock_;
  InputRotation rotation_;
  bool refreshing_ = true;
  std::size_t call_index_ = 0;
  std::vector<HostWindow> windows_;
  std::uint64_t timed_calls_ = 0;
};

}  // namespace caliber::measurement
