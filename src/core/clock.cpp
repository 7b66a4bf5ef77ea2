#include "caliber/clock.h"

#include <chrono>

namespace caliber {

double SteadyClock::now_us() {
  using namespace std::chrono;
  return duration<double, std::micro>(steady_clock::now().time_since_epoch()).count();
}

Clock& steady_clock() {
  static SteadyClock clock;
  return clock;
}

}  // namespace caliber
