#include "backends/host_clock_timer.h"

namespace caliber {

void HostClockTimer::reset(std::size_t count) {
  start_us_.assign(count, 0.0);
  stop_us_.assign(count, 0.0);
}

void HostClockTimer::start(std::size_t i) { start_us_.at(i) = clock_.now_us(); }

void HostClockTimer::stop(std::size_t i) { stop_us_.at(i) = clock_.now_us(); }

std::vector<double> HostClockTimer::collect_us(std::size_t count) {
  std::vector<double> d(count);
  for (std::size_t i = 0; i < count; ++i) d[i] = stop_us_.at(i) - start_us_.at(i);
  return d;
}

}  // namespace caliber
