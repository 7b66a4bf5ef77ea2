#include "caliber/contract.h"

#include <array>
#include <charconv>
#include <cmath>
#include <utility>

#include <fmt/format.h>

#include "caliber/errors.h"
#include "caliber/statistics.h"
#include "core/enum_names.h"
#include "core/iteration_bounds.h"
#include "core/number_text.h"

namespace caliber {
namespace {

constexpr NameTable<BackendKind, 2> kBackends{{{BackendKind::host, "host"}, {BackendKind::cuda, "cuda"}}};
constexpr NameTable<Quantity, 2> kQuantities{
    {{Quantity::device_time, "device_time"}, {Quantity::host_dispatch, "host_dispatch"}}};
constexpr NameTable<Instrument, 3> kInstruments{{{Instrument::cupti, "cupti"},
                                                 {Instrument::event, "event"},
                                                 {Instrument::wallclock, "wallclock"}}};
constexpr NameTable<Schedule, 4> kSchedules{{{Schedule::isolated, "isolated"},
                                             {Schedule::per_iter, "per_iter"},
                                             {Schedule::pipelined, "pipelined"},
                                             {Schedule::graph, "graph"}}};
constexpr NameTable<CachePolicy, 3> kCaches{
    {{CachePolicy::warm, "warm"}, {CachePolicy::cold, "cold"}, {CachePolicy::rotate, "rotate"}}};
constexpr NameTable<CuptiReduction, 3> kReductions{
    {{CuptiReduction::busy, "busy"}, {CuptiReduction::sum, "sum"}, {CuptiReduction::span, "span"}}};
constexpr NameTable<CuptiValue, 3> kCuptiValues{
    {{CuptiValue::automatic, "auto"}, {CuptiValue::cupti, "cupti"}, {CuptiValue::event, "event"}}};
constexpr NameTable<ThrottlePolicy, 3> kThrottle{{{ThrottlePolicy::flag, "flag"},
                                                  {ThrottlePolicy::discard, "discard"},
                                                  {ThrottlePolicy::fail, "fail"}}};
constexpr NameTable<InputValues, 2> kInputValues{{{InputValues::fresh, "fresh"}, {InputValues::fixed, "fixed"}}};

std::string format_number(double v) { return fmt::format("{:g}", v); }

}  // namespace

std::string_view to_string(BackendKind v) { return name_of(kBackends, v); }
std::string_view to_string(Quantity v) { return name_of(kQuantities, v); }
std::string_view to_string(Instrument v) { return name_of(kInstruments, v); }
std::string_view to_string(Schedule v) { return name_of(kSchedules, v); }
std::string_view to_string(CachePolicy v) { return name_of(kCaches, v); }
std::string_view to_string(CuptiReduction v) { return name_of(kReductions, v); }
std::string_view to_string(CuptiValue v) { return name_of(kCuptiValues, v); }
std::string_view to_string(ThrottlePolicy v) { return name_of(kThrottle, v); }
std::string_view to_string(InputValues v) { return name_of(kInputValues, v); }

BackendKind parse_backend(std::string_view s) { return parse_name(kBackends, s, "backend"); }
Quantity parse_quantity(std::string_view s) { return parse_name(kQuantities, s, "quantity"); }
Instrument parse_instrument(std::string_view s) { return parse_name(kInstruments, s, "instrument"); }
Schedule parse_schedule(std::string_view s) { return parse_name(kSchedules, s, "schedule"); }
CachePolicy parse_cache_policy(std::string_view s) { return parse_name(kCaches, s, "cache policy"); }
CuptiReduction parse_cupti_reduction(std::string_view s) {
  return parse_name(kReductions, s, "cupti reduction");
}
CuptiValue parse_cupti_value(std::string_view s) { return parse_name(kCuptiValues, s, "cupti value"); }
ThrottlePolicy parse_throttle_policy(std::string_view s) {
  return parse_name(kThrottle, s, "throttle policy");
}
InputValues parse_input_values(std::string_view s) { return parse_name(kInputValues, s, "inputs"); }

std::string Statistic::name() const {
  switch (kind) {
    case Kind::median: return "median";
    case Kind::mean: return "mean";
    case Kind::min: return "min";
    case Kind::quantile: return fmt::format("p{}", format_number(quantile * 100.0));
  }
  return "?";
}

Statistic parse_statistic(std::string_view s) {
  if (s == "median") return Statistic{Statistic::Kind::median, 0.5};
  if (s == "mean") return Statistic{Statistic::Kind::mean, 0.5};
  if (s == "min") return Statistic{Statistic::Kind::min, 0.0};
  if (s.size() >= 2 && s[0] == 'p') {
    std::string_view digits = s.substr(1);
    double pct = 0;
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), pct);
    if (ec == std::errc() && end == digits.data() + digits.size() && pct > 0 && pct < 100) {
      return Statistic{Statistic::Kind::quantile, pct / 100.0};
    }
  }
  throw UsageError(fmt::format(
      "unknown statistic '{}' (expected median|mean|min|pNN with 0 < NN < 100, e.g. p90)", s));
}

std::string IterationRule::describe() const {
  if (mode == Mode::fixed) return fmt::format("fixed:{}", count);
  return fmt::format("adaptive:min_samples={},min_time_ms={},max_time_ms={},target_rel_halfwidth={}",
                     min_samples, format_number(min_time_ms), format_number(max_time_ms),
                     format_number(target_rel_halfwidth));
}

IterationRule parse_iteration_rule(std::string_view s) {
  const auto fail = [&]() -> IterationRule {
    throw UsageError(fmt::format("unknown iteration rule '{}' (expected fixed:N or adaptive:min_samples=N,"
                                 "min_time_ms=T,max_time_ms=T,target_rel_halfwidth=F)",
                                 s));
  };
  IterationRule rule;
  if (s.rfind("fixed:", 0) == 0) {
    const auto n = parse_integer(s.substr(6));
    if (!n) return fail();
    rule.mode = IterationRule::Mode::fixed;
    rule.count = *n;
    return rule;
  }
  constexpr std::string_view kAdaptive = "adaptive:";
  if (s.rfind(kAdaptive, 0) != 0) return fail();
  rule.mode = IterationRule::Mode::adaptive;
  // key=value pairs in describe()'s order, each exactly once.
  std::string_view rest = s.substr(kAdaptive.size());
  const std::array<std::string_view, 4> keys = {"min_samples", "min_time_ms", "max_time_ms",
                                                "target_rel_halfwidth"};
  for (std::size_t k = 0; k < keys.size(); ++k) {
    const std::size_t comma = rest.find(',');
    const std::string_view pair = rest.substr(0, comma);
    if ((comma == std::string_view::npos) != (k + 1 == keys.size())) return fail();
    if (pair.size() <= keys[k].size() || pair.substr(0, keys[k].size()) != keys[k] ||
        pair[keys[k].size()] != '=') {
      return fail();
    }
    const std::string_view value = pair.substr(keys[k].size() + 1);
    if (k == 0) {
      const auto n = parse_integer(value);
      if (!n) return fail();
      rule.min_samples = *n;
    } else {
      const auto v = parse_decimal(value);
      if (!v) return fail();
      (k == 1 ? rule.min_time_ms : k == 2 ? rule.max_time_ms : rule.target_rel_halfwidth) = *v;
    }
    if (comma != std::string_view::npos) rest = rest.substr(comma + 1);
  }
  return rule;
}

Contract default_contract(BackendKind backend) {
  Contract c;
  c.backend = backend;
  c.cache = CachePolicy::cold;
  if (backend == BackendKind::cuda) {
    c.instrument = Instrument::event;
    c.schedule = Schedule::per_iter;
  } else {
    c.instrument = Instrument::wallclock;
    c.schedule = Schedule::isolated;
  }
  return c;
}

namespace {

// The counts and numbers of the contract, each on its own. Checked first: a non-positive count
// makes every other rule meaningless.
std::optional<std::string> why_invalid_numbers(const Contract& c) {
  const IterationRule& it = c.iterations;
  if (c.warmup < 1) {
    return fmt::format("warmup must be >= 1 (got {}): the first call (module load, JIT, first-touch "
                       "allocation) is never timed",
                       c.warmup);
  }
  if (it.mode == IterationRule::Mode::fixed && it.count < 1) {
    return fmt::format("iterations must be >= 1 (got {})", it.count);
  }
  if (it.mode == IterationRule::Mode::adaptive) {
    // The rule claims a precision from the median's 95% interval; below this many samples no
    // pair of order statistics is one (docs/iteration-rule.md).
    const std::int64_t needed = min_samples_for_median_ci(kAdaptiveRuleConfidence);
    if (it.min_samples < needed) {
      return fmt::format("min_samples (--min-samples) must be >= {} with the adaptive rule (got {}): "
                         "below {} samples no pair of order statistics is a 95% confidence interval "
                         "of the median, so no precision can be claimed; give a fixed count "
                         "(--iters) for fewer samples",
                         needed, it.min_samples, needed);
    }
    if (auto why = why_invalid_adaptive_bounds(it)) return why;
  }
  if (c.schedule == Schedule::graph && c.graph_calls < 1) {
    return fmt::format("graph calls must be >= 1 (got {})", c.graph_calls);
  }
  if (c.statistic.kind == Statistic::Kind::quantile &&
      !(c.statistic.quantile > 0 && c.statistic.quantile < 1)) {
    return fmt::format("quantile statistic must be in (0, 1) (got {})", c.statistic.quantile);
  }
  return std::nullopt;
}

// What the backend can do: the host times host work with its clock and has no graphs.
std::optional<std::string> why_invalid_on_backend(const Contract& c) {
  if (c.backend != BackendKind::host) return std::nullopt;
  if (c.instrument != Instrument::wallclock) {
    return fmt::format("instrument {} does not exist on the host backend: host work is timed with "
                       "the wallclock instrument",
                       to_string(c.instrument));
  }
  if (c.schedule == Schedule::graph) {
    return std::string("schedule graph needs device graph capture, which the host backend does not "
                       "have");
  }
  return std::nullopt;
}

// Host dispatch is its own measurement: one launch per sample, device drained after the timer.
std::optional<std::string> why_invalid_host_dispatch(const Contract& c) {
  if (c.instrument != Instrument::wallclock) {
    return fmt::format("host_dispatch is read from the host clock: instrument must be wallclock "
                       "(got {})",
                       to_string(c.instrument));
  }
  if (c.schedule != Schedule::isolated) {
    return fmt::format("host_dispatch times one launch per sample and drains the device after the "
                       "timer stops: schedule must be isolated (got {})",
                       to_string(c.schedule));
  }
  return std::nullopt;
}

// Schedule pipelined has no gap between calls and produces one sample.
std::optional<std::string> why_invalid_pipelined(const Contract& c, bool per_call_prepare) {
  if (c.statistic.kind != Statistic::Kind::mean) {
    return fmt::format("schedule pipelined produces one sample, the mean of N calls: only statistic "
                       "mean is meaningful (got {})",
                       c.statistic.name());
  }
  if (c.cache == CachePolicy::cold) {
    return std::string("schedule pipelined has no gap between calls: a cache flush before each call "
                       "would be inside the timed window (use cache warm or rotate, or another "
                       "schedule)");
  }
  if (per_call_prepare) {
    return std::string("schedule pipelined has no gap between calls: per-call preparation would be "
                       "inside the timed window");
  }
  if (c.iterations.mode == IterationRule::Mode::adaptive) {
    return std::string("schedule pipelined produces one sample, so an adaptive stopping rule has no "
                       "distribution to judge: give a fixed call count (--iters)");
  }
  return std::nullopt;
}

// Schedule graph replays captured calls: nothing of the host runs between them.
std::optional<std::string> why_invalid_graph(const Contract& c, bool per_call_prepare) {
  if (per_call_prepare) {
    return std::string("schedule graph replays captured calls: per-call host preparation cannot run "
                       "between them");
  }
  if (c.cache == CachePolicy::cold && c.graph_calls > 1 && c.instrument != Instrument::cupti) {
    return fmt::format("schedule graph with cache cold and {} calls per graph needs the flush inside the "
                       "graph between calls; only instrument cupti can exclude it (by graph-node "
                       "identity), instrument {} would time it (graph calls 1 flushes before each "
                       "replay, outside the window)",
                       c.graph_calls, to_string(c.instrument));
  }
  return std::nullopt;
}

// Whether the schedule keeps the measured quantity: the instrument, the cache policy and the
// workload's per-call preparation must fit in the loop it shapes.
std::optional<std::string> why_invalid_schedule(const Contract& c, bool per_call_prepare) {
  if (c.backend == BackendKind::cuda && c.instrument == Instrument::wallclock &&
      c.schedule != Schedule::isolated) {
    return fmt::format("instrument wallclock on the cuda backend measures launch + run + device sync, "
                       "which only schedule isolated keeps per call (got {}); use instrument event "
                       "or cupti",
                       to_string(c.schedule));
  }
  if (c.schedule == Schedule::pipelined) return why_invalid_pipelined(c, per_call_prepare);
  if (c.schedule == Schedule::graph) return why_invalid_graph(c, per_call_prepare);
  return std::nullopt;
}

}  // namespace

std::optional<std::string> why_invalid(const Contract& c, bool per_call_prepare) {
  if (auto why = why_invalid_numbers(c)) return why;
  if (c.cupti_value != CuptiValue::automatic && c.instrument != Instrument::cupti) {
    return fmt::format("cupti value {} applies to instrument cupti only (the instrument is {})", to_string(c.cupti_value),
                       to_string(c.instrument));
  }
  if (auto why = why_invalid_on_backend(c)) return why;
  if (c.quantity == Quantity::host_dispatch) return why_invalid_host_dispatch(c);
  return why_invalid_schedule(c, per_call_prepare);
}

void validate(const Contract& contract, bool per_call_prepare) {
  if (auto why = why_invalid(contract, per_call_prepare)) {
    throw ContractError("invalid contract: " + *why);
  }
}

}  // namespace caliber
