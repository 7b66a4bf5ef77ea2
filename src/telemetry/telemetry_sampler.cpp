#include "telemetry/telemetry_sampler.h"

#include <chrono>

namespace caliber {

bool RealTimePacer::wait(double period_ms) {
  const auto period = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::duration<double, std::milli>(period_ms));
  std::unique_lock lock(mutex_);
  const auto now = std::chrono::steady_clock::now();
  if (!started_) {
    next_ = now;
    started_ = true;
  }
  next_ += period;
  if (next_ < now) next_ = now + period;  // fell behind (a slow reading): skip, keep the period
  cv_.wait_until(lock, next_, [this] { return interrupted_; });
  return !interrupted_;
}

void RealTimePacer::interrupt() {
  {
    std::lock_guard lock(mutex_);
    interrupted_ = true;
  }
  cv_.notify_all();
}

TelemetrySampler::TelemetrySampler(TelemetryReader& reader, Clock& clock, double period_ms,
                                   TelemetryPacer* pacer)
    : reader_(reader), clock_(clock), period_ms_(period_ms), pacer_(pacer ? *pacer : own_pacer_) {}

TelemetrySampler::~TelemetrySampler() {
  if (thread_.joinable()) {
    pacer_.interrupt();
    thread_.join();
  }
}

void TelemetrySampler::read_one() {
  TelemetrySample s;
  try {
    s = reader_.read();
  } catch (const std::exception& e) {
    std::lock_guard lock(mutex_);
    if (error_.empty()) error_ = e.what();
    return;
  }
  s.timestamp_ms = (clock_.now_us() - origin_us_) / 1000.0;
  std::lock_guard lock(mutex_);
  readings_.push_back(s);
}

void TelemetrySampler::loop() {
  while (pacer_.wait(period_ms_)) {
    read_one();
    std::lock_guard lock(mutex_);
    if (!error_.empty()) return;
  }
}

void TelemetrySampler::start() {
  origin_us_ = clock_.now_us();
  read_one();
  thread_ = std::thread([this] { loop(); });
}

std::vector<TelemetrySample> TelemetrySampler::stop() {
  if (thread_.joinable()) {
    pacer_.interrupt();
    thread_.join();
  }
  if (error_.empty()) read_one();
  return readings_;
}

}  // namespace caliber
