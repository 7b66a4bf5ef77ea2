// A sample timer on a host clock (instrument wallclock): the host backend's only timer, and the
// cuda backend's wallclock instrument. Host-only: no device type here.
#pragma once

#include <cstddef>
#include <vector>

#include "caliber/backend.h"
#include "caliber/clock.h"

namespace caliber {

// Reads `clock` at start() and stop(). On an asynchronous device the engine drains the device
// before stop(), so a window holds launch + run + sync (reads_host_clock()).
class HostClockTimer final : public SampleTimer {
 public:
  explicit HostClockTimer(Clock& clock) : clock_(clock) {}
  Instrument instrument() const override { return Instrument::wallclock; }
  void reset(std::size_t count) override;
  void start(std::size_t i) override;
  void stop(std::size_t i) override;
  bool reads_host_clock() const override { return true; }
  // stop - start of each sample, in microseconds.
  std::vector<double> collect_us(std::size_t count) override;

 private:
  Clock& clock_;
  std::vector<double> start_us_, stop_us_;  // microseconds on `clock_`
};

}  // namespace caliber
