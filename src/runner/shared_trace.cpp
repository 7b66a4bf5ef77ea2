#include "runner/shared_trace.h"

#include "caliber/errors.h"
#include "runner/wall_clock.h"

namespace caliber::runner {

bool SharedTrace::hold() {
  if (trace_ || refused_) return on();
  try {
    trace_ = backend_.keep_activity_tracing_on();
  } catch (const ContractError&) {
    refused_ = true;  // each untimed call says why it was not traced
  }
  return on();
}

double SharedTrace::end() {
  const double from = now_ms();
  trace_.reset();
  return now_ms() - from;
}

}  // namespace caliber::runner
