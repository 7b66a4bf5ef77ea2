#include "measure/result_summary.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "caliber/errors.h"
#include "core/result_flags.h"
#include "caliber/statistics.h"
#include "core/distinct_numbers.h"

namespace caliber::measurement {
namespace {

// The stopping rule judged the samples it took; throttle policy discard may have removed some
// since. A claim the remaining samples do not support is withdrawn.
void withdraw_unsupported_precision(Result& r, const std::vector<double>& sorted, const Contract& contract) {
  const double precision = median_ci_rel_halfwidth(sorted, kAdaptiveRuleConfidence);
  const double target = contract.iterations.target_rel_halfwidth;
  if (r.stop_reason != "target precision reached" || precision <= target) return;
  r.stop_reason = "precision not established";
  if (!r.median_ci95_us) return;
  // The verified samples that follow the rule (docs/integrity.md) can move the interval just past
  // the target: enough digits to show which way.
  const auto [reached, wanted] = distinct_texts(precision * 100.0, target * 100.0);
  r.warnings.push_back(fmt::format(
      "precision not established: the {} samples reported{} give a median 95% CI of +/-{}%, the target is +/-{}%",
      r.summary.n,
      r.telemetry.discarded_samples > 0
          ? fmt::format(" (after {} throttled ones were discarded)", r.telemetry.discarded_samples)
          : "",
      reached, wanted));
}

}  // namespace

void require_valid_durations(const std::vector<double>& samples_us) {
  for (double x : samples_us) {
    if (!std::isfinite(x) || x < 0) {
      throw DeviceError(fmt::format("the timer returned an invalid duration ({} us)", x));
    }
  }
}

void summarize_samples(Result& r, const std::vector<double>& samples, const Contract& contract,
                       bool too_many_flagged) {
  r.summary = summarize(samples);
  r.value_us = apply_statistic(contract.statistic, samples);
  const bool spread_ok = is_stable(r.summary);
  r.stable = spread_ok && !too_many_flagged;
  std::vector<double> sorted = samples;
  std::sort(sorted.begin(), sorted.end());
  const Interval ci = median_ci_order_statistics(sorted, kAdaptiveRuleConfidence);
  if (std::isfinite(ci.lo) && std::isfinite(ci.hi)) r.median_ci95_us = ci;
  if (!spread_ok) {
    r.flags.emplace_back(kFlagUnstableSpread);
    r.warnings.push_back(fmt::format("unstable: p90/p10 = {:.3f} > 1.2",
                                     r.summary.p10_us > 0 ? r.summary.p90_us / r.summary.p10_us : INFINITY));
  }
  if (!r.median_ci95_us && contract.schedule != Schedule::pipelined) {  // pipelined: one mean
    r.warnings.push_back(fmt::format("precision not established: no 95% confidence interval of the "
                                     "median exists below {} samples (n = {})",
                                     min_samples_for_median_ci(kAdaptiveRuleConfidence), r.summary.n));
  }
  withdraw_unsupported_precision(r, sorted, contract);
  if (contract.schedule != Schedule::pipelined && r.summary.n < 10) {
    r.warnings.push_back(fmt::format("few samples (n = {}): quantiles are coarse", r.summary.n));
  }
}

void add_schedule_notes(Result& r, const Contract& c) {
  if (c.quantity == Quantity::host_dispatch) {
    r.notes.push_back("host_dispatch: host clock around the launch only; the device is drained "
                      "after the timer stops");
    return;
  }
  if (c.backend == BackendKind::cuda && c.instrument == Instrument::wallclock) {
    r.notes.push_back("wallclock on cuda: each sample is launch + run + full-device sync, what a "
                      "caller waiting for the result sees");
  }
  if (c.schedule == Schedule::pipelined) {
    r.notes.push_back(fmt::format("pipelined: one sample = mean of {} back-to-back calls; launch "
                                  "overhead amortized",
                                  c.iterations.count));
  }
  if (c.schedule == Schedule::graph) {
    r.notes.push_back(fmt::format("graph: {} calls per replay; host launch overhead removed "
                                  "(kernel-only)",
                                  c.graph_calls));
  }
}

}  // namespace caliber::measurement
