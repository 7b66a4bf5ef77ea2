// The multi-round A/B, as pure logic: per-round, per-side, per-shape results in; per-shape
// verdicts and the two dispersions out (docs/ab.md).
//
// Two dispersions answer different questions and are kept apart:
// - within-side spread (machine noise): how far one side's round results move when nothing but
//   the run changes (max/min - 1 over rounds), and, when the cells carry it, the relative IQR of
//   the samples inside one cell;
// - across-round spread (verdict stability): how far the per-round deltas B/A - 1 move, and
//   whether their sign holds. A single pair cannot show either.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ab/wilcoxon.h"

namespace caliber {

// One shape's result in one cell.
struct ShapeMeasurement {
  std::string key;    // stable across cells: "<shape_id>/<provider>", or "<name> <params> <schedule>/<cache>"
  std::string label;  // what a reader sees
  double value_us = 0;             // the contract's statistic (the median by default), microseconds
  std::optional<double> rel_iqr;   // (p75 - p25) / median of the cell's samples, when known
  // The row fell back from kernel-only to eager (its kernel-only measurement failed; timing_method
  // says why): its key and label say so, and it is never paired or pooled with kernel-only rows.
  bool eager_fallback = false;
  // The configuration its provider ran with (docs/runner.md, "Configs recorded and replayed"):
  // the provider's key and how it was fixed ("recorded", "replayed", "not_in_replay_source");
  // both empty when the provider chose none.
  std::string config_key;
  std::string config_pinning;
};

// What one cell produced.
struct CellResults {
  std::vector<ShapeMeasurement> rows;  // rows that measured successfully (status ok, correct)
  int rows_ok = 0;
  int rows_failed = 0;    // rows present but not ok (failed, incorrect, oom, ...)
  int rows_unstable = 0;  // ok rows the harness marked not stable
  int rows_warned = 0;    // ok rows that carry warnings
};

enum class CellState { ok, failed, timed_out, refused, not_run };

struct CellOutcome {
  CellState state = CellState::not_run;
  int exit_code = 0;
  std::string note;  // why it is not ok
  CellResults results;
};

struct RoundOutcome {
  int round = 0;  // 1-based
  CellOutcome a;
  CellOutcome b;
};

struct AbInput {
  std::string op;
  int rounds_planned = 0;
  std::vector<RoundOutcome> rounds;
};

enum class AbVerdict {
  b_faster,   // the paired test rejects "no difference" at alpha and B takes less time
  b_slower,   // ... and B takes more time
  undecided,  // the test cannot reject at alpha: NOT evidence of "no difference"
};
const char* to_string(AbVerdict v);

// The practical size of a shape's change, next to the exact test (docs/ab.md, "Practical size"):
// with improvement = -delta per round (positive: B takes less time),
//   gain      every round improves by at least gain_pct,
//   loss      every round worsens by at least loss_pct,
//   neutral   every round stays strictly inside (-loss_pct, +gain_pct),
//   unstable  anything else: the rounds straddle a threshold.
// A steady 0.1% shift is `neutral` however small its p-value.
enum class PracticalClass { gain, loss, neutral, unstable };
const char* to_string(PracticalClass c);
struct PracticalThresholds {
  double gain_pct = 2.0;
  double loss_pct = 2.0;
};
PracticalClass practical_class(const std::vector<double>& delta_pct, const PracticalThresholds& t);

struct ShapeAb {
  std::string key, label;
  std::vector<double> a_us, b_us;  // per round, microseconds
  std::vector<double> delta_pct;   // per round: (B / A - 1) x 100; negative = B takes less time
  double a_median_us = 0, b_median_us = 0;  // median over rounds
  double change_pct = 0;                    // (b_median / a_median - 1) x 100
  double delta_min_pct = 0, delta_max_pct = 0;
  double round_spread_pct = 0;              // delta_max - delta_min (verdict stability)
  bool sign_stable = true;                  // every round's delta has the same sign
  double a_spread_pct = 0, b_spread_pct = 0;  // max/min - 1 over rounds, per side (machine noise)
  std::optional<double> cell_rel_iqr_pct;   // median over this shape's cells of the samples' rel. IQR
  WilcoxonResult test;                      // over the per-round deltas
  AbVerdict verdict = AbVerdict::undecided;
  PracticalClass practical = PracticalClass::unstable;
  bool eager_fallback = false;  // both sides' rows were eager fallbacks (kept apart)
};

struct OpAb {
  std::string op;
  bool reported = false;
  std::string no_report_reason;  // when !reported
  int rounds = 0;
  double alpha = 0.05;
  std::vector<ShapeAb> shapes;
  // Shapes whose rows fell back to eager on both sides in every round: reported apart, never in
  // the op's medians, counts or verdict stability.
  std::vector<ShapeAb> fallback_shapes;
  PracticalThresholds thresholds;
  int gain_shapes = 0, loss_shapes = 0, neutral_shapes = 0, practically_unstable_shapes = 0;
  // Shapes that were not measured successfully on both sides in every round: left out, named.
  std::vector<std::string> excluded_shapes;
  int unstable_shapes = 0;  // sign changed across rounds
  int faster_shapes = 0, slower_shapes = 0, undecided_shapes = 0;
  std::vector<double> per_round_median_delta_pct;  // per round: median over shapes of the delta
  double median_change_pct = 0;
  double median_side_spread_pct = 0;               // median over shapes and sides
  std::optional<double> median_cell_rel_iqr_pct;
  double min_attainable_p = 1;  // with this many rounds; > alpha means no shape can be decided
};

// Rules: an op gets a report only when every planned round has both cells ok (a report missing
// rounds reads exactly like a complete one); at least 2 rounds; only shapes ok in every cell.
OpAb aggregate_ab(const AbInput& input, double alpha = 0.05, const PracticalThresholds& thresholds = {});

}  // namespace caliber
