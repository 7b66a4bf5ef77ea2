#include "measure/call_site.h"

namespace caliber::measurement {

CallSite::CallSite(Backend& backend, const Callable& call, const Contract& contract,
                   const std::function<void()>& prepare, const std::function<void()>& before_call, Clock& clock)
    : backend_(backend), call_(call), contract_(contract), prepare_(prepare), before_call_(before_call), clock_(clock) {}

void CallSite::prepare() {
  if (prepare_) prepare_();
  refresh();
  if (flushes_before_each_call(contract_)) backend_.flush_cache();
}

LaunchContext CallSite::next_context() {
  LaunchContext ctx;
  ctx.stream = backend_.stream();
  ctx.call_index = call_index_++;
  ctx.rotation = rotation_.next();
  return ctx;
}

void CallSite::close_windows(const std::vector<double>& begins_us) {
  const double end_us = clock_.now_us();
  for (double b : begins_us) windows_.push_back({b, end_us});
}

}  // namespace caliber::measurement
