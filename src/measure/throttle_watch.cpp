// The device telemetry of a measurement (docs/telemetry.md): the backend's reader sampled in the
// background while the measurement runs, the samples whose windows saw a throttled reading
// flagged, and the contract's throttle policy applied to them.
#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "caliber/errors.h"
#include "core/result_flags.h"
#include "measure/sample_telemetry.h"
#include "telemetry/telemetry_sampler.h"

namespace caliber::measurement {
namespace {

class ThrottleWatch final : public SampleTelemetry {
 public:
  ThrottleWatch(TelemetryReader& reader, Clock& clock, int sm_clock_max_mhz, const Contract& contract,
                const MeasureOptions& options)
      : sampler_(reader, clock, options.telemetry_period_ms, options.telemetry_pacer),
        sm_clock_max_mhz_(sm_clock_max_mhz),
        policy_(contract.throttle_policy),
        rule_(options.throttle_rule),
        period_ms_(options.telemetry_period_ms),
        keep_readings_(options.keep_telemetry_samples) {}

  void start() override { sampler_.start(); }
  void stop() override { readings_ = sampler_.stop(); }

  bool judge(Result& r, std::vector<double>& samples, std::span<const HostWindow> windows_us) override {
    r.telemetry = summarize_telemetry(readings_, period_ms_, sm_clock_max_mhz_, rule_);
    if (!sampler_.error().empty()) {
      r.warnings.push_back(fmt::format("telemetry stopped early after {} readings: {}", readings_.size(),
                                       sampler_.error()));
    }
    if (keep_readings_) r.telemetry_samples = readings_;
    const std::vector<SampleWindow> windows = on_telemetry_time(windows_us, samples.size());
    const std::vector<bool> flags = flag_throttled_samples(windows, readings_, sm_clock_max_mhz_, rule_);
    const auto flagged = static_cast<std::int64_t>(std::count(flags.begin(), flags.end(), true));
    r.telemetry.flagged_samples = flagged;
    if (flagged == 0) return false;
    // The power and thermal reasons reported while the samples ran are flags, not only words.
    const std::uint64_t reasons = throttle_reasons_during(windows, readings_, rule_);
    for (const std::string& name : throttle_reason_names(reasons)) r.flags.push_back(throttled_flag(name));
    const std::string what = fmt::format(
        "{} of {} samples may have run throttled (reasons: {}; lowest SM clock {} MHz of {} MHz, "
        "threshold {:g}%)",
        flagged, samples.size(), describe_throttle_reasons(reasons), lowest_throttled_clock_mhz(), sm_clock_max_mhz_,
        rule_.min_sm_clock_fraction * 100.0);
    apply_policy(r, samples, flags, flagged, what);
    const bool too_many =
        static_cast<double>(flagged) > rule_.max_flagged_fraction * static_cast<double>(flags.size());
    if (too_many) {
      r.flags.emplace_back(kFlagUnstableThrottled);
      r.warnings.push_back(fmt::format("not stable: more than {:g}% of the samples were flagged as throttled",
                                       rule_.max_flagged_fraction * 100.0));
    }
    return too_many;
  }

 private:
  // The samples' host windows in milliseconds since the sampler's first reading.
  std::vector<SampleWindow> on_telemetry_time(std::span<const HostWindow> windows_us, std::size_t samples) const {
    if (windows_us.size() != samples) {
      throw std::logic_error(fmt::format("measure: {} sample windows for {} samples", windows_us.size(), samples));
    }
    std::vector<SampleWindow> windows;
    windows.reserve(windows_us.size());
    const double origin_us = sampler_.origin_us();
    for (const HostWindow& w : windows_us) {
      windows.push_back({(w.begin_us - origin_us) / 1000.0, (w.end_us - origin_us) / 1000.0});
    }
    return windows;
  }

  int lowest_throttled_clock_mhz() const {
    int lowest_mhz = -1;
    for (const TelemetrySample& t : readings_) {
      if (!reading_is_throttled(t, sm_clock_max_mhz_, rule_)) continue;
      if (t.sm_clock_mhz >= 0 && (lowest_mhz < 0 || t.sm_clock_mhz < lowest_mhz)) lowest_mhz = t.sm_clock_mhz;
    }
    return lowest_mhz;
  }

  void apply_policy(Result& r, std::vector<double>& samples, const std::vector<bool>& flags, std::int64_t flagged,
                    const std::string& what) const {
    switch (policy_) {
      case ThrottlePolicy::fail:
        throw DeviceError("throttle policy fail: " + what);
      case ThrottlePolicy::discard: {
        if (static_cast<std::size_t>(flagged) == samples.size()) {
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
  }

  TelemetrySampler sampler_;
  int sm_clock_max_mhz_;
  ThrottlePolicy policy_;
  ThrottleRule rule_;
  double period_ms_;
  bool keep_readings_;
  std::vector<TelemetrySample> readings_;
};

}  // namespace

std::unique_ptr<SampleTelemetry> watch_device_telemetry(Backend& backend, Clock& clock, const Contract& contract,
                                                        const MeasureOptions& options, Result& r) {
  if (!options.telemetry) {
    r.telemetry = telemetry_unavailable("not requested");
    return nullptr;
  }
  if (!(options.telemetry_period_ms > 0)) {
    throw ContractError(
        fmt::format("the telemetry period must be > 0 ms (got {})", options.telemetry_period_ms));
  }
  std::string why;
  TelemetryReader* reader = backend.telemetry(&why);
  if (!reader) {
    r.telemetry = telemetry_unavailable(why);
    return nullptr;
  }
  const int sm_clock_max_mhz =
      reader->sm_clock_max_mhz() > 0 ? reader->sm_clock_max_mhz() : backend.device().sm_clock_max_mhz;
  return std::make_unique<ThrottleWatch>(*reader, clock, sm_clock_max_mhz, contract, options);
}

}  // namespace caliber::measurement
