// The adaptive rule (docs/iteration-rule.md): a first batch of one sample to learn what a sample
// costs, then geometric growth capped by what the time budget affords, until the median's 95%
// interval is narrow enough (after the minimum samples and time) or the budget is spent. The
// budget is max_time_ms, grown for a slow call to what its minimum samples take,
// up to kGrownBudgetCapMs: an 80 ms call gets its 6 samples, not 1.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "caliber/statistics.h"
#include "measure/stopping_rule.h"

namespace caliber::measurement {
namespace {

// The most a budget grows to for a slow call (unless max_time_ms is larger).
constexpr double kGrownBudgetCapMs = 2000.0;

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
    const double affordable = std::max(1.0, std::floor((budget_us(per_sample) - elapsed_us) / per_sample));
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
    const double per_sample = elapsed_us / static_cast<double>(samples_us.size());
    const double budget = budget_us(per_sample);
    if (elapsed_us < budget && samples_us.size() < kMaxSamples) return false;
    const std::string grown =
        budget > max_us_ ? fmt::format(" (the budget grown from {} ms to {:.0f} ms for the {} minimum samples of a "
                                       "{:.3g} ms call)",
                                       rule_.max_time_ms, budget / 1000.0, min_samples_, per_sample / 1000.0)
                         : "";
    stop_reason_ = "max time reached" + grown;
    warning_ = samples_us.size() < min_samples_
                   ? fmt::format("max time {:.0f} ms reached with only {} of {} minimum samples{}", budget / 1000.0,
                                 samples_us.size(), min_samples_, grown)
                   : fmt::format("max time {:.0f} ms reached before the median's 95% CI narrowed to +/-{:.3g}% (reached "
                                 "+/-{:.3g}%){}",
                                 budget / 1000.0, rule_.target_rel_halfwidth * 100.0, achieved * 100.0, grown);
    return true;
  }

  std::string stop_reason() const override { return stop_reason_; }
  // max_time_ms, or what the minimum samples of a call of `per_sample_us` take, up to the cap.
  double budget_us(double per_sample_us) const {
    const double cap = std::max(max_us_, kGrownBudgetCapMs * 1000.0);
    return std::max(max_us_, std::min(per_sample_us * static_cast<double>(min_samples_), cap));
  }
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
