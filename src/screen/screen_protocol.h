// caliber screen: one A/B pair per op plus the code each side executed; a verdict that decides
// whether the op is worth N rounds and governs what is printed (docs/screen.md).
//
// Output directory: screen_plan.json, status.tsv, <op>/r1_A and <op>/r1_B (the cells),
// screen.tsv (one row per op, ending with the caliber columns), screen_report.txt.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "ab/ab_protocol.h"
#include "screen/screen_verdict.h"

namespace caliber {

struct ScreenOpResult {
  std::string op;
  CellRun a, b;
  ScreenDecision decision;
  PairDelta delta;  // meaningful only when decision.print_delta
};

struct ScreenRunResult {
  std::vector<ScreenOpResult> ops;
  int exit_code = 0;  // 1 when a cell failed (an op screened NO_ROWS because nothing ran)
};

const std::vector<std::string>& screen_tsv_columns();

// Runs A then B once per op (plan.rounds is ignored). Throws CaliberMismatchError (exit 4) when
// the two cells' identities differ and the plan does not allow it.
ScreenRunResult run_screen(const AbPlan& plan, CellRunner& runner, const CellResultsReader& reader,
                           std::ostream& report, std::ostream& progress);

}  // namespace caliber
