// Bottleneck classification of one shape (docs/reports.md's categories, exact strings), decided by an
// ordered rule table from the data: correctness, stability, whether a baseline was measured, the
// kernel-only speedup against the best baseline, like-for-like flags, the fraction of the
// roofline reached, the shape class (too few rows or tiles to fill the device, rows that miss the
// 16-byte vector path), profiler evidence, and the size of the gap. The first rule that matches
// decides. docs/reports.md ("Bottleneck classification") has the table; tests check each row.
//
// Classification judges the KERNEL-ONLY speedup. Host launch overhead is a separate eager verdict
// (eager_verdict), never mixed into the kernel-only class.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "results/benchmark_results.h"
#include "integrity/device_ceilings.h"
#include "analysis/shape_comparison.h"

namespace caliber {

enum class Bottleneck {
  ok,
  implementation_gap,
  tuning_gap,
  algorithm_gap,
  codegen_gap,
  launch_or_roofline_limited,
  measurement_issue,
  baseline_unfair_or_unmatched,
};
std::string_view to_string(Bottleneck b);
const std::vector<Bottleneck>& all_bottlenecks();

// Thresholds of the rule table.
inline constexpr double kRooflineLimitedFraction = 0.80;  // "at the roofline"
inline constexpr double kAlgorithmGapSpeedup = 0.50;     // a gap no schedule tuning closes
inline constexpr double kEagerLaunchBoundShare = 0.50;   // host overhead share of the eager time
// Bytes of one vector access of the candidate's fast path (16-byte loads and stores).
inline constexpr std::int64_t kVectorAccessBytes = 16;

// The shape class: how much independent work the shape offers and whether its rows fit the
// vector path.
struct ShapeClass {
  // The op description's `work` (docs/user-ops.md): rows (norms, softmax) or 128x128 output tiles
  // (gemm) for the shipped ops.
  std::optional<std::int64_t> work_units;
  std::string work_unit_name;              // "row(s)" | "128x128 output tile(s)"
  std::optional<bool> vector_aligned;      // innermost dimension(s) x element size multiple of 16 B
  std::string alignment_detail;            // "n = 4095 x 2 B = 8190 B is not a multiple of 16 B"
};
// From the ledger row's op, dtype and args and the op description's `work`; unknown ops, and ops
// whose description has no `work`, give an empty class.
ShapeClass shape_class(const ShapeRow& shape);

// Everything a rule looks at, for one shape.
struct ClassificationInput {
  std::optional<BenchmarkStatus> candidate_status;  // nullopt: no candidate row
  std::string candidate_status_reason;
  std::optional<bool> candidate_stable;
  std::string candidate_unstable_reason;  // row_instability_reason: "p90/p10 = 1.50 > 1.2", ...
  std::optional<double> speedup_vs_best;            // nullopt: no usable baseline (or candidate)
  std::string best_baseline;
  std::string flags_difference;                     // "" when the honesty flags match
  std::optional<double> roofline_fraction;          // nullopt: no ceilings or no bytes/flops
  std::string roofline_bound;                       // "memory" | "compute"
  std::optional<std::int64_t> work_units;
  std::string work_unit_name;
  int device_parallelism = 0;                       // multiprocessors (GPU) or logical CPUs; 0: unknown
  std::string device_parallelism_name = "multiprocessors";  // "multiprocessors" | "logical CPUs"
  std::optional<bool> vector_aligned;
  std::string alignment_detail;
  std::optional<double> local_memory_bytes;         // from a profile (register spills); nullopt: none
};

struct Classification {
  Bottleneck category = Bottleneck::ok;
  std::string rule;        // "C6"
  std::string evidence;    // the data that matched, in words with numbers
  std::string likely_fix;
};

Classification classify(const ClassificationInput& in);

// The eager verdict: "launch_or_roofline_limited" when the candidate's host overhead is at least
// half of its eager time, else "" (nothing to say). `share` = host_overhead_us / eager_median_us.
std::string eager_verdict(std::optional<double> host_overhead_share);

// Builds the input of one shape from a comparison, the device ceilings (may be null) and the
// local-memory bytes of a profile of the candidate (nullopt when not profiled).
ClassificationInput classification_input(const ShapeComparison& shape, const DeviceCeilings* ceilings,
                                         std::optional<double> local_memory_bytes);

// What makes two rows unlike, "" when nothing: a primary median that is kernel-only on one side
// and eager on the other, or honesty flags that differ
// ("best baseline includes_allocation=true, candidate false").
std::string honesty_flag_difference(const BenchmarkResultRow& candidate, const BenchmarkResultRow& baseline);

}  // namespace caliber
