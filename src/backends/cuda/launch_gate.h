// The launch gate of an event sample under isolated, and under per_iter when caliber draws fresh
// inputs between the calls (docs/contract.md, Schedules): a one-thread kernel
// that holds the stream until the host has enqueued the sample's start event, the call and the
// stop event, then lets them run back to back. Without it, on a device the schedule left idle,
// the start event completes the moment it is recorded and the window holds the host's launch
// latency (several microseconds per call) as well as the call.
#pragma once

#include <cstddef>
#include <cstdint>

namespace caliber::cuda {

class LaunchGate {
 public:
  // How long a gate waits for its release before it lets the stream run anyway: a call that
  // synchronizes with the device, or takes this long to enqueue, cannot be gated.
  static constexpr std::uint64_t kTimeoutNs = 50'000'000;  // 50 ms

  LaunchGate();
  ~LaunchGate();
  LaunchGate(const LaunchGate&) = delete;
  LaunchGate& operator=(const LaunchGate&) = delete;

  // Enqueues a closed gate on `stream` (a cudaStream_t). The previous gate must have ended.
  void hold(void* stream);
  // Opens the gate enqueued last.
  void release();
  // Since the last call: gates held, and gates that timed out before their release (read once
  // the stream has drained).
  std::size_t held() const { return held_; }
  std::size_t expired();
  void reset_counts();

 private:
  volatile int* flags_ = nullptr;  // [0] release, [1] expired count; host-mapped
  int* device_flags_ = nullptr;
  std::size_t held_ = 0;
};

}  // namespace caliber::cuda
