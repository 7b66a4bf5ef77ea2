// The host clock, behind an interface so timing-dependent logic is tested with injected time.
#pragma once

namespace caliber {

class Clock {
 public:
  virtual ~Clock() = default;
  // Monotonic time in microseconds since an arbitrary origin.
  virtual double now_us() = 0;
};

// std::chrono::steady_clock.
class SteadyClock final : public Clock {
 public:
  double now_us() override;
};

// The process-wide steady clock.
Clock& steady_clock();

// A clock that moves only when told to. For tests.
class ManualClock final : public Clock {
 public:
  explicit ManualClock(double start_us = 0.0) : now_us_(start_us) {}
  double now_us() override { return now_us_; }
  void advance_us(double delta_us) { now_us_ += delta_us; }

 private:
  double now_us_;
};

}  // namespace caliber
