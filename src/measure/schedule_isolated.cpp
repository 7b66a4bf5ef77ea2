// isolated: for each call, preparation and a full-device sync, then the window around the call
// alone, then a sync: one sample per call, nothing else on the device while it runs.
#include "measure/schedule.h"

namespace caliber::measurement {
namespace {

class Isolated final : public ScheduleUnit {
 public:
  Isolated(CallSite& site, SampleTimer& timer) : site_(site), timer_(timer) {}

  std::vector<double> run(std::size_t count, bool /*verified*/) override {
    Backend& backend = site_.backend();
    Clock& clock = site_.clock();
    timer_.reset(count);
    for (std::size_t i = 0; i < count; ++i) {
      site_.prepare();
      backend.synchronize_device();
      const LaunchContext ctx = site_.next_context();
      const double begin_us = clock.now_us();
      timer_.start(i);
      site_.call(ctx);
      stop_window(site_, timer_, i);
      backend.synchronize_device();
      site_.record_window(begin_us, clock.now_us());
    }
    site_.count_timed_calls(count);
    return collect_samples(site_, timer_, count);
  }

 private:
  CallSite& site_;
  SampleTimer& timer_;
};

}  // namespace

std::unique_ptr<ScheduleUnit> isolated_schedule(CallSite& site, SampleTimer& timer) {
  return std::make_unique<Isolated>(site, timer);
}

}  // namespace caliber::measurement
