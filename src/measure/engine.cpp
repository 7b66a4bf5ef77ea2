// The engine loop: set-up, warmup, the schedule's set-up, the stopping rule's batches, the
// verified samples, the summary. What it keeps (tests/measure/test_engine.cpp pins it):
//  - the first call is never timed (warmup >= 1 is enforced by the contract);
//  - every hook runs outside the timed windows; verified samples use input copy 0;
//  - under graph, each captured call may get its own input set (EngineHooks::input_sets);
//  - a batch ends after an audited sample, judged before the next batch;
//  - the schedules keep theirs (schedule.h).
#include "measure/engine.h"

#include <algorithm>
#include <memory>
#include <span>

#include <fmt/format.h>

#include "caliber/errors.h"
#include "measure/cache_policy.h"
#include "measure/call_site.h"
#include "measure/result_summary.h"
#include "measure/schedule.h"
#include "measure/stopping_rule.h"

namespace caliber::measurement {
namespace {

class Engine {
 public:
  Engine(Backend& backend, const Callable& call, const Contract& contract, const MeasureOptions& options,
         const EngineHooks& hooks, const TelemetrySource& telemetry)
      : backend_(backend),
        contract_(contract),
        options_(options),
        hooks_(hooks),
        telemetry_source_(telemetry),
        clock_(options.clock ? *options.clock : steady_clock()),
        site_(backend, call, contract, options.prepare, hooks.before_call, clock_) {}

  Result run() {
    Result r = set_up();
    const double begin_us = clock_.now_us();
    warm_up();
    schedule_->set_up();  // graph: capture, upload and first replay, untimed
    const double sampling_begin_us = clock_.now_us();
    std::vector<double> samples = sample(sampling_begin_us, r);
    r.wall_time_ms = (clock_.now_us() - begin_us) / 1000.0;
    r.timed_calls = site_.timed_calls();
    if (telemetry_) telemetry_->stop();
    if (input_sets_ > 1) hooks_.input_sets(1);
    // The samples' windows: a verified sample re-timed below records one more, but is no sample.
    sample_windows_ = site_.windows().size();
    if (hooks_.on_samples) {
      hooks_.on_samples(samples, [this](std::size_t stage) {
        const std::vector<double> d = run_batch(1, true, stage);
        return d.empty() ? 0.0 : d.front();
      });
    }
    finish(r, samples);
    return r;
  }

 private:
  // The result's identity, the cache policy, the instrument, the telemetry and the schedule;
  // throws ContractError for what cannot be measured as asked.
  Result set_up() {
    Result r;
    r.name = options_.name;
    r.params = options_.params;
    r.device = backend_.device();
    r.contract = contract_;
    // What the timed calls saw: values drawn for each only where the integrity layer draws them.
    r.contract.inputs = hooks_.before_call ? InputValues::fresh : InputValues::fixed;
    const CacheSetup cache = set_up_cache_policy(backend_, contract_, options_);
    if (contract_.cache == CachePolicy::cold) r.flush_bytes = cache.flush_bytes;
    if (contract_.cache == CachePolicy::rotate) {
      site_.rotation() = InputRotation(cache.rotation_copies);
      r.rotation_copies = cache.rotation_copies;
    }
    set_up_input_sets(r);
    set_up_instrument(r);
    if (telemetry_source_) telemetry_ = telemetry_source_(backend_, clock_, contract_, options_, r);
    if (telemetry_) telemetry_->start();
    // With one output set per captured call, every call's outputs are poisoned before each replay
    // and an audit scans them all: no audit graph. (Its poison between calls would hit call 0's
    // outputs after call 0 wrote them.)
    const bool audit_graph = hooks_.audit && input_sets_ <= 1;
    schedule_ = make_schedule(site_, timer_.get(), hooks_.on_graph_captured,
                              audit_graph ? hooks_.poison_between_calls : PoisonBetweenCalls{},
                              static_cast<bool>(hooks_.audit));
    return r;
  }

  // One input set per call of a graph, where the subject can hold them (docs/integrity.md).
  void set_up_input_sets(Result& r) {
    const auto calls = static_cast<std::size_t>(contract_.graph_calls);
    if (!hooks_.input_sets || contract_.schedule != Schedule::graph || calls < 2 ||
        contract_.cache == CachePolicy::rotate) {
      return;
    }
    input_sets_ = hooks_.input_sets(calls);
    if (input_sets_ > 1) {
      site_.rotation() = InputRotation(input_sets_);
      r.notes.push_back(fmt::format("each of the {} calls of a graph replay ran on its own input and output set", calls));
    } else {
      r.notes.push_back(fmt::format("the {} calls of a graph replay shared one input set (no device memory for one "
                                    "per call)",
                                    calls));
    }
  }

  // The timer, activity tracing, and how the instrument was chosen.
  void set_up_instrument(Result& r) {
    if (options_.instrument_selection) {
      const InstrumentSelection& sel = *options_.instrument_selection;
      if (sel.instrument != contract_.instrument) {
        throw ContractError(fmt::format("the instrument selection chose {} but the contract says {}",
                                        to_string(sel.instrument), to_string(contract_.instrument)));
      }
      r.instrument = sel.choice;
      if (!sel.warning.empty()) r.warnings.push_back(sel.warning);
    } else {
      r.instrument.requested = std::string(to_string(contract_.instrument));
      r.instrument.reason = "requested";
    }
    // The contract as measured: the timer may depend on what the timed calls' inputs are.
    if (contract_.quantity == Quantity::device_time) timer_ = backend_.make_timer_for(r.contract);
    if (options_.keep_activity_tracing_on && contract_.instrument != Instrument::cupti) {
      tracing_ = backend_.keep_activity_tracing_on();
    }
    r.instrument.kernel_tracing =
        (contract_.instrument == Instrument::cupti && contract_.quantity == Quantity::device_time) ||
        tracing_ != nullptr;
  }

  void warm_up() {
    for (std::int64_t i = 0; i < contract_.warmup; ++i) {
      site_.prepare();
      site_.call(site_.next_context());
    }
    backend_.synchronize_device();
    backend_.check_errors();
  }

  // The stopping rule's samples, then the verified ones.
  std::vector<double> sample(double begin_us, Result& r) {
    const IterationRule& rule = contract_.iterations;
    const std::size_t verified =
        hooks_.before_verified_sample ? std::max<std::size_t>(1, hooks_.verified_samples) : 0;
    const bool fixed = rule.mode == IterationRule::Mode::fixed;
    if (fixed && contract_.schedule == Schedule::pipelined) {
      r.stop_reason = "fixed count";  // one window, which is also the verified sample
      return run_batch(static_cast<std::size_t>(rule.count), verified > 0, 0);
    }
    // With a fixed count the last samples are the verified ones: the count stays what the
    // contract says. The adaptive rule adds them after it stops.
    const auto count = static_cast<std::size_t>(rule.count);
    const std::size_t stages = fixed ? std::min(verified, count) : verified;
    const std::unique_ptr<StoppingRule> stopping = fixed ? fixed_count_rule(count - stages) : adaptive_rule(rule);
    std::vector<double> all = take_samples(*stopping, begin_us);
    r.stop_reason = stopping->stop_reason();
    for (std::string& w : stopping->warnings()) r.warnings.push_back(std::move(w));
    for (std::size_t k = 0; k < stages; ++k) {
      const std::vector<double> d = run_batch(1, true, k);
      all.insert(all.end(), d.begin(), d.end());
    }
    return all;
  }

  std::vector<double> take_samples(StoppingRule& rule, double begin_us) {
    std::vector<double> all;
    while (true) {
      std::size_t batch = rule.next_batch(all.size(), clock_.now_us() - begin_us);
      if (batch == 0) break;
      // A batch ends after an audited sample, which is judged once the batch has synchronized.
      const std::optional<std::size_t> audited = hooks_.next_audit ? hooks_.next_audit(all.size()) : std::nullopt;
      // (pipelined: a batch is one window, one sample)
      const bool one_window = contract_.schedule == Schedule::pipelined;
      if (audited && !one_window && *audited < all.size() + batch) batch = *audited + 1 - all.size();
      const std::vector<double> d = run_batch(batch);
      all.insert(all.end(), d.begin(), d.end());
      if (audited && *audited + 1 == all.size()) audit(*audited);
      if (hooks_.between_batches) hooks_.between_batches();
      if (rule.done(all, clock_.now_us() - begin_us)) break;
    }
    // At least one audit: the last sample, when the draw chose none before the rule stopped.
    if (hooks_.audit && !audited_any_ && !all.empty()) audit(all.size() - 1);
    return all;
  }

  // Judges what sample `n`'s last call left, then (graph) what the audit graph's replay leaves.
  void audit(std::size_t n) {
    audited_any_ = true;
    hooks_.audit(n);
    if (schedule_->replay_audit()) hooks_.audit(n);
  }

  // Runs `count` samples (pipelined: one window of `count` calls). verified: the batch is
  // verified sample `stage` (count 1, or the one pipelined window): the integrity layer prepares
  // it outside every window, it uses input copy 0 (so that the verified output is copy 0's), and
  // the layer judges it once the batch has synchronized.
  std::vector<double> run_batch(std::size_t count, bool verified = false, std::size_t stage = 0) {
    if (verified) {
      hooks_.before_verified_sample(stage);
      site_.rotation().rewind();
    }
    site_.set_refreshing(!verified);
    std::vector<double> d = schedule_->run(count, verified);
    site_.set_refreshing(true);
    if (verified && hooks_.after_verified_sample) hooks_.after_verified_sample(stage);
    return d;
  }

  void finish(Result& r, std::vector<double>& samples) {
    require_valid_durations(samples);
    const std::span<const HostWindow> windows(site_.windows().data(), sample_windows_);
    const bool too_many_flagged = telemetry_ && telemetry_->judge(r, samples, windows);
    summarize_samples(r, samples, contract_, too_many_flagged);
    add_schedule_notes(r, contract_);
    if (timer_) timer_->annotate(r);
    if (timer_ && hooks_.on_calls_within_samples) hooks_.on_calls_within_samples(timer_->calls_within_samples());
    if (options_.keep_samples) r.samples_us = std::move(samples);
  }

  Backend& backend_;
  const Contract& contract_;
  const MeasureOptions& options_;
  const EngineHooks& hooks_;
  const TelemetrySource& telemetry_source_;
  Clock& clock_;
  CallSite site_;
  std::unique_ptr<SampleTimer> timer_;
  std::unique_ptr<ActivityTracing> tracing_;
  std::unique_ptr<SampleTelemetry> telemetry_;
  std::unique_ptr<ScheduleUnit> schedule_;
  std::size_t sample_windows_ = 0;
  std::size_t input_sets_ = 0;
  bool audited_any_ = false;
};

}  // namespace

void validate_measurement(Backend& backend, const Contract& contract, const MeasureOptions& options) {
  if (contract.backend != backend.kind()) {
    throw ContractError(fmt::format("the contract is for the {} backend but the measurement runs on "
                                    "the {} backend",
                                    to_string(contract.backend), to_string(backend.kind())));
  }
  validate(contract, static_cast<bool>(options.prepare));
  if (contract.schedule == Schedule::graph && !backend.supports_graphs()) {
    throw ContractError(fmt::format("schedule graph: the {} backend cannot capture graphs",
                                    to_string(backend.kind())));
  }
}

Result run_measurement(Backend& backend, const Callable& call, const Contract& contract,
                       const MeasureOptions& options, const EngineHooks& hooks, const TelemetrySource& telemetry) {
  validate_measurement(backend, contract, options);
  return Engine(backend, call, contract, options, hooks, telemetry).run();
}

Result run_measurement(Backend& backend, const Callable& call, const Contract& contract,
                       const MeasureOptions& options, const EngineHooks& hooks) {
  return run_measurement(backend, call, contract, options, hooks, watch_device_telemetry);
}

}  // namespace caliber::measurement
