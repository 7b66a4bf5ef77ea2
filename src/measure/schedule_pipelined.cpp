// pipelined: one window around `count` back-to-back calls; its one sample is the mean per call.
// Nothing can run between the calls (the contract refuses preparation and cold flushes): fresh
// inputs are drawn before the window, for all of its calls.
#include "measure/schedule.h"

namespace caliber::measurement {
namespace {

class Pipelined final : public ScheduleUnit {
 public:
  Pipelined(CallSite& site, SampleTimer& timer) : site_(site), timer_(timer) {}

  std::vector<double> run(std::size_t count, bool /*verified*/) override {
    site_.refresh();
    timer_.reset(1);
    const std::vector<double> begins = {site_.clock().now_us()};
    timer_.start(0);
    for (std::size_t c = 0; c < count; ++c) site_.call(site_.next_context());
    stop_window(site_, timer_, 0);
    site_.backend().synchronize_device();
    site_.close_windows(begins);
    site_.count_timed_calls(count);
    std::vector<double> d = collect_samples(site_, timer_, 1);
    d[0] /= static_cast<double>(count);
    return d;
  }

 private:
  CallSite& site_;
  SampleTimer& timer_;
};

}  // namespace

std::unique_ptr<ScheduleUnit> pipelined_schedule(CallSite& site, SampleTimer& timer) {
  return std::make_unique<Pipelined>(site, timer);
}

}  // namespace caliber::measurement
