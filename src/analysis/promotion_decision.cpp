// The decision table (docs/reports.md, "Decision"). First match wins.
#include "analysis/promotion_decision.h"

#include <optional>

#include <fmt/format.h>

#include "core/enum_names.h"

namespace caliber {
namespace {

constexpr NameTable<Verdict, 6> kNames{{{Verdict::promote, "promote"},
                                        {Verdict::promote_with_guardrails, "promote_with_guardrails"},
                                        {Verdict::tune_needed, "tune_needed"},
                                        {Verdict::rewrite_needed, "rewrite_needed"},
                                        {Verdict::blocked, "blocked"},
                                        {Verdict::no_decision, "no_decision"}}};

std::string share_text(std::size_t k, std::size_t n) {
  return fmt::format("{} of {} hot shapes ({:.0f}%)", k, n, n ? 100.0 * static_cast<double>(k) / static_cast<double>(n) : 0.0);
}

// The shapes counted for the table: incorrect ones over all shapes, the rest over hot shapes.
struct ShapeCounts {
  std::size_t incorrect = 0, hot = 0, hot_crashed = 0, hot_compared = 0, hot_measurement = 0, hot_ok = 0,
              hot_algorithm = 0, hot_implementation = 0;
};

ShapeCounts count_shapes(const DecisionInput& in) {
  ShapeCounts n;
  for (const DecisionShape& s : in.shapes) {
    // A time faster than the device can go is no more a timing of the candidate than a wrong output.
    if (s.candidate_status == BenchmarkStatus::incorrect || s.candidate_status == BenchmarkStatus::faster_than_physical) {
      ++n.incorrect;
    }
    if (!s.hot) continue;
    ++n.hot;
    if (s.candidate_status == BenchmarkStatus::failed || s.candidate_status == BenchmarkStatus::oom) ++n.hot_crashed;
    if (s.speedup_vs_best) ++n.hot_compared;
    if (s.category == Bottleneck::measurement_issue) ++n.hot_measurement;
    if (s.category == Bottleneck::ok) ++n.hot_ok;
    if (s.category == Bottleneck::algorithm_gap) ++n.hot_algorithm;
    if (s.category == Bottleneck::implementation_gap) ++n.hot_implementation;
  }
  return n;
}

Decision decision(Verdict v, const char* rule, std::string reason, std::vector<std::string> guardrails = {}) {
  Decision d;
  d.verdict = v;
  d.rule = rule;
  d.reason = std::move(reason);
  d.guardrails = std::move(guardrails);
  return d;
}

// D1-D4: what blocks any decision (D3 without any hot shape: no decision to take) (a wrong candidate, a crash on a hot shape, no comparison, too
// many measurement issues); nothing when none applies.
std::optional<Decision> blocked(const DecisionInput& in, const ShapeCounts& n) {
  if (n.incorrect > 0) {
    return decision(Verdict::blocked, "D1",
                    fmt::format("the candidate failed correctness or integrity on {} shape(s): no timing of it is trusted",
                                n.incorrect));
  }
  if (n.hot_crashed > 0) {
    return decision(Verdict::blocked, "D2", fmt::format("the candidate failed or ran out of memory on {}",
                                                        share_text(n.hot_crashed, n.hot)));
  }
  if (n.hot == 0) {
    // Not a refusal: nothing is wrong with the candidate, the ledger only lacks the provenance
    // (a model) that says which shapes matter.
    return decision(Verdict::no_decision, "D3",
                    "a promotion decision needs a ledger with provenance: hot (model-derived) shapes, i.e. rows "
                    "with a model (take them from caliber ledger models, or give rows one with caliber ledger "
                    "manual --model); this ledger has none, and synthetic and diagnostic shapes never decide");
  }
  if (n.hot_compared == 0 || !in.hot_geomean) {
    return decision(Verdict::blocked, "D3",
                    fmt::format("none of the {} hot (model-derived) shapes has a kernel-only comparison; "
                                "shapes without a model, synthetic and diagnostic shapes never decide",
                                n.hot));
  }
  if (static_cast<double>(n.hot_measurement) > kMaxMeasurementIssueShare * static_cast<double>(n.hot)) {
    return decision(Verdict::blocked, "D4",
                    fmt::format("measurement_issue on {} (> {:.0f}%): re-measure before deciding",
                                share_text(n.hot_measurement, n.hot), kMaxMeasurementIssueShare * 100));
  }
  return std::nullopt;
}

// D6's guardrails: each hot shape that is not ok re-measured, or routed to its best baseline.
std::vector<std::string> guardrails(const DecisionInput& in) {
  std::vector<std::string> out;
  for (const DecisionShape& s : in.shapes) {
    if (!s.hot || s.category == Bottleneck::ok) continue;
    if (s.category == Bottleneck::measurement_issue) {
      out.push_back(fmt::format("re-measure {} ({})", s.label, to_string(s.category)));
    } else if (!s.best_baseline.empty()) {
      out.push_back(fmt::format("route {} to {} ({}, {:.3f}x of best)", s.label, s.best_baseline,
                                to_string(s.category), s.speedup_vs_best.value_or(0)));
    } else {
      out.push_back(fmt::format("route {} to a baseline ({})", s.label, to_string(s.category)));
    }
  }
  return out;
}

}  // namespace

std::string_view to_string(Verdict v) { return name_of(kNames, v); }

Decision decide(const DecisionInput& in) {
  const ShapeCounts n = count_shapes(in);
  if (std::optional<Decision> d = blocked(in, n)) return std::move(*d);
  const std::string geomean = in.hot_geomean ? fmt::format("{:.3f}x ({})", *in.hot_geomean, in.hot_geomean_basis)
                                             : std::string("n/a");
  if (n.hot_ok == n.hot) {
    return decision(Verdict::promote, "D5",
                    fmt::format("every one of the {} hot shapes is at parity or better (>= {}x of best); geomean vs best {}",
                                n.hot, kParitySpeedup, geomean));
  }
  const std::size_t not_ok = n.hot - n.hot_ok;
  if (*in.hot_geomean >= 1.0 && static_cast<double>(not_ok) <= kMaxGuardrailShare * static_cast<double>(n.hot)) {
    return decision(Verdict::promote_with_guardrails, "D6",
                    fmt::format("geomean vs best {} >= 1.0 and {} are not ok (<= {:.0f}%): promote, routing those "
                                "shapes elsewhere",
                                geomean, share_text(not_ok, n.hot), kMaxGuardrailShare * 100),
                    guardrails(in));
  }
  if (*in.hot_geomean < kRewriteGeomean) {
    return decision(Verdict::rewrite_needed, "D7",
                    fmt::format("geomean vs best {} < {}: tuning does not close a gap this wide", geomean, kRewriteGeomean));
  }
  if (n.hot_algorithm > 0) {
    return decision(Verdict::rewrite_needed, "D7",
                    fmt::format("algorithm_gap on {}; geomean vs best {}", share_text(n.hot_algorithm, n.hot), geomean));
  }
  if (static_cast<double>(n.hot_implementation) > kMaxImplementationGapShare * static_cast<double>(n.hot)) {
    return decision(Verdict::rewrite_needed, "D7",
                    fmt::format("implementation_gap on {} (> {:.0f}%); geomean vs best {}",
                                share_text(n.hot_implementation, n.hot), kMaxImplementationGapShare * 100, geomean));
  }
  return decision(Verdict::tune_needed, "D8",
                  fmt::format("geomean vs best {}; {} are not ok and none needs a rewrite: tune them (see their classes)",
                              geomean, share_text(not_ok, n.hot)));
}

}  // namespace caliber
