// The measurement contract: everything that decides what a timing number means.
//
// A Contract is validated at the entry point (validate / why_invalid). Impossible combinations
// are refused with a reason, never turned into a plausible-looking number. docs/contract.md
// explains every field and every refusal; core/contract_fields.h lists them for every projection.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace caliber {

enum class BackendKind { host, cuda };

// What is measured. device_time: the time the work takes (on the device, or on the host for the
// host backend). host_dispatch: host clock around the launch only; the device is drained after the
// timer stops, so this is the caller's dispatch cost, not the work's duration.
enum class Quantity { device_time, host_dispatch };

// The clock the samples come from.
enum class Instrument {
  cupti,      // kernel durations from CUPTI activity records (cuda)
  event,      // device events recorded on the launching stream (cuda)
  wallclock,  // host steady clock (host backend; host-dispatch; cuda isolated = launch+run+sync)
};

// The loop shape.
enum class Schedule {
  isolated,   // per call: prepare -> full-device sync -> start -> call -> stop -> sync
  per_iter,   // start/stop around each call, no sync between calls, one sync at the end
  pipelined,  // one start/stop around N calls; one sample = total / N (only the mean exists)
  graph,      // N calls captured into a device graph, replayed R times; sample = replay / N
};

// What the caches hold when a call starts.
enum class CachePolicy {
  warm,    // nothing between calls
  cold,    // a buffer >= 2x the last-level cache is overwritten before each call, outside the window
  rotate,  // calls cycle through enough copies of the inputs that no call finds its data cached
};

// How CUPTI kernel records of one sample are reduced to one duration.
enum class CuptiReduction {
  busy,  // union of kernel intervals (overlapping kernels counted once)
  sum,   // sum of kernel durations
  span,  // first kernel start to last kernel end
};

// With instrument cupti, which clock gives the reported value (docs/cupti.md, "Perturbation").
// CUPTI's activity tracing slows some kernels (many blocks, on Hopper: it instruments them), so a
// cupti measurement is paired with the same measurement under events with tracing off.
//   auto  - the events' value when the call's work is all ordered on the measured stream and the
//           two medians' 95% intervals do not overlap; else CUPTI's (the default, as asked);
//   cupti - always CUPTI's; event - always the events' (refused when events cannot see the work).
// A result's contract records the clock that produced its value: cupti or event, never auto.
enum class CuptiValue { automatic, cupti, event };

// What happens to samples taken while the device was throttling.
enum class ThrottlePolicy { flag, discard, fail };

// The input values of the timed calls (docs/integrity.md, "Fresh inputs"):
//   fresh - every timed call runs on values drawn for it, so no call can reuse another's work;
//   fixed - every timed call sees the same values (asked for, or the callable gives no way to
//           draw them; the fresh_inputs check says why).
// A result's contract records what its timed calls saw: a contract asking for fresh inputs that
// could not have them says fixed. A warm small-kernel number differs between the two
// (docs/integrity.md, "What it costs"), so two results compare only with the same value.
enum class InputValues { fresh, fixed };

// The reported statistic: median (default), mean, min, or a quantile pNN.
struct Statistic {
  enum class Kind { median, mean, min, quantile };
  Kind kind = Kind::median;
  double quantile = 0.5;  // in (0, 1); used when kind == quantile

  std::string name() const;  // "median", "mean", "min", "p90", "p99.9"
  friend bool operator==(const Statistic&, const Statistic&) = default;
};

// When sampling stops. docs/iteration-rule.md documents the adaptive rule.
struct IterationRule {
  enum class Mode { fixed, adaptive };
  Mode mode = Mode::adaptive;
  // fixed: number of samples (isolated, per_iter, graph replays) or of calls inside the one
  // window (pipelined).
  std::int64_t count = 100;
  // adaptive: stop once n >= min_samples, the loop has run >= min_time_ms of host wall time, and
  // the 95% confidence interval of the median is narrower than +/- target_rel_halfwidth of the
  // median; or unconditionally once max_time_ms of host wall time is spent.
  std::int64_t min_samples = 20;
  double min_time_ms = 20.0;     // milliseconds
  double max_time_ms = 1000.0;   // milliseconds
  double target_rel_halfwidth = 0.005;  // 0.005 = +/-0.5% of the median

  std::string describe() const;  // "fixed:100" or "adaptive:min_samples=20,min_time_ms=20,..."
  friend bool operator==(const IterationRule&, const IterationRule&) = default;
};

struct Contract {
  BackendKind backend = BackendKind::host;
  Quantity quantity = Quantity::device_time;
  Instrument instrument = Instrument::wallclock;
  Schedule schedule = Schedule::isolated;
  CachePolicy cache = CachePolicy::warm;
  Statistic statistic{};
  std::int64_t warmup = 10;        // untimed calls before sampling; >= 1 (the first call is never timed)
  IterationRule iterations{};
  std::int64_t graph_calls = 20;   // calls captured per graph (schedule graph)
  CuptiReduction cupti_reduction = CuptiReduction::busy;  // used with instrument cupti
  CuptiValue cupti_value = CuptiValue::automatic;         // used with instrument cupti
  ThrottlePolicy throttle_policy = ThrottlePolicy::flag;
  InputValues inputs = InputValues::fresh;

  friend bool operator==(const Contract&, const Contract&) = default;
};

// The default contract of a backend: cuda = event / per_iter / cold / median (per-call device
// time, no launch gaps, flush outside the window); host = wallclock / isolated / cold / median.
Contract default_contract(BackendKind backend);

// The first reason this contract cannot be measured, or nothing when it can.
// per_call_prepare: the workload asks for a preparation step before every call.
std::optional<std::string> why_invalid(const Contract& contract, bool per_call_prepare = false);

// Throws ContractError with why_invalid's reason.
void validate(const Contract& contract, bool per_call_prepare = false);

// Names, exactly as written in files and on the command line.
std::string_view to_string(BackendKind v);
std::string_view to_string(Quantity v);
std::string_view to_string(Instrument v);
std::string_view to_string(Schedule v);
std::string_view to_string(CachePolicy v);
std::string_view to_string(CuptiReduction v);
std::string_view to_string(CuptiValue v);
std::string_view to_string(ThrottlePolicy v);
std::string_view to_string(InputValues v);

// Parsers. Unknown names throw UsageError listing the accepted values.
BackendKind parse_backend(std::string_view s);
Quantity parse_quantity(std::string_view s);
Instrument parse_instrument(std::string_view s);
Schedule parse_schedule(std::string_view s);
CachePolicy parse_cache_policy(std::string_view s);
CuptiReduction parse_cupti_reduction(std::string_view s);
CuptiValue parse_cupti_value(std::string_view s);  // auto | cupti | event
ThrottlePolicy parse_throttle_policy(std::string_view s);
InputValues parse_input_values(std::string_view s);  // fresh | fixed
Statistic parse_statistic(std::string_view s);  // median | mean | min | pNN (0 < NN < 100)
// The inverse of IterationRule::describe(): "fixed:N" or "adaptive:min_samples=N,min_time_ms=T,
// max_time_ms=T,target_rel_halfwidth=F" (keys in that order). Validity is why_invalid's business.
IterationRule parse_iteration_rule(std::string_view s);

}  // namespace caliber
