// fixed:N: exactly N samples, in batches of at most kMaxBatch between two synchronizations.
#include <algorithm>

#include "measure/stopping_rule.h"

namespace caliber::measurement {
namespace {

class FixedCount final : public StoppingRule {
 public:
  explicit FixedCount(std::size_t samples) : samples_(samples) {}

  std::size_t next_batch(std::size_t taken, double /*elapsed_us*/) override {
    return taken >= samples_ ? 0 : std::min(kMaxBatch, samples_ - taken);
  }
  bool done(const std::vector<double>& samples_us, double /*elapsed_us*/) override {
    return samples_us.size() >= samples_;
  }
  std::string stop_reason() const override { return "fixed count"; }

 private:
  std::size_t samples_;
};

}  // namespace

std::unique_ptr<StoppingRule> fixed_count_rule(std::size_t samples) { return std::make_unique<FixedCount>(samples); }

}  // namespace caliber::measurement
