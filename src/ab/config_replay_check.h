// Record-vs-record, refused by name (docs/ab.md, "Configs: recorded once, replayed everywhere"):
// A's round-1 cell records the configurations its providers chose (cuBLASLt's algorithm, an
// autotuner's winner); every other cell must run exactly those. Two cells that each chose afresh
// compare two choices, not the change under test.
#pragma once

#include <string>
#include <vector>

#include "ab/ab_aggregate.h"

namespace caliber {

// True when some measured row of A's round-1 cell ran a config: the other cells then replay it.
bool recorded_any_config(const CellResults& a_round1);

// One line per row of `cell` whose counterpart in A's round-1 cell (same key) ran a config and
// which did not replay that config (it chose its own, or reports none): "<key>: A.r1 ran 'x',
// this cell ran 'y' (recorded)". Rows without a counterpart are not compared here (a shape
// measured on one side only is left out of the report anyway). Empty: the cell replayed every
// recorded config.
std::vector<std::string> record_vs_record(const CellResults& a_round1, const CellResults& cell);

}  // namespace caliber
