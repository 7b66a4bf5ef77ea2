// A background thread that reads device telemetry at a fixed period while a measurement runs.
// The reader, the clock and the pacing are injected, so tests drive it without sleeping.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "caliber/clock.h"
#include "caliber/telemetry.h"

namespace caliber {

// Real time: readings on a fixed grid (start + k x period); a late reading does not shift the grid.
class RealTimePacer final : public TelemetryPacer {
 public:
  bool wait(double period_ms) override;
  void interrupt() override;

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  bool interrupted_ = false;
  bool started_ = false;
  std::chrono::steady_clock::time_point next_;
};

class TelemetrySampler {
 public:
  // `pacer` defaults to a RealTimePacer owned by the sampler.
  TelemetrySampler(TelemetryReader& reader, Clock& clock, double period_ms,
                   TelemetryPacer* pacer = nullptr);
  ~TelemetrySampler();  // stops the thread if still running
  TelemetrySampler(const TelemetrySampler&) = delete;
  TelemetrySampler& operator=(const TelemetrySampler&) = delete;

  // Takes the first reading now (timestamp 0) and starts the background thread.
  void start();
  // Stops the thread, takes a last reading, and returns every reading in time order.
  std::vector<TelemetrySample> stop();

  double origin_us() const { return origin_us_; }  // clock time of timestamp 0
  double period_ms() const { return period_ms_; }
  // Why reading stopped early (the reader threw), or empty.
  const std::string& error() const { return error_; }

 private:
  void read_one();  // appends one reading; records the first failure in error_
  void loop();

  TelemetryReader& reader_;
  Clock& clock_;
  double period_ms_;
  RealTimePacer own_pacer_;
  TelemetryPacer& pacer_;
  double origin_us_ = 0;
  std::mutex mutex_;
  std::vector<TelemetrySample> readings_;
  std::string error_;
  std::thread thread_;
};

}  // namespace caliber
