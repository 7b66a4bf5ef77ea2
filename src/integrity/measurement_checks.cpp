#include "integrity/measurement_checks.h"

#include <algorithm>
#include <span>

#include <fmt/format.h>

#include "integrity/census_check.h"
#include "integrity/verified_call_time.h"

namespace caliber::integrity {

namespace check = integrity_check;

MeasurementChecks::MeasurementChecks(SubjectChecks& subject, const Contract& contract, Entropy entropy)
    : subject_(subject), schedule_(contract.schedule), integ_(subject.untimed_integrity()) {
  judge_census(integ_, subject_.census(), contract);
  if (!subject_.buffers().declared()) return;
  if (subject_.subject().fresh_inputs_apply) {
    const std::string why = why_inputs_fixed(subject_, contract);
    if (why.empty()) {
      audit_.emplace(subject_, std::move(entropy));
    } else {
      integ_.record(check::fresh_inputs, CheckOutcome::not_run, "inputs fixed: " + why);
    }
  }
  const bool has_fresh = subject_.has_fresh_inputs();
  if (schedule_ != Schedule::pipelined || !has_fresh) stages_.push_back(Stage::poisoned);
  if (has_fresh) stages_.push_back(Stage::fresh);
}

void MeasurementChecks::before_verified_sample(std::size_t stage) {
  if (stage == 0) {
    // With fresh inputs the timed calls ran on values drawn for each: the verified samples start
    // from the original ones again.
    if (audit_) {
      subject_.buffers().restore_original_inputs();
    } else {
      subject_.check_inputs(integ_, subject_.original_input_sums(), "during the timed calls");
    }
    subject_.check_cache_state(integ_, "the timed calls");
  }
  if (stages_[stage] == Stage::poisoned) {
    subject_.buffers().poison_outputs();
    return;
  }
  subject_.outputs().note_before_fresh_inputs();
  subject_.subject().load_fresh_inputs();
  subject_.outputs().note_after_fresh_inputs();
  fresh_loaded_ = true;
  fresh_sums_ = subject_.buffers().input_checksums();
}

void MeasurementChecks::after_verified_sample(std::size_t stage) {
  const Integrity& untimed = subject_.untimed_integrity();
  if (stages_[stage] == Stage::poisoned) {
    subject_.outputs().check_timed(integ_, /*fresh=*/false, untimed);
    subject_.check_inputs(integ_, subject_.original_input_sums(), "during the verified call");
    return;
  }
  subject_.outputs().check_timed(integ_, /*fresh=*/true, untimed);
  subject_.check_inputs(integ_, fresh_sums_, "during the verified call on fresh inputs");
  subject_.buffers().restore_original_inputs();
  fresh_loaded_ = false;
}

void MeasurementChecks::check_graph(const GraphExec& graph, std::size_t calls) {
  integrity::check_graph(integ_, graph, calls, subject_.census(),
                         [this]() -> const DeviceWorkCensus& { return subject_.steady_census(); });
}

bool MeasurementChecks::judges_sample_times() const {
  return schedule_ != Schedule::pipelined && std::find(stages_.begin(), stages_.end(), Stage::poisoned) != stages_.end();
}

void MeasurementChecks::check_sample_times(const std::vector<double>& samples_us,
                                           const std::function<double(std::size_t stage)>& resample) {
  if (audit_) {
    const std::size_t rule_samples = samples_us.size() - std::min(samples_us.size(), stages_.size());
    audit_->judge_samples(std::span<const double>(samples_us).first(rule_samples));
  }
  if (!judges_sample_times()) return;
  const auto stage = static_cast<std::size_t>(std::find(stages_.begin(), stages_.end(), Stage::poisoned) -
                                              stages_.begin());
  const std::size_t from_end = stages_.size() - stage;
  check_verified_call_time(integ_, samples_us, from_end, [&] { return resample(stage); });
}

void MeasurementChecks::check_calls_within_samples(const CallsWithinSamples& calls) {
  within_samples_ = judge_calls_within_samples(calls);
}

void MeasurementChecks::record_calls_within_samples(const CallLikeness& within) {
  IntegrityCheck* samples = nullptr;
  for (IntegrityCheck& c : integ_.checks) {
    if (c.name == check::calls_alike) samples = &c;
  }
  if (within.outcome == CheckOutcome::failed || !samples) {
    integ_.record(check::calls_alike, within.outcome, within.detail);
  } else if (within.outcome == CheckOutcome::passed) {
    samples->detail += "; " + within.detail;
  }
}

void MeasurementChecks::finish() {
  if (audit_) audit_->record(integ_);
  // A failure inside a sample fails the check; otherwise the samples' own judgement stands, and a
  // pass inside the samples adds its detail (the spread it saw).
  if (within_samples_) record_calls_within_samples(*within_samples_);
  if (subject_.buffers().declared()) {
    subject_.check_cache_state(integ_, "the last timed call");
    return;
  }
  integ_.record(check::output_after_timing, CheckOutcome::not_run, "no buffers declared: the outputs were not verified");
  Backend& backend = subject_.backend();
  if (!backend.observes_device_work() || !subject_.census().applicable) return;
  // The one look at the timed phase a callable without declared outputs gets: does it still
  // launch anything?
  const DeviceWorkCensus later = subject_.census_one_more_call();
  if (!later.observed) return;
  integ_.record(check::work_after_timing, later.work() > 0 ? CheckOutcome::passed : CheckOutcome::failed,
                later.work() > 0 ? "a traced call after timing issued " + describe_work(later)
                                 : fmt::format("a traced call after timing launched no device work (the untimed "
                                               "call before timing issued {}): the timed calls measured nothing",
                                               describe_work(subject_.census())));
}

void MeasurementChecks::abandon() noexcept {
  if (!fresh_loaded_) return;
  try {
    subject_.buffers().restore_original_inputs();
  } catch (...) {  // the measurement's own error is the one to report
  }
}

}  // namespace caliber::integrity
