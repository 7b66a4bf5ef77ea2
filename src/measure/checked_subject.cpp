#include "measure/checked_subject.h"

#include <utility>

#include "integrity/measurement_checks.h"
#include "measure/engine.h"
#include "measure/perturbation.h"

namespace caliber::measurement {
namespace {

// The engine's hooks that run `checks` (which must outlive the measurement).
EngineHooks hooks_for(integrity::MeasurementChecks& checks) {
  EngineHooks hooks;
  hooks.on_graph_captured = [&checks](const GraphExec& g, std::size_t calls) { checks.check_graph(g, calls); };
  hooks.on_calls_within_samples = [&checks](const CallsWithinSamples& c) { checks.check_calls_within_samples(c); };
  if (checks.audits_timed_calls()) {
    hooks.before_call = [&checks] { checks.before_call(); };
    hooks.next_audit = [&checks](std::size_t sample) { return checks.next_audit(sample); };
    hooks.audit = [&checks](std::size_t sample) { checks.audit(sample); };
    if (checks.poisons_between_calls()) hooks.poison_between_calls = [&checks] { checks.poison_between_calls(); };
    if (checks.input_sets()) hooks.input_sets = checks.input_sets();
  }
  if (checks.audits_timed_calls() || checks.judges_sample_times()) {
    hooks.on_samples = [&checks](const std::vector<double>& samples,
                                 const std::function<double(std::size_t)>& resample) {
      checks.check_sample_times(samples, resample);
    };
  }
  if (checks.verified_samples() == 0) return hooks;
  hooks.verified_samples = checks.verified_samples();
  hooks.before_verified_sample = [&checks](std::size_t stage) { checks.before_verified_sample(stage); };
  hooks.after_verified_sample = [&checks](std::size_t stage) { checks.after_verified_sample(stage); };
  return hooks;
}

}  // namespace

integrity::Subject subject_from_options(const Callable& call, const MeasureOptions& options) {
  integrity::Subject s;
  s.call = call;
  s.buffers = options.buffers;
  s.rule = options.output_rule;
  s.prepare = options.prepare;
  s.checks = options.integrity_checks;
  s.draw_inputs = options.draw_inputs;
  s.judge_drawn = options.check_drawn;
  s.input_sets = options.input_sets;
  return s;
}

CheckedSubject::CheckedSubject(Backend& backend, integrity::Subject subject)
    : backend_(backend), checks_(backend, std::move(subject)) {}

Result CheckedSubject::measure(const Contract& contract, const MeasureOptions& options) {
  Result r = measure_checked(contract, options);
  if (contract.instrument == Instrument::cupti && contract.quantity == Quantity::device_time) {
    attach_perturbation(r, contract, options, checks_.census(),
                        [this](const Contract& c, const MeasureOptions& o) { return measure_checked(c, o); });
  }
  return r;
}

Result CheckedSubject::measure_checked(const Contract& contract, const MeasureOptions& options) {
  validate_measurement(backend_, contract, options);
  checks_.require_verifiable(contract);
  checks_.run_untimed_check();
  if (!checks_.enabled()) {
    Integrity integ = checks_.unchecked_record();
    Result r = run_measurement(backend_, checks_.subject().call, contract, options, {});
    r.integrity = std::move(integ);
    return r;
  }
  integrity::MeasurementChecks checks(checks_, contract);
  const EngineHooks hooks = hooks_for(checks);
  Result r;
  try {
    r = run_measurement(backend_, checks_.subject().call, contract, options, hooks);
  } catch (...) {
    checks.abandon();
    throw;
  }
  checks.finish();
  r.integrity = checks.record();
  if (r.integrity.failed()) r.warnings.push_back("integrity check failed: " + r.integrity.first_failure());
  return r;
}

}  // namespace caliber::measurement
