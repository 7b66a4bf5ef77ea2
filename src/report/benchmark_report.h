// The reports people read, from a shape ledger and a multi-shape results file (docs/reports.md):
//   benchmark_summary.md  the results table (shape x provider), speedups, geomeans, splits, wins/regressions, eager view, classes,
//                         profiler candidates, excluded rows, and the decision with its rule;
//   coverage_matrix.md    the shape x provider status grid and counts per status;
//   report.html           one self-contained page of SVG charts, each with its contract beside it;
//   regression_summary.md + regressions.jsonl  (report --against) what moved between two runs.
// Writers take an std::ostream, so tests compare exact text. docs/reports.md documents each file.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "analysis/bottleneck_classification.h"
#include "integrity/device_ceilings.h"
#include "profile/profiler_gate.h"
#include "analysis/promotion_decision.h"
#include "analysis/regression_diff.h"
#include "analysis/roofline.h"
#include "analysis/shape_comparison.h"
#include "report/shape_results_table.h"

namespace caliber {

// Where the inputs came from, as the user named them (printed in the reports).
struct ReportSources {
  std::string shape_ledger;
  std::string results;
  std::string ceilings;   // "" when no ceilings file was read
  std::string profiles;   // the profiles directory looked in
  std::string baseline_matrix;  // for the profiler commands the summary prints
};

struct ShapeReport {
  Classification classification;
  std::optional<double> host_overhead_share;  // candidate host_overhead_us / eager_median_us
  std::string eager_verdict;                   // eager_verdict(host_overhead_share)
  std::optional<RooflinePoint> candidate_roofline;  // when the candidate is usable
  std::optional<ProfileDiagnosis> profile;          // of the candidate, when one is stored
};

// A cupti measurement of a cell and what tracing did to it (docs/cupti.md, "Perturbation").
struct PerturbationLine {
  std::string shape_id;
  std::string shape;        // the shape's label ("bf16 m=4096 n=8192")
  std::string provider;     // the provider's label
  std::string measurement;  // "kernel-only" | "eager"
  InstrumentPerturbation perturbation;
};

struct BenchmarkReport {
  ReportSources sources;
  ComparisonSet comparison;
  std::vector<ShapeReport> shapes;  // parallel to comparison.shapes
  std::optional<DeviceCeilings> ceilings;
  std::string ceilings_note;        // why there are no ceilings ("" when there are)
  std::optional<DeviceInfo> device;  // the candidate's device, from its measurements
  DecisionInput decision_input;
  Decision decision;
  std::vector<PerturbationLine> perturbation;  // every cupti measurement of the results
  ResultsTable table;  // every row of the comparison, shape x provider (docs/reports.md, "Results table")
};

// Builds everything the writers print. `ceilings` is the content of the ceilings file (empty when
// none was read); the entry of the candidate's device is used. The report keeps the rows it
// shows (moved out of `results`: pass an rvalue to hold a large results set once).
BenchmarkReport build_benchmark_report(const std::vector<ShapeRow>& ledger, std::vector<BenchmarkResultRow> results,
                                       const std::string& candidate, const std::vector<DeviceCeilings>& ceilings,
                                       const ReportSources& sources, const std::vector<long>& row_lines = {});

void write_benchmark_summary(std::ostream& out, const BenchmarkReport& report);
void write_coverage_matrix(std::ostream& out, const BenchmarkReport& report);
void write_html_report(std::ostream& out, const BenchmarkReport& report);
// `caliber_check`: what the caliber check of the two runs found, one line of text (the runs'
// identity files when they match; every difference when the user compared them anyway).
void write_regression_summary(std::ostream& out, const RegressionDiff& diff, const BenchmarkReport& after,
                              const std::string& before_results, const std::string& caliber_check);

}  // namespace caliber
