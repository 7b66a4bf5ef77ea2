// The screening verdict: is one A/B pair worth N rounds? Decided from the two cells and the code
// each side executed; the verdict governs what may be printed (docs/screen.md).
#pragma once

#include <optional>
#include <string>

#include "ab/ab_aggregate.h"
#include "fingerprint/code_fingerprint.h"

namespace caliber {

enum class ScreenVerdict {
  code_changed,  // the sides executed different code: worth N rounds; the pair's delta is printed as one pair
  no_code_diff,  // byte-identical code: skip; the delta is printed only as this op's noise floor
  no_kernel,     // rows measured, but no device code ran: nothing for the change to act on; no delta
  no_rows,       // nothing measured (a failed or timed-out cell, or no ok row): no delta
  unscreened,    // a cell recorded no code fingerprint: whether code changed is unknown
};
const char* to_string(ScreenVerdict v);

struct ScreenSide {
  CellOutcome cell;
  std::optional<CodeFingerprint> fingerprint;  // nullopt: the cell wrote none
};

struct ScreenDecision {
  ScreenVerdict verdict = ScreenVerdict::no_rows;
  std::string note;               // what the verdict means here, and what it does not mean
  bool print_delta = false;       // may a speedup/slowdown be printed at all
  std::string delta_label;        // how a printed delta must be labelled
};

ScreenDecision screen_verdict(const ScreenSide& a, const ScreenSide& b);

// The per-shape deltas of one pair: (B / A - 1) x 100 over shapes measured on both sides.
struct PairDelta {
  int shapes = 0;
  double median_pct = 0, min_pct = 0, max_pct = 0;
};
PairDelta pair_delta(const CellResults& a, const CellResults& b);

}  // namespace caliber
