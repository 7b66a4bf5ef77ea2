// The measurement engine: warmup, schedules, cache policies and the iteration rule, on any Backend.
//
// Invariants this file exists to keep (tests/core/test_measure.cpp pins them):
//  - nothing but the call is inside a timed window: preparation, cache flushes and device
//    synchronization happen before start() or after stop();
//  - each schedule produces the number of samples it promises (isolated/per_iter: one per call,
//    pipelined: one per window, graph: one per replay);
//  - the first call is never timed (warmup >= 1 is enforced by the contract).
#include "core/measurement_engine.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>

#include "caliber/errors.h"
#include "core/result_flags.h"
#include "core/distinct_numbers.h"
#include "telemetry/telemetry_sampler.h"

namespace caliber {
namespace {

constexpr std::size_t kMaxBatch = 10000;       // samples between two synchronizations
constexpr std::size_t kMaxSamples = 10000000;  // hard cap on stored samples

class Engine {
 public:
  Engine(Backend& backend, const Callable& call, const Contract& contract,
         const MeasureOptions& options, const detail::MeasurementHooks& hooks)
      : backend_(backend),
        call_(call),
        contract_(contract),
        options_(options),
        hooks_(hooks),
        clock_(options.clock ? *options.clock : steady_clock()) {}

  Result run() {
    Result r;
    r.name = options_.name;
    r.params = options_.params;
    r.device = backend_.device();
    r.contract = contract_;
    set_up_cache_policy(r);
    set_up_instrument(r);
    start_telemetry(r);

    const double begin_us = clock_.now_us();
    warm_up();
    if (contract_.schedule == Schedule::graph && contract_.quantity == Quantity::device_time) {
      capture_graphs();
    }
    const double sampling_begin_us = clock_.now_us();
    std::vector<double> samples = sample(sampling_begin_us, r);
    r.wall_time_ms = (clock_.now_us() - begin_us) / 1000.0;
    r.timed_calls = timed_calls_;
    std::vector<TelemetrySample> readings;
    if (sampler_) readings = sampler_->stop();
    if (hooks_.on_samples) {
      hooks_.on_samples(samples, [this](std::size_t stage) {
        const std::vector<double> d = run_batch(1, true, stage);
        return d.empty() ? 0.0 : d.front();
      });
    }

    finish(r, samples, readings);
    return r;
  }

 private:
  void set_up_cache_policy(Result& r) {
    const std::uint64_t llc = backend_.device().llc_bytes;
    if (contract_.cache == CachePolicy::cold) {
      r.flush_bytes = backend_.flush_bytes();
      if (r.flush_bytes < 2 * llc) {
        throw ContractError(fmt::format("cache cold needs a flush of >= 2x the last-level cache ({} "
                                        "bytes); the backend flushes only {} bytes",
                                        2 * llc, r.flush_bytes));
      }
    }
    if (contract_.cache == CachePolicy::rotate) {
      if (options_.rotation_copies < 2 || options_.working_set_bytes == 0) {
        throw ContractError("cache rotate needs a workload that provides input copies "
                            "(rotation_copies >= 2) and states its working set in bytes");
      }
      const double covered = static_cast<double>(options_.rotation_copies) *
                             static_cast<double>(options_.working_set_bytes);
      if (covered < 2.0 * static_cast<double>(llc)) {
        throw ContractError(fmt::format(
            "cache rotate needs >= 2x the last-level cache ({} bytes) of distinct inputs; the "
            "workload cycles through {} copies x {} bytes",
            2 * llc, options_.rotation_copies, options_.working_set_bytes));
      }
      rotation_copies_ = options_.rotation_copies;
      r.rotation_copies = rotation_copies_;
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
    if (contract_.quantity == Quantity::device_time) timer_ = backend_.make_timer_for(contract_);
    if (options_.keep_activity_tracing_on && contract_.instrument != Instrument::cupti) {
      tracing_ = backend_.keep_activity_tracing_on();
    }
    r.instrument.kernel_tracing =
        (contract_.instrument == Instrument::cupti && contract_.quantity == Quantity::device_time) ||
        tracing_ != nullptr;
  }

  void start_telemetry(Result& r) {
    if (!options_.telemetry) {
      r.telemetry = telemetry_unavailable("not requested");
      return;
    }
    if (!(options_.telemetry_period_ms > 0)) {
      throw ContractError(fmt::format("the telemetry period must be > 0 ms (got {})",
                                      options_.telemetry_period_ms));
    }
    std::string why;
    TelemetryReader* reader = backend_.telemetry(&why);
    if (!reader) {
      r.telemetry = telemetry_unavailable(why);
      return;
    }
    sm_clock_max_mhz_ = reader->sm_clock_max_mhz() > 0 ? reader->sm_clock_max_mhz()
                                                       : backend_.device().sm_clock_max_mhz;
    sampler_ = std::make_unique<TelemetrySampler>(*reader, clock_, options_.telemetry_period_ms,
                                                  options_.telemetry_pacer);
    sampler_->start();
  }

  LaunchContext next_context() {
    LaunchContext ctx;
    ctx.stream = backend_.stream();
    ctx.call_index = call_index_++;
    ctx.rotation = rotation_copies_ > 1 ? rotation_cursor_++ % rotation_copies_ : 0;
    return ctx;
  }

  void prepare_call() {
    if (options_.prepare) options_.prepare();
    if (contract_.cache == CachePolicy::cold) backend_.flush_cache();
  }

  void warm_up() {
    for (std::int64_t i = 0; i < contract_.warmup; ++i) {
      prepare_call();
      call_(next_context());
    }
    backend_.synchronize_device();
    backend_.check_errors();
  }

  // Graph g holds calls g*N .. g*N+N-1 of the rotation; with cache=rotate there are enough graphs
  // to cover every input copy once, replayed round-robin. With cache=cold and N > 1 the flush is
  // captured before each call (only the cupti instrument may time such a graph; the contract
  // enforces it); with N = 1 it runs before each replay, outside the window, like an eager call's.
  void capture_graphs() {
    const auto n = static_cast<std::size_t>(contract_.graph_calls);
    const std::size_t count = rotation_copies_ > 1 ? (rotation_copies_ + n - 1) / n : 1;
    for (std::size_t g = 0; g < count; ++g) {
      // By value: a backend may keep the recorder and replay it after this frame is gone (the
      // scripted device of the integrity tests does).
      graphs_.push_back(backend_.capture_graph([this, g, n] {
        for (std::size_t j = 0; j < n; ++j) {
          if (contract_.cache == CachePolicy::cold && n > 1) backend_.flush_cache();
          LaunchContext ctx = next_context();
          if (rotation_copies_ > 1) ctx.rotation = (g * n + j) % rotation_copies_;
          call_(ctx);
        }
      }));
      if (hooks_.on_graph_captured) hooks_.on_graph_captured(*graphs_.back(), n);
    }
    for (auto& graph : graphs_) graph->launch();  // upload + first replay, untimed
    backend_.synchronize_device();
    backend_.check_errors();
  }

  void stop_window(std::size_t i) {
    if (timer_->reads_host_clock()) backend_.synchronize_device();
    timer_->stop(i);
  }

  // Runs `count` samples (pipelined: one window of `count` calls) and returns their durations.
  // verified: the batch is verified sample `stage` (count 1, or the one pipelined window): the
  // integrity layer prepares it outside every window, it uses input copy 0 (so that the verified
  // output is copy 0's), and the layer judges it once the batch has synchronized.
  std::vector<double> run_batch(std::size_t count, bool verified = false, std::size_t stage = 0) {
    if (verified) {
      hooks_.before_verified_sample(stage);
      rotation_cursor_ = 0;
    }
    std::vector<double> d = run_schedule(count, verified);
    if (verified && hooks_.after_verified_sample) hooks_.after_verified_sample(stage);
    return d;
  }

  std::vector<double> run_schedule(std::size_t count, bool verified) {
    if (contract_.quantity == Quantity::host_dispatch) return run_host_dispatch(count);
    std::vector<double> d;
    std::vector<double> begins;  // host time each window opened; closed by the batch's sync
    begins.reserve(count);
    switch (contract_.schedule) {
      case Schedule::isolated:
        timer_->reset(count);
        for (std::size_t i = 0; i < count; ++i) {
          prepare_call();
          backend_.synchronize_device();
          const LaunchContext ctx = next_context();
          const double begin_us = clock_.now_us();
          timer_->start(i);
          call_(ctx);
          stop_window(i);
          backend_.synchronize_device();
          windows_us_.push_back({begin_us, clock_.now_us()});
        }
        timed_calls_ += count;
        d = collect(count);
        break;
      case Schedule::per_iter:
        timer_->reset(count);
        for (std::size_t i = 0; i < count; ++i) {
          prepare_call();
          const LaunchContext ctx = next_context();
          begins.push_back(clock_.now_us());
          timer_->start(i);
          call_(ctx);
          stop_window(i);
        }
        backend_.synchronize_device();
        close_windows(begins);
        timed_calls_ += count;
        d = collect(count);
        break;
      case Schedule::pipelined: {
        timer_->reset(1);
        begins.push_back(clock_.now_us());
        timer_->start(0);
        for (std::size_t c = 0; c < count; ++c) call_(next_context());
        stop_window(0);
        backend_.synchronize_device();
        close_windows(begins);
        timed_calls_ += count;
        d = collect(1);
        d[0] /= static_cast<double>(count);
        break;
      }
      case Schedule::graph: {
        timer_->reset(count);
        const bool flush_per_replay = contract_.cache == CachePolicy::cold && contract_.graph_calls == 1;
        for (std::size_t i = 0; i < count; ++i) {
          if (flush_per_replay) backend_.flush_cache();
          begins.push_back(clock_.now_us());
          timer_->start(i);
          graphs_[verified ? 0 : i % graphs_.size()]->launch();
          stop_window(i);
        }
        backend_.synchronize_device();
        close_windows(begins);
        const auto n = static_cast<std::size_t>(contract_.graph_calls);
        timed_calls_ += count * n;
        d = collect(count);
        for (double& x : d) x /= static_cast<double>(n);
        break;
      }
    }
    return d;
  }

  // Without a sync per call, a sample's work may run any time until the batch's sync returns.
  void close_windows(const std::vector<double>& begins) {
    const double end_us = clock_.now_us();
    for (double b : begins) windows_us_.push_back({b, end_us});
  }

  std::vector<double> collect(std::size_t count) {
    backend_.check_errors();
    return timer_->collect_us(count);
  }

  // Host clock around the launch only; the device is drained after the timer stops.
  std::vector<double> run_host_dispatch(std::size_t count) {
    std::vector<double> d(count);
    for (std::size_t i = 0; i < count; ++i) {
      prepare_call();
      backend_.synchronize_device();
      const LaunchContext ctx = next_context();
      const double t0 = clock_.now_us();
      call_(ctx);
      const double t1 = clock_.now_us();
      backend_.synchronize_device();
      d[i] = t1 - t0;
      windows_us_.push_back({t0, clock_.now_us()});
    }
    backend_.check_errors();
    timed_calls_ += count;
    return d;
  }

  std::vector<double> sample(double sampling_begin_us, Result& r) {
    const IterationRule& rule = contract_.iterations;
    const std::size_t verified = hooks_.before_verified_sample ? std::max<std::size_t>(1, hooks_.verified_samples) : 0;
    auto run_verified = [&](std::vector<double>& all, std::size_t stages) {
      for (std::size_t k = 0; k < stages; ++k) {
        auto d = run_batch(1, true, k);
        all.insert(all.end(), d.begin(), d.end());
      }
    };
    if (rule.mode == IterationRule::Mode::fixed) {
      r.stop_reason = "fixed count";
      const auto count = static_cast<std::size_t>(rule.count);
      if (contract_.schedule == Schedule::pipelined) return run_batch(count, verified > 0, 0);
      // The last samples are the verified ones: the fixed count stays what the contract says.
      const std::size_t stages = std::min(verified, count);
      const std::size_t regular = count - stages;
      std::vector<double> all;
      all.reserve(count);
      for (std::size_t done = 0; done < regular;) {
        const std::size_t batch = std::min(kMaxBatch, regular - done);
        auto d = run_batch(batch);
        all.insert(all.end(), d.begin(), d.end());
        done += batch;
      }
      run_verified(all, stages);
      return all;
    }
    std::vector<double> all = sample_adaptive(sampling_begin_us, r);
    run_verified(all, verified);
    return all;
  }

  // docs/iteration-rule.md describes this rule.
  std::vector<double> sample_adaptive(double begin_us, Result& r) {
    const IterationRule& rule = contract_.iterations;
    const auto min_samples = static_cast<std::size_t>(rule.min_samples);
    const double max_us = rule.max_time_ms * 1000.0;
    const double min_us = rule.min_time_ms * 1000.0;
    std::vector<double> all;
    std::vector<double> sorted;
    double achieved = 0;
    while (true) {
      const double elapsed = clock_.now_us() - begin_us;
      std::size_t batch;
      if (all.empty()) {
        batch = 1;  // measures the cost of one sample before committing to more
      } else {
        const double per_sample = std::max(elapsed / static_cast<double>(all.size()), 1e-3);
        const double affordable = std::max(1.0, std::floor((max_us - elapsed) / per_sample));
        const std::size_t wanted = std::max(min_samples > all.size() ? min_samples - all.size() : 0,
                                            std::max<std::size_t>(1, all.size() / 2));
        batch = std::min({wanted, static_cast<std::size_t>(std::min(affordable, 1e9)), kMaxBatch,
                          kMaxSamples - all.size()});
        batch = std::max<std::size_t>(batch, 1);
      }
      auto d = run_batch(batch);
      all.insert(all.end(), d.begin(), d.end());

      const double now_elapsed = clock_.now_us() - begin_us;
      sorted = all;
      std::sort(sorted.begin(), sorted.end());
      const double med = quantile_sorted(sorted, 0.5);
      const Interval ci = median_ci_order_statistics(sorted, 0.95);
      achieved = med > 0 ? (ci.hi - ci.lo) / 2.0 / med : 0.0;
      const bool enough = all.size() >= min_samples && now_elapsed >= min_us;
      if (enough && achieved <= rule.target_rel_halfwidth) {
        r.stop_reason = "target precision reached";
        return all;
      }
      if (now_elapsed >= max_us || all.size() >= kMaxSamples) {
        r.stop_reason = "max time reached";
        if (all.size() < min_samples) {
          r.warnings.push_back(fmt::format("max time {} ms reached with only {} of {} minimum samples",
                                           rule.max_time_ms, all.size(), min_samples));
        } else {
          r.warnings.push_back(fmt::format(
              "max time {} ms reached before the median's 95% CI narrowed to +/-{:.3g}% (reached "
              "+/-{:.3g}%)",
              rule.max_time_ms, rule.target_rel_halfwidth * 100.0, achieved * 100.0));
        }
        return all;
      }
    }
  }

  void finish(Result& r, std::vector<double>& samples, const std::vector<TelemetrySample>& readings) {
    for (double x : samples) {
      if (!std::isfinite(x) || x < 0) {
        throw DeviceError(fmt::format("the timer returned an invalid duration ({} us)", x));
      }
    }
    const bool too_many_flagged = apply_throttle_policy(r, samples, readings);
    r.summary = summarize(samples);
    r.value_us = apply_statistic(contract_.statistic, samples);
    const bool spread_ok = is_stable(r.summary);
    r.stable = spread_ok && !too_many_flagged;
    std::vector<double> sorted = samples;
    std::sort(sorted.begin(), sorted.end());
    const Interval ci = median_ci_order_statistics(sorted, kAdaptiveRuleConfidence);
    if (std::isfinite(ci.lo) && std::isfinite(ci.hi)) r.median_ci95_us = ci;
    if (!spread_ok) {
      r.flags.emplace_back(kFlagUnstableSpread);
      r.warnings.push_back(fmt::format("unstable: p90/p10 = {:.3f} > 1.2",
                                       r.summary.p10_us > 0 ? r.summary.p90_us / r.summary.p10_us
                                                            : INFINITY));
    }
    if (!r.median_ci95_us && contract_.schedule != Schedule::pipelined) {  // pipelined: one mean
      r.warnings.push_back(fmt::format("precision not established: no 95% confidence interval of the "
                                       "median exists below {} samples (n = {})",
                                       min_samples_for_median_ci(kAdaptiveRuleConfidence), r.summary.n));
    }
    // The stopping rule judged the samples it took; throttle policy discard may have removed some
    // since. A claim the remaining samples do not support is withdrawn.
    const double precision = median_ci_rel_halfwidth(sorted, kAdaptiveRuleConfidence);
    if (r.stop_reason == "target precision reached" &&
        !(precision <= contract_.iterations.target_rel_halfwidth)) {
      r.stop_reason = "precision not established";
      if (r.median_ci95_us) {
        // The verified samples that follow the rule (docs/integrity.md) can move the interval
        // just past the target: enough digits to show which way.
        const auto [reached, target] =
            distinct_texts(precision * 100.0, contract_.iterations.target_rel_halfwidth * 100.0);
        r.warnings.push_back(fmt::format(
            "precision not established: the {} samples reported{} give a median 95% CI of +/-{}%, "
            "the target is +/-{}%",
            r.summary.n,
            r.telemetry.discarded_samples > 0
                ? fmt::format(" (after {} throttled ones were discarded)", r.telemetry.discarded_samples)
                : "",
            reached, target));
      }
    }
    if (contract_.schedule != Schedule::pipelined && r.summary.n < 10) {
      r.warnings.push_back(fmt::format("few samples (n = {}): quantiles are coarse", r.summary.n));
    }
    add_notes(r);
    if (timer_) timer_->annotate(r);
    if (options_.keep_samples) r.samples_us = std::move(samples);
  }

  // Flags samples that may have run throttled and applies the contract's throttle policy
  // (docs/telemetry.md). Returns true when too many samples were flagged for a stable result.
  bool apply_throttle_policy(Result& r, std::vector<double>& samples,
                             const std::vector<TelemetrySample>& readings) {
    if (!sampler_) return false;  // r.telemetry already says why there is none
    const ThrottleRule& rule = options_.throttle_rule;
    r.telemetry = summarize_telemetry(readings, options_.telemetry_period_ms, sm_clock_max_mhz_, rule);
    if (!sampler_->error().empty()) {
      r.warnings.push_back(fmt::format("telemetry stopped early after {} readings: {}", readings.size(),
                                       sampler_->error()));
    }
    if (options_.keep_telemetry_samples) r.telemetry_samples = readings;

    std::vector<SampleWindow> windows;
    windows.reserve(windows_us_.size());
    const double origin_us = sampler_->origin_us();
    for (const auto& [b, e] : windows_us_) windows.push_back({(b - origin_us) / 1000.0, (e - origin_us) / 1000.0});
    if (windows.size() != samples.size()) {
      throw std::logic_error(fmt::format("measure: {} sample windows for {} samples", windows.size(),
                                         samples.size()));
    }
    const std::vector<bool> flags = flag_throttled_samples(windows, readings, sm_clock_max_mhz_, rule);
    const auto flagged = static_cast<std::int64_t>(std::count(flags.begin(), flags.end(), true));
    r.telemetry.flagged_samples = flagged;
    if (flagged == 0) return false;

    // The power and thermal reasons reported while the samples ran are flags, not only words.
    const std::uint64_t reasons = throttle_reasons_during(windows, readings, rule);
    for (const std::string& name : throttle_reason_names(reasons)) r.flags.push_back(throttled_flag(name));
    int lowest_mhz = -1;
    for (const TelemetrySample& t : readings) {
      if (!reading_is_throttled(t, sm_clock_max_mhz_, rule)) continue;
      if (t.sm_clock_mhz >= 0 && (lowest_mhz < 0 || t.sm_clock_mhz < lowest_mhz)) lowest_mhz = t.sm_clock_mhz;
    }
    const auto total = static_cast<std::int64_t>(samples.size());
    const std::string what = fmt::format(
        "{} of {} samples may have run throttled (reasons: {}; lowest SM clock {} MHz of {} MHz, "
        "threshold {:g}%)",
        flagged, total, describe_throttle_reasons(reasons), lowest_mhz, sm_clock_max_mhz_,
        rule.min_sm_clock_fraction * 100.0);
    switch (contract_.throttle_policy) {
      case ThrottlePolicy::fail:
        throw DeviceError("throttle policy fail: " + what);
      case ThrottlePolicy::discard: {
        if (flagged == total) {
          throw DeviceError("throttle policy discard: every sample was flagged, nothing is left to "
                            "report: " + what);
        }
        std::vector<double> kept;
        kept.reserve(samples.size());
        for (std::size_t i = 0; i < samples.size(); ++i) {
          if (!flags[i]) kept.push_back(samples[i]);
        }
        samples = std::move(kept);
        r.telemetry.discarded_samples = flagged;
        r.warnings.push_back("throttle policy discard: " + what + "; they were discarded");
        break;
      }
      case ThrottlePolicy::flag:
        r.warnings.push_back(what);
        break;
    }
    const bool too_many = static_cast<double>(flagged) > rule.max_flagged_fraction * static_cast<double>(total);
    if (too_many) {
      r.flags.emplace_back(kFlagUnstableThrottled);
      r.warnings.push_back(fmt::format("not stable: more than {:g}% of the samples were flagged as throttled",
                                       rule.max_flagged_fraction * 100.0));
    }
    return too_many;
  }

  void add_notes(Result& r) {
    const Contract& c = contract_;
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

  Backend& backend_;
  const Callable& call_;
  const Contract& contract_;
  const MeasureOptions& options_;
  const detail::MeasurementHooks& hooks_;
  Clock& clock_;
  std::unique_ptr<SampleTimer> timer_;
  std::unique_ptr<ActivityTracing> tracing_;
  std::unique_ptr<TelemetrySampler> sampler_;
  int sm_clock_max_mhz_ = 0;
  std::vector<std::pair<double, double>> windows_us_;  // per sample: host begin, host end
  std::vector<std::unique_ptr<GraphExec>> graphs_;
  std::size_t rotation_copies_ = 0;
  std::size_t rotation_cursor_ = 0;
  std::size_t call_index_ = 0;
  std::uint64_t timed_calls_ = 0;
};

}  // namespace

std::unique_ptr<GraphExec> Backend::capture_graph(const std::function<void()>&) {
  throw ContractError(fmt::format("the {} backend cannot capture graphs", to_string(kind())));
}

std::unique_ptr<ActivityTracing> Backend::keep_activity_tracing_on() {
  throw ContractError(fmt::format("the {} backend has no kernel activity tracing", to_string(kind())));
}

TelemetryReader* Backend::telemetry(std::string* why_unavailable) {
  if (why_unavailable) {
    *why_unavailable = fmt::format("the {} backend has no device telemetry", to_string(kind()));
  }
  return nullptr;
}

namespace detail {

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
                       const MeasureOptions& options, const MeasurementHooks& hooks) {
  validate_measurement(backend, contract, options);
  return Engine(backend, call, contract, options, hooks).run();
}

}  // namespace detail

std::size_t rotation_copies_needed(std::uint64_t working_set_bytes, std::uint64_t llc_bytes) {
  if (working_set_bytes == 0) return 2;
  const std::uint64_t needed = (2 * llc_bytes + working_set_bytes - 1) / working_set_bytes;
  return static_cast<std::size_t>(std::max<std::uint64_t>(2, needed));
}

}  // namespace caliber
