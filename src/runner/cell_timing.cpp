// A cell's second stretch: its measurements (eager, then kernel-only) and its verdict
// (docs/runner.md, "The two contracts" and "When the kernel-only measurement fails").
#include <algorithm>

#include <fmt/format.h>

#include "caliber/errors.h"
#include "caliber/result_json.h"
#include "integrity/physical_bound.h"
#include "results/kept_samples.h"
#include "runner/capture_failure.h"
#include "runner/cell.h"
#include "runner/cell_verdict.h"
#include "runner/config_replay.h"

namespace caliber::runner {
namespace {

std::string contract_brief(const Contract& c) {
  std::string s = fmt::format("{}/{}/{}", to_string(c.instrument), to_string(c.schedule), to_string(c.cache));
  if (c.schedule == Schedule::graph) s += fmt::format("(graph_calls={})", c.graph_calls);
  return s;
}

}  // namespace

// An integrity refusal of either measurement ends the cell failed: no fallback number is
// reported for a call the contract cannot time truthfully.
void Cell::time() {
  try {
    if (bp_.prepared_for != &shape_) prepare_again();
    run_in_profiler_range();
    const MeasureOptions mo = measure_options();
    row_.eager = timed(ctx_.contracts.eager, mo);  // first: its median sizes the kernel-only graph
    integrity_.merge(row_.eager->integrity);
    const Contract ko = kernel_only_contract();
    const std::string kernel_only_failure = measure_kernel_only(ko, mo);
    if (row_.capture_failure && !capture_failure_keeps_eager_number(row_.capture_failure->kind)) {
      end_without_number(ko, kernel_only_failure);
      return;
    }
    record_numbers(ko, kernel_only_failure);
    check_physical_bound();
    record();
  } catch (const std::exception& e) {
    fail(e);
  }
}

// Prepared for another shape since its untimed call (the shapes of a chain share a trace):
// prepared again for this one, it must choose what its untimed call ran.
void Cell::prepare_again() {
  prepare_provider();
  const auto again = bp_.impl->chosen_config();
  const std::string now = again ? again->key : "";
  const std::string was = row_.config ? row_.config->key : "";
  if (now != was) {
    throw providers::ProviderError(fmt::format(
        "prepared again to be timed (its shape's untimed call shared a trace with other shapes'), it chose "
        "config '{}' where its untimed call ran '{}': the timed call would not be the checked one",
        now, was));
  }
}

// caliber profile: one call inside the named profiler range, outside every measurement.
void Cell::run_in_profiler_range() {
  if (!ctx_.options.profile_range || !ctx_.hooks.in_profiler_range) return;
  ctx_.hooks.in_profiler_range(*ctx_.options.profile_range,
                               [&] { bp_.impl->run(shape_, buffers_, ctx_.backend.stream()); });
  ctx_.backend.synchronize_device();
  ctx_.backend.check_errors();
}

MeasureOptions Cell::measure_options() const {
  MeasureOptions mo;
  mo.name = fmt::format("{}/{}", ctx_.plan.op_name, provider());
  mo.params = params_from_json(shape_row_.args, "(shape ledger)", 0, "args");
  mo.keep_samples = ctx_.options.keeps_samples();
  mo.working_set_bytes = row_.bytes;
  return mo;
}

// One measurement. Its phase, inside the contracts: its own wall time less the judging it did
// (the verified samples' outputs are judged inside the measurement's window of wall time).
Result Cell::timed(const Contract& contract, const MeasureOptions& options) {
  const double judged_before = judged_ms();
  Result r = checked_->measure(contract, options);
  // Bounded by default (results/kept_samples.h): all of them only with --samples.
  if (!ctx_.options.samples) r.samples_us = kept_samples(std::move(r.samples_us));
  phases_.timing_ms += std::max(0.0, r.wall_time_ms - (judged_ms() - judged_before));
  return r;
}

// The run's kernel-only contract, with the cell's graph size when the run sizes graphs itself:
// one call per graph for an op updated in place (measure/checked_subject.h), the count a
// replayed run's source measured the cell with (same contract), else from the eager median.
Contract Cell::kernel_only_contract() const {
  Contract ko = ctx_.contracts.kernel_only;
  if (ctx_.contracts.auto_graph_calls && ko.schedule == Schedule::graph) {
    const auto replayed = ctx_.config_replay
                              ? pinned_graph_calls_for(*ctx_.config_replay, shape_row_.shape_id, provider())
                              : std::nullopt;
    ko.graph_calls = inputs_.updates_in_place() ? 1 : replayed ? *replayed : graph_calls_for(row_.eager->summary.median_us);
  }
  return ko;
}

// The kernel-only measurement, unless capture is denied to the provider: "" when it was
// measured, else why not (row_.capture_failure says what that means for the row).
std::string Cell::measure_kernel_only(const Contract& ko, const MeasureOptions& options) {
  const auto denied = ctx_.capture_denied.find(provider());
  if (denied != ctx_.capture_denied.end() && ko.schedule == Schedule::graph) {
    row_.capture_failure = CaptureFailure{CaptureFailureClass::capture_denied, denied->second};
    return "not attempted: " + denied->second;
  }
  try {
    row_.kernel_only = timed(ko, options);
    integrity_.merge(row_.kernel_only->integrity);
    return "";
  } catch (const std::exception& e) {
    const Failure f = classify_failure(e);
    if (kernel_only_failure(f) == KernelOnlyFailure::ends_cell) throw;  // an allocation: the cell is oom
    return kernel_only_failed(ko, f);
  }
}

// A failed kernel-only measurement is classified (runner/capture_failure.h): only a recoverable
// one lets the row report its eager median, marked and kept apart. An integrity refusal is not a
// fallback: the row records it and cannot end ok.
std::string Cell::kernel_only_failed(const Contract& ko, const Failure& f) {
  CaptureFailureClass kind = CaptureFailureClass::recoverable;
  switch (kernel_only_failure(f)) {
    case KernelOnlyFailure::refused:
      integrity_.record(f.integrity_check, CheckOutcome::failed,
                        fmt::format("kernel-only {}: {}", contract_brief(ko), f.what));
      return f.what;
    case KernelOnlyFailure::capture:
      ctx_.healthy = device_healthy(ctx_.backend);
      kind = classify_capture_failure({f.during_capture, f.fault, ctx_.healthy});
      break;
    default:
      break;
  }
  row_.capture_failure = CaptureFailure{kind, fmt::format("kernel-only {}: {}", contract_brief(ko), f.what)};
  return f.what;
}

// No number: the eager measurement stays in the row for the record, the cell failed.
void Cell::end_without_number(const Contract& ko, const std::string& failure) {
  release();
  const CaptureFailureClass kind = row_.capture_failure->kind;
  row_.eager_median_us = row_.eager->summary.median_us;
  row_.timing_method = fmt::format("eager={} (kernel-only {}: {})", contract_brief(row_.eager->contract),
                                   contract_brief(ko), to_string(kind));
  row_.integrity = integrity_;
  finish(BenchmarkStatus::failed,
         with_device_verdict(fmt::format("kernel-only measurement: {}: {}", to_string(kind), failure), ctx_.healthy));
}

// The row's numbers: the primary measurement's (kernel-only when measured, else eager).
void Cell::record_numbers(const Contract& ko, const std::string& kernel_only_failure) {
  BenchmarkResultRow& row = row_;
  const Result& primary = row.kernel_only ? *row.kernel_only : *row.eager;
  row.median_us = primary.summary.median_us;
  row.p10_us = primary.summary.p10_us;
  row.p90_us = primary.summary.p90_us;
  row.stable = primary.stable;
  row.warmup_iters = primary.contract.warmup;
  row.telemetry = to_json(primary.telemetry);
  row.repeat_iters = primary.summary.n;
  row.eager_median_us = row.eager->summary.median_us;
  if (row.kernel_only) {
    if (row.kernel_only->contract.schedule == Schedule::graph) row.graph_median_us = row.kernel_only->summary.median_us;
    row.host_overhead_us = *row.eager_median_us - row.kernel_only->summary.median_us;
    row.timing_method = fmt::format("kernel_only={} eager={}", contract_brief(row.kernel_only->contract),
                                    contract_brief(row.eager->contract));
  } else {
    row.timing_method = fmt::format("eager={} (kernel-only {} {}: {})", contract_brief(row.eager->contract),
                                    contract_brief(ko), row.capture_failure ? to_string(row.capture_failure->kind) : "failed",
                                    kernel_only_failure);
  }
}

// Faster than the device can move the bytes or do the flops: not a result. The bound always
// runs (the context's ceilings are theoretical where nothing was calibrated), except under
// --integrity off, where no check runs but the correctness check before timing.
void Cell::check_physical_bound() {
  if (!ctx_.options.integrity_checks) {
    integrity_.record(integrity_check::physically_possible, CheckOutcome::not_run, "integrity checks off (--integrity off)");
    return;
  }
  for (const std::optional<Result>* r : {&row_.eager, &row_.kernel_only}) {
    if (!*r) continue;
    const IntegrityCheck check = integrity::physical_bound_check(
        {row_.bytes, row_.flops, (*r)->summary.median_us, shape_.dtype, (*r)->contract.cache,
         ctx_.backend.device().llc_bytes},
        ctx_.ceilings);
    integrity_.record(check.name, check.outcome, check.detail);
  }
}

// The verdict (runner/cell_verdict.h), once the provider is released.
void Cell::record() {
  release();
  row_.integrity = integrity_;
  CellVerdict v = cell_verdict(integrity_, row_.correctness);
  row_.correct = v.correct;
  row_.correctness_error = std::move(v.correctness_error);
  finish(v.status, std::move(v.reason));
}

}  // namespace caliber::runner
