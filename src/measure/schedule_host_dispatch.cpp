// host dispatch: the host clock around the launch only, what a caller pays to issue the call; the
// device is drained before the launch and after the timer stops, outside the sample.
#include "measure/schedule.h"

namespace caliber::measurement {
namespace {

class HostDispatch final : public ScheduleUnit {
 public:
  explicit HostDispatch(CallSite& site) : site_(site) {}

  std::vector<double> run(std::size_t count, bool /*verified*/) override {
    Backend& backend = site_.backend();
    Clock& clock = site_.clock();
    std::vector<double> d(count);
    for (std::size_t i = 0; i < count; ++i) {
      site_.prepare();
      backend.synchronize_device();
      const LaunchContext ctx = site_.next_context();
      const double t0 = clock.now_us();
      site_.call(ctx);
      const double t1 = clock.now_us();
      backend.synchronize_device();
      d[i] = t1 - t0;
      site_.record_window(t0, clock.now_us());
    }
    backend.check_errors();
    site_.count_timed_calls(count);
    return d;
  }

 private:
  CallSite& site_;
};

}  // namespace

std::unique_ptr<ScheduleUnit> host_dispatch_schedule(CallSite& site) { return std::make_unique<HostDispatch>(site); }

}  // namespace caliber::measurement
