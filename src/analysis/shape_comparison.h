// The reading of a multi-shape run (docs/reports.md): per ledger shape, the candidate's kernel-only
// median against each baseline's and against the best available one.
//
//   speedup = baseline_median_us / candidate_median_us   (> 1: the candidate is faster)
//
// on the PRIMARY (kernel-only) median of each row. A row is used in a speedup only when it is
// usable: status ok, correct, stable (p90/p10 <= 1.2) and a positive median. Every other row is
// kept and listed with the reason it was excluded, never averaged in. docs/reports.md documents
// every rule here.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "results/benchmark_results.h"
#include "ledger/shape_ledger.h"

namespace caliber {

// Below this kernel-only speedup against the best baseline a shape is sub-parity.
inline constexpr double kParitySpeedup = 0.95;
// Hot shapes below this speedup against the best are profiler candidates (docs/reports.md).
inline constexpr double kProfilerSpeedup = 0.90;

// One (shape, provider) cell of the run.
struct ProviderCell {
  std::string provider;
  std::optional<BenchmarkResultRow> row;  // nullopt: the run has no row for this cell
  std::string exclusion;                  // why the row is not used in speedups; empty: usable
  bool usable() const { return exclusion.empty(); }
  // The kernel-only median when usable and measured (none for a row timed eagerly).
  std::optional<double> kernel_only_us() const;
  // The eager median when usable and measured.
  std::optional<double> eager_us() const;
};

struct ShapeComparison {
  ShapeRow shape;
  bool hot = false;                         // is_hot_shape(shape)
  ProviderCell candidate;
  std::vector<ProviderCell> baselines;      // one per ComparisonSet::baselines, same order
  std::vector<ProviderCell> not_baselines;  // one per ComparisonSet::not_baselines, same order
  std::vector<std::optional<double>> speedup_vs;  // per baseline; nullopt unless both usable
  std::optional<std::string> best_baseline;  // the usable baseline with the lowest kernel-only median
  std::optional<double> best_baseline_us;
  std::optional<double> speedup_vs_best;     // nullopt unless the candidate and a baseline are usable
  std::optional<std::string> best_eager_baseline;
  std::optional<double> eager_speedup_vs_best;  // on eager medians, same usability rule

  // "m=4096 n=8192" (the ledger args, keys sorted, eps left out), for tables.
  std::string args_label() const;
  // "bf16 m=4096 n=8192": shape_label of the shape, wherever a report names a shape.
  std::string label() const;
  bool sub_parity() const { return speedup_vs_best && *speedup_vs_best < kParitySpeedup; }
  bool profiler_candidate() const { return hot && speedup_vs_best && *speedup_vs_best < kProfilerSpeedup; }
  // The candidate's, the baselines' and the not-baselines' cells, in that order.
  std::vector<const ProviderCell*> cells() const;
};

// A provider of the results that is never a baseline: every row it ran is wrong (incorrect or
// faster than physics), so nothing it timed is an alternative to the candidate.
struct NotBaseline {
  std::string provider;
  std::string reason;  // "incorrect on every shape it ran (3 of 3)"
};

// A baseline that is wrong on some shapes (and compared on the others): how many.
struct PartlyWrong {
  std::string provider;
  std::size_t wrong = 0, ran = 0;  // shapes where its row is wrong, shapes where it ran
};

struct ComparisonSet {
  std::string candidate;
  // Every other provider of the results, first appearance order, but the not-baselines.
  std::vector<std::string> baselines;
  std::vector<NotBaseline> not_baselines;  // first appearance order
  std::vector<PartlyWrong> partly_wrong;   // baselines order
  std::vector<ShapeComparison> shapes;  // ledger order
  std::vector<std::string> run_ids;     // in first appearance order
  // Cells measured by more than one run in the results file: the last row (file order) is used.
  std::vector<std::string> superseded_cells;
  // Baselines whose provider_detail says they are opaque (the implementation that ran is not
  // visible): labelled "(opaque)" wherever they appear.
  std::vector<std::string> opaque_baselines;

  bool is_opaque(const std::string& provider) const;
  // The ledger's kernel names, sorted, comma separated ("rmsnorm").
  std::string kernel_names() const;
  bool is_not_baseline(const std::string& provider) const;
  // "cublas", "cublas (opaque)" or "naive_wrong (not a baseline)".
  std::string provider_label(const std::string& provider) const;
};

// "m=4096 n=8192": the args m, n, k first, then the others (keys sorted), eps left out.
std::string args_label(const nlohmann::json& args);
// "bf16 m=4096 n=8192": the dtype before the args, so that two shapes of different dtypes never
// read the same in a table, chart or tooltip.
std::string shape_label(const std::string& dtype, const nlohmann::json& args);
// The same from the args' label (args_label's text, e.g. a regressions.jsonl row's "args").
std::string shape_label_of_text(const std::string& dtype, const std::string& args_text);

// A hot shape is model-derived: it has a model, its stage is neither synthetic nor diagnostic,
// and its source kind is neither synthetic nor diagnostic.
bool is_hot_shape(const ShapeRow& shape);
// provider_detail mentions "opaque" (any case).
bool is_opaque_detail(const std::string& provider_detail);
// A row's status_reason, with its correctness_error appended when that says more ("" when none).
std::string row_reason(const BenchmarkResultRow& row);
// Why a row may not enter a speedup ("" when it may): see the header comment.
std::string exclusion_reason(const BenchmarkResultRow& row);
// The row's provider ran the call and its output is not a result: incorrect (or `correct` false)
// or faster_than_physical.
bool is_wrong_row(const BenchmarkResultRow& row);
// The provider ran the call (ok, incorrect or faster_than_physical).
bool ran_the_call(const BenchmarkResultRow& row);

// Builds the comparison. Throws UsageError when `candidate` has no row in the results, and
// InputError (results file, the row's line from row_lines when given, shape_id) when a row's
// shape is not in the ledger. The comparison keeps the rows it uses (moved out of `results`:
// pass an rvalue to hold a large results set once).
ComparisonSet compare_shapes(const std::vector<ShapeRow>& ledger, std::vector<BenchmarkResultRow> results,
                             const std::string& candidate, const std::string& results_file,
                             const std::vector<long>& row_lines = {});

// Geometric mean of positive values; nullopt when empty.
std::optional<double> geometric_mean(const std::vector<double>& values);

// A weighted geometric mean exp(sum w ln s / sum w), or why there is none.
struct WeightedGeomean {
  std::optional<double> value;
  std::string weight_field;  // which ledger weight was used
  std::string not_available;  // "n/a: no weights" etc. when value is nullopt
};
// Uses one ledger weight field for all shapes: the first of baseline_time_weight, traffic_weight,
// occurrences that every shape has. "n/a: no weights" when no shape has a weight; "n/a: weights
// on K of N shapes" when some lack every field that others have; "n/a: weights sum to 0".
// Never a made-up weight.
WeightedGeomean weighted_geometric_mean(const std::vector<const ShapeRow*>& shapes,
                                        const std::vector<double>& values);

}  // namespace caliber
