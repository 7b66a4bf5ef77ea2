#include "bench/bench_run.h"

#include <algorithm>
#include <memory>

#include <fmt/format.h>

#include "kernels/workload.h"
#include "caliber/errors.h"
#include "caliber/measure.h"
#include "integrity/bound_ceilings.h"
#include "integrity/physical_bound.h"
#include "integrity/theoretical_ceilings.h"
#include "measure/checked_subject.h"
#include "modules/builtins.h"

namespace caliber::bench {

BenchPlan plan_bench(const BenchPlanRequest& request) {
  BenchPlan plan;
  for (const auto& kernel : request.kernels) {
    for (CachePolicy cache : request.caches) {
      for (Schedule schedule : request.schedules) {
        Contract c = request.base;
        c.schedule = schedule;
        c.cache = cache;
        if (auto why = why_invalid(c)) {
          if (request.skip_refused) {
            const std::string line = fmt::format("skipped schedule={} cache={}: {}", to_string(schedule),
                                                 to_string(cache), *why);
            if (std::find(plan.skipped.begin(), plan.skipped.end(), line) == plan.skipped.end()) {
              plan.skipped.push_back(line);
            }
            continue;
          }
          throw ContractError(fmt::format("invalid contract (--schedule {} --cache {}): {}", to_string(schedule),
                                          to_string(cache), *why));
        }
        for (bool t : request.tracing) plan.combinations.push_back({kernel, c, t});
      }
    }
  }
  return plan;
}

namespace {

// The workload of the combination being measured and its checked subject (docs/integrity.md):
// its untimed verified call runs once, and every contract's measurement ends with a verified call
// on poisoned outputs.
class CheckedWorkload {
 public:
  CheckedWorkload(Backend& backend, const BenchRunOptions& options) : backend_(backend), options_(options) {}

  measurement::CheckedSubject& for_combination(const BenchCombination& combination) {
    std::size_t copies = 1;
    if (combination.contract.cache == CachePolicy::rotate) {
      const std::uint64_t ws = builtin_working_set_bytes(combination.kernel, options_.size_bytes);
      copies = rotation_copies_needed(ws, backend_.device().llc_bytes);
    }
    if (!workload_ || workload_->name != combination.kernel || workload_->rotation_copies != copies) {
      checked_.reset();
      workload_.reset();
      workload_ = make_builtin_workload(backend_, combination.kernel, options_.size_bytes, copies, options_.seed);
      checked_ = std::make_unique<measurement::CheckedSubject>(backend_,
                                                             checked_subject(*workload_, 1 + options_.extra_launches));
      checked_->run_untimed_check();
      if (checked_->failed_before_timing()) {
        throw DeviceError(fmt::format("{}: output check failed before timing: {}", combination.kernel,
                                      checked_->untimed_integrity().first_failure()));
      }
    }
    return *checked_;
  }
  const Workload& workload() const { return *workload_; }

 private:
  Backend& backend_;
  const BenchRunOptions& options_;
  std::unique_ptr<Workload> workload_;
  std::unique_ptr<measurement::CheckedSubject> checked_;
};

MeasureOptions measure_options(const Workload& workload, const BenchCombination& combination,
                               const BenchRunOptions& o) {
  MeasureOptions mo;
  mo.name = combination.kernel;
  mo.params = workload.params;
  mo.rotation_copies = workload.rotation_copies;
  mo.working_set_bytes = workload.working_set_bytes;
  mo.keep_samples = o.keep_samples;
  mo.instrument_selection = o.instrument_selection;
  mo.keep_activity_tracing_on = combination.cupti_tracing;
  mo.telemetry = o.telemetry;
  mo.telemetry_period_ms = o.telemetry_period_ms;
  mo.keep_telemetry_samples = o.keep_telemetry_samples;
  return mo;
}

// The physical bound on the bytes one call of the kernel reads plus writes (docs/integrity.md).
void check_physical_bound(Result& r, const BenchCombination& combination, const BenchRunOptions& o,
                          const DeviceCeilings& bound, std::uint64_t llc_bytes) {
  const std::uint64_t bytes = builtin_working_set_bytes(combination.kernel, o.size_bytes);
  const IntegrityCheck check = integrity::physical_bound_check(
      {bytes, 0, r.summary.median_us, DType::fp32, combination.contract.cache, llc_bytes}, bound);
  r.integrity.record(check.name, check.outcome, check.detail);
}

}  // namespace

std::vector<Result> run_bench_plan(Backend& backend, const std::vector<BenchCombination>& combinations,
                                   const BenchRunOptions& options, const BenchProgress& progress) {
  std::vector<Result> results;
  CheckedWorkload current(backend, options);
  const DeviceCeilings bound = refine_ceilings(theoretical_ceilings(backend.device()),
                                               options.calibrated_ceilings ? &*options.calibrated_ceilings : nullptr);
  for (const BenchCombination& combination : combinations) {
    measurement::CheckedSubject& checked = current.for_combination(combination);
    Result r = checked.measure(combination.contract, measure_options(current.workload(), combination, options));
    if (options.extra_launches > 0) {
      r.warnings.push_back(fmt::format("gate self-test: {} extra launch(es) per call "
                                       "(--selftest-extra-launches): deliberately slower",
                                       options.extra_launches));
    }
    check_physical_bound(r, combination, options, bound, backend.device().llc_bytes);
    results.push_back(std::move(r));
    if (progress) progress(combination, results);
  }
  return results;
}

}  // namespace caliber::bench
