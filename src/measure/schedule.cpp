#include "measure/schedule.h"

#include <stdexcept>
#include <utility>

namespace caliber::measurement {

std::unique_ptr<ScheduleUnit> make_schedule(CallSite& site, SampleTimer* timer, GraphCaptured on_graph_captured,
                                            PoisonBetweenCalls poison, bool audited) {
  if (site.contract().quantity == Quantity::host_dispatch) return host_dispatch_schedule(site);
  if (!timer) throw std::logic_error("measure: a device-time schedule without a timer");
  switch (site.contract().schedule) {
    case Schedule::isolated:
      return isolated_schedule(site, *timer);
    case Schedule::per_iter:
      return per_iter_schedule(site, *timer);
    case Schedule::pipelined:
      return pipelined_schedule(site, *timer);
    case Schedule::graph:
      return graph_schedule(site, *timer, std::move(on_graph_captured), std::move(poison), audited);
  }
  throw std::logic_error("measure: unknown schedule");
}

void stop_window(CallSite& site, SampleTimer& timer, std::size_t sample) {
  if (timer.reads_host_clock()) site.backend().synchronize_device();
  timer.stop(sample);
}

std::vector<double> collect_samples(CallSite& site, SampleTimer& timer, std::size_t count) {
  site.backend().check_errors();
  return timer.collect_us(count);
}

}  // namespace caliber::measurement
