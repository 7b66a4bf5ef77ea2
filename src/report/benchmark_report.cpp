// Builds the report model: comparison, classification, eager verdicts, roofline points, stored
// profiles, and the decision.
#include "report/benchmark_report.h"

#include <fmt/format.h>

#include "integrity/bound_ceilings.h"
#include "integrity/physical_bound.h"
#include "integrity/theoretical_ceilings.h"

namespace caliber {
namespace {

// The candidate's device, from its measurements (else any row's).
std::optional<DeviceInfo> report_device(const ComparisonSet& set) {
  std::optional<DeviceInfo> any;
  for (const auto& s : set.shapes) {
    const auto& row = s.candidate.row;
    if (row && row->kernel_only) return row->kernel_only->device;
    if (row && row->eager) return row->eager->device;
    for (const auto& b : s.baselines) {
      if (!any && b.row && b.row->kernel_only) any = b.row->kernel_only->device;
    }
  }
  return any;
}

// An ok row faster than the report's ceilings allow is no result, whatever the run knew
// (docs/integrity.md): it becomes faster_than_physical here, and is excluded like an incorrect row.
// The ceilings are the measurement's device's theoretical ones, refined by its calibrated ones
// when the report was given them. A check the run recorded is only ever made worse here (a
// failure); a row without one gets this one when it ran (a bound the report cannot compute, e.g.
// a host row's bandwidth read on another machine, says nothing about the row).
void apply_physical_bounds(std::vector<BenchmarkResultRow>& rows, const std::vector<DeviceCeilings>& ceilings) {
  for (BenchmarkResultRow& row : rows) {
    if (row.benchmark_status != BenchmarkStatus::ok) continue;
    const bool recorded = row.integrity.find(integrity_check::physically_possible) != nullptr;
    for (const std::optional<Result>* m : {&row.eager, &row.kernel_only}) {
      if (!*m) continue;
      const DeviceCeilings bound = refine_ceilings(theoretical_ceilings((*m)->device, std::nullopt),
                                                   find_device_ceilings(ceilings, device_key((*m)->device)));
      const IntegrityCheck check = integrity::physical_bound_check(
          {row.bytes, row.flops, (*m)->summary.median_us, parse_dtype(row.dtype), (*m)->contract.cache,
           (*m)->device.llc_bytes},
          bound);
      if (check.outcome == CheckOutcome::failed || (!recorded && check.outcome == CheckOutcome::passed)) {
        row.integrity.record(check.name, check.outcome, check.detail);
      }
    }
    if (const IntegrityCheck* c = row.integrity.find(integrity_check::physically_possible);
        c && c->outcome == CheckOutcome::failed) {
      row.benchmark_status = BenchmarkStatus::faster_than_physical;
      row.status_reason = "integrity (checked by caliber report): " + row.integrity.first_failure();
    }
  }
}

// The results table of every row the comparison holds: the candidate's, the baselines' and the
// not-baselines' (each labelled so), shapes in ledger order.
ResultsTable comparison_table(const ComparisonSet& set, const DeviceCeilings* ceilings, const std::string& why_none) {
  ResultsTableBuilder table(ceilings, why_none);
  for (const ShapeComparison& s : set.shapes) {
    for (const ProviderCell* c : s.cells()) {
      if (!c->row) continue;
      table.add(*c->row, c == &s.candidate ? set.candidate + " (candidate)" : set.provider_label(c->provider));
    }
  }
  return table.build();
}

// Every cupti measurement of the comparison's rows and what tracing did to it.
std::vector<PerturbationLine> perturbation_lines(const ComparisonSet& set) {
  std::vector<PerturbationLine> out;
  for (const ShapeComparison& sc : set.shapes) {
    for (const ProviderCell* c : sc.cells()) {
      if (!c->row) continue;
      for (const auto& [what, m] : {std::pair{"kernel-only", &c->row->kernel_only}, std::pair{"eager", &c->row->eager}}) {
        if (*m && (*m)->instrument_perturbation) {
          out.push_back({sc.shape.shape_id, sc.label(), set.provider_label(c->provider), what,
                         *(*m)->instrument_perturbation});
        }
      }
    }
  }
  return out;
}

}  // namespace

BenchmarkReport build_benchmark_report(const std::vector<ShapeRow>& ledger, std::vector<BenchmarkResultRow> results,
                                       const std::string& candidate, const std::vector<DeviceCeilings>& ceilings,
                                       const ReportSources& sources, const std::vector<long>& row_lines) {
  BenchmarkReport r;
  r.sources = sources;
  apply_physical_bounds(results, ceilings);
  r.comparison = compare_shapes(ledger, std::move(results), candidate, sources.results, row_lines);
  r.device = report_device(r.comparison);
  if (sources.ceilings.empty()) {
    r.ceilings_note = "no ceilings file (run caliber calibrate): roofline fractions n/a";
  } else if (!r.device) {
    r.ceilings_note = "no measurement in the results names its device: roofline fractions n/a";
  } else if (const DeviceCeilings* c = find_device_ceilings(ceilings, device_key(*r.device))) {
    r.ceilings = *c;
  } else {
    r.ceilings_note = fmt::format("{} has no entry for device {} (run caliber calibrate on it): roofline fractions n/a",
                                  sources.ceilings, device_key(*r.device));
  }
  const DeviceCeilings* ceil = r.ceilings ? &*r.ceilings : nullptr;
  r.table = comparison_table(r.comparison, ceil, r.ceilings_note);

  std::vector<const ShapeRow*> hot_shapes;
  std::vector<double> hot_speedups;
  for (const ShapeComparison& sc : r.comparison.shapes) {
    ShapeReport sr;
    if (!sources.profiles.empty()) sr.profile = find_profile_diagnosis(sources.profiles, sc.shape.shape_id, candidate);
    const std::optional<double> local = sr.profile ? sr.profile->local_memory_bytes() : std::nullopt;
    sr.classification = classify(classification_input(sc, ceil, local));
    if (const auto& row = sc.candidate.row; row && row->benchmark_status == BenchmarkStatus::ok &&
                                            row->host_overhead_us && row->eager_median_us &&
                                            *row->eager_median_us > 0) {
      sr.host_overhead_share = *row->host_overhead_us / *row->eager_median_us;
    }
    sr.eager_verdict = eager_verdict(sr.host_overhead_share);
    if (const auto t = sc.candidate.kernel_only_us()) {
      sr.candidate_roofline = roofline_point(sc.candidate.row->bytes, sc.candidate.row->flops, *t, ceil,
                                             sc.candidate.row->dtype);
    }
    DecisionShape ds;
    ds.label = sc.shape.shape_id;
    ds.hot = sc.hot;
    ds.category = sr.classification.category;
    if (sc.candidate.row) ds.candidate_status = sc.candidate.row->benchmark_status;
    ds.speedup_vs_best = sc.speedup_vs_best;
    ds.best_baseline = sc.best_baseline.value_or("");
    r.decision_input.shapes.push_back(ds);
    if (sc.hot && sc.speedup_vs_best) {
      hot_shapes.push_back(&sc.shape);
      hot_speedups.push_back(*sc.speedup_vs_best);
    }
    r.shapes.push_back(std::move(sr));
  }
  const WeightedGeomean weighted = weighted_geometric_mean(hot_shapes, hot_speedups);
  if (weighted.value) {
    r.decision_input.hot_geomean = weighted.value;
    r.decision_input.hot_geomean_basis =
        fmt::format("weighted by {}, {} hot shapes", weighted.weight_field, hot_shapes.size());
  } else if (const auto g = geometric_mean(hot_speedups)) {
    r.decision_input.hot_geomean = g;
    r.decision_input.hot_geomean_basis = fmt::format("unweighted, {} hot shapes", hot_shapes.size());
  }
  r.decision = decide(r.decision_input);
  r.perturbation = perturbation_lines(r.comparison);
  return r;
}

}  // namespace caliber
