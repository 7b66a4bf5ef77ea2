// Results rows of the multi-shape runner: status names, the status rules, what a row reports.
#include "results/benchmark_results.h"

#include <array>

#include <fmt/format.h>

#include "core/enum_names.h"
#include "core/result_flags.h"

namespace caliber {
namespace {

using nlohmann::json;

constexpr NameTable<BenchmarkStatus, 8> kStatuses{{{BenchmarkStatus::ok, "ok"},
                                                   {BenchmarkStatus::failed, "failed"},
                                                   {BenchmarkStatus::skipped, "skipped"},
                                                   {BenchmarkStatus::oom, "oom"},
                                                   {BenchmarkStatus::unsupported, "unsupported"},
                                                   {BenchmarkStatus::incorrect, "incorrect"},
                                                   {BenchmarkStatus::not_configured, "not_configured"},
                                                   {BenchmarkStatus::faster_than_physical, "faster_than_physical"}}};

constexpr NameTable<CaptureFailureClass, 4> kCaptureFailureClasses{
    {{CaptureFailureClass::recoverable, "recoverable"},
     {CaptureFailureClass::fatal_device_fault, "fatal_device_fault"},
     {CaptureFailureClass::poisoned_context, "poisoned_context"},
     {CaptureFailureClass::capture_denied, "capture_denied"}}};

constexpr NameTable<ConfigPinning, 3> kConfigPinnings{{{ConfigPinning::recorded, "recorded"},
                                                     {ConfigPinning::replayed, "replayed"},
                                                     {ConfigPinning::not_in_replay_source, "not_in_replay_source"}}};

}  // namespace

std::optional<std::pair<std::string, std::string>> status_rule_violation(const StatusFacts& r) {
  using V = std::optional<std::pair<std::string, std::string>>;
  const BenchmarkStatus s = r.status;
  if (s == BenchmarkStatus::ok) {
    if (r.correct != true) return V({"correct", "must be true when benchmark_status is ok"});
    if (!r.has_median) return V({"median_us", "must be a number when benchmark_status is ok"});
    if (r.has_status_reason) return V({"status_reason", "must be null when benchmark_status is ok"});
  } else if (!r.has_status_reason) {
    return V({"status_reason", fmt::format("must say why when benchmark_status is {}", to_string(s))});
  }
  if (s == BenchmarkStatus::incorrect) {
    if (r.correct != false) return V({"correct", "must be false when benchmark_status is incorrect"});
    if (!r.has_correctness_error) return V({"correctness_error", "must say why when benchmark_status is incorrect"});
  }
  if (s == BenchmarkStatus::unsupported || s == BenchmarkStatus::not_configured || s == BenchmarkStatus::skipped) {
    if (r.correct) return V({"correct", fmt::format("must be null when benchmark_status is {}", to_string(s))});
    if (r.has_median) return V({"median_us", fmt::format("must be null when benchmark_status is {}", to_string(s))});
  }
  return std::nullopt;
}

std::string_view to_string(CaptureFailureClass c) { return name_of(kCaptureFailureClasses, c); }
CaptureFailureClass parse_capture_failure_class(std::string_view s) {
  return parse_name(kCaptureFailureClasses, s, "capture failure class");
}
std::string_view to_string(ConfigPinning p) { return name_of(kConfigPinnings, p); }
ConfigPinning parse_config_pinning(std::string_view s) { return parse_name(kConfigPinnings, s, "config pinning"); }

std::string_view to_string(BenchmarkStatus s) { return name_of(kStatuses, s); }
BenchmarkStatus parse_benchmark_status(std::string_view s) {
  return parse_name(kStatuses, s, "benchmark status");
}
const std::vector<BenchmarkStatus>& all_benchmark_statuses() {
  static const std::vector<BenchmarkStatus> all = {
      BenchmarkStatus::ok,          BenchmarkStatus::failed,    BenchmarkStatus::skipped,
      BenchmarkStatus::oom,         BenchmarkStatus::unsupported, BenchmarkStatus::incorrect,
      BenchmarkStatus::not_configured, BenchmarkStatus::faster_than_physical};
  return all;
}

const Result* primary_measurement(const BenchmarkResultRow& r) {
  if (r.kernel_only) return &*r.kernel_only;
  if (r.eager) return &*r.eager;
  return nullptr;
}

std::vector<std::string> row_flags(const BenchmarkResultRow& r) {
  const Result* primary = primary_measurement(r);
  return primary ? primary->flags : std::vector<std::string>{};
}

std::string row_instability_reason(const BenchmarkResultRow& r) {
  if (r.stable != false) return "";
  // The row's quantiles (those of its primary measurement) with that measurement's flags and
  // throttle counts; a row without a kept measurement has its quantiles only.
  Result seen;
  if (const Result* primary = primary_measurement(r)) {
    seen.summary = primary->summary;
    seen.flags = primary->flags;
    seen.telemetry = primary->telemetry;
  }
  if (r.p10_us) seen.summary.p10_us = *r.p10_us;
  if (r.p90_us) seen.summary.p90_us = *r.p90_us;
  return instability_reason(seen);
}

const std::array<CellPhaseField, 7>& cell_phase_fields() {
  static const std::array<CellPhaseField, 7> fields = {{
      {"inputs", &CellPhases::inputs_ms},
      {"reference", &CellPhases::reference_ms},
      {"correctness", &CellPhases::correctness_ms},
      {"untimed_check", &CellPhases::untimed_check_ms},
      {"timing", &CellPhases::timing_ms},
      {"fresh_inputs", &CellPhases::fresh_inputs_ms},
      {"other", &CellPhases::other_ms},
  }};
  return fields;
}

}  // namespace caliber
