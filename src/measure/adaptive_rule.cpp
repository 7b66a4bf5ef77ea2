// The adaptive rule (docs/iteration-rule.md): a first batch of one sample to learn what a sample
// costs, then geometric growth capped by what the time budget affords, until the median's 95%
// interval is narrow enough (after the minimum samples and time) or the maximum time is spent.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "caliber/statistics.h"
#include "measure/stopping_rule.h"

namespace caliber::measurement {
namespace {

class Adaptive final : public StoppingRule {
 public:
  explicit Adaptive(const IterationRule& rule)
      : rule_(rule),
        min_samples_(static_cast<std::size_t>(rule.min_samples)),
        min_us_(rule.min_time_ms * 1000.0),
        max_us_(rule.max_time_ms * 1000.0) {}

  std::size_t next_batch(std::size_t taken, double elapsed_us) override {
    if (taken == 0) return 1;  // measures the cost of one sample before committing to more
    const double per_sample = std::max(elapsed_us / static_cast<double>(taken), 1e-3);
    const double affordable = std::max(1.0, std::floor((max_us_ - elapsed_us) / per_sample));
    const std::size_t wanted =
        std::max(min_samples_ > taken ? min_samples_ - taken : 0, std::max<std::size_t>(1, taken / 2));
    const std::size_t batch = std::min(
        {wanted, static_cast<std::size_t>(std::min(affordable, 1e9)), kMaxBatch, kMaxSamples - taken});
    return std::max<std::size_t>(batch, 1);
  }

  bool done(const std::vector<double>& samples_us, double elapsed_us) override {
    if (samples_us.empty()) return false;
    std::vector<double> sorted = samples_us;
    std::sort(sorted.begin(), sorted.end());
    const double med = quantile_sorted(sorted, 0.5);
    const Interval ci = median_ci_order_statistics(sorted, 0.95);
    const double achieved = med > 0 ? (ci.hi - ci.lo) / 2.0 / med : 0.0;
    const bool enough = samples_us.size() >= min_samples_ && elapsed_us >= min_us_;
    if (enough && achieved <= rule_.target_rel_halfwidth) {
      stop_reason_ = "target precision reached";
      return true;
    }
    if (elapsed_us < max_us_ && samples_us.size() < kMaxSamples) return false;
    stop_reason_ = "max time reached";
    warning_ = samples_us.size() < min_samples_
                   ? fmt::format("max time {} ms reached with only {} of {} minimum samples", rule_.max_time_ms,
                                 samples_us.size(), min_samples_)
                   : fmt::format("max time {} ms reached before the median's 95% CI narrowed to +/-{:.3g}% (reached "
                                 "+/-{:.3g}%)",
                                 rule_.max_time_ms, rule_.target_rel_halfwidth * 100.0, achieved * 100.0);
    return true;
  }

  std::string stop_reason() const override { return stop_reason_; }
  std::vector<std::string> warnings() const override {
    return warning_.empty() ? std::vector<std::string>{} : std::vector<std::string>{warning_};
  }

 private:
  IterationRule rule_;
  std::size_t min_samples_;
  double min_us_;
  double max_us_;
  std::string stop_reason_;
  std::string warning_;
};

}  // namespace

std::unique_ptr<StoppingRule> adaptive_rule(const IterationRule& rule) { return std::make_unique<Adaptive>(rule); }

}  // namespace caliber::measurement
