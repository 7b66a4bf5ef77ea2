// per_iter: a window around each call, no sync between calls (the next call's preparation and
// flush run outside the windows, but the device may still be busy with the previous call), one
// sync at the end of the batch.
#include "measure/schedule.h"

namespace caliber::measurement {
namespace {

class PerIter final : public ScheduleUnit {
 public:
  PerIter(CallSite& site, SampleTimer& timer) : site_(site), timer_(timer) {}

  std::vector<double> run(std::size_t count, bool /*verified*/) override {
    std::vector<double> begins;  // host time each window opened; closed by the batch's sync
    begins.reserve(count);
    timer_.reset(count);
    for (std::size_t i = 0; i < count; ++i) {
      site_.prepare();
      const LaunchContext ctx = site_.next_context();
      begins.push_back(site_.clock().now_us());
      timer_.start(i);
      site_.call(ctx);
      stop_window(site_, timer_, i);
    }
    site_.backend().synchronize_device();
    site_.close_windows(begins);
    site_.count_timed_calls(count);
    return collect_samples(site_, timer_, count);
  }

 private:
  CallSite& site_;
  SampleTimer& timer_;
};

}  // namespace

std::unique_ptr<ScheduleUnit> per_iter_schedule(CallSite& site, SampleTimer& timer) {
  return std::make_unique<PerIter>(site, timer);
}

}  // namespace caliber::measurement
