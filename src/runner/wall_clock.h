// The clock of a cell's phases and wall time (rows' cell_phases_ms, cell_wall_time_ms).
#pragma once

#include <chrono>

namespace caliber::runner {

// Milliseconds on the steady clock, from an arbitrary origin.
inline double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace caliber::runner
