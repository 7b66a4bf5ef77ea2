// Which rows regressed from the good revision to the bad one, and how one commit is classified
// on those rows (docs/bisect.md, "How a commit is classified").
#pragma once

#include <string>
#include <vector>

#include "bisect/bisect_search.h"
#include "compare/gate.h"

namespace caliber::bisect {

// The gate found the row slower: beyond its practical threshold (its rule's, or the thresholds'
// report-only one) and confirmed by the rank test, or by the threshold alone when a side has no
// samples. That is a finding that fails the gate (finding_outcome fail) with the verdict SLOWER,
// whether the row is gated or report-only; a side marked unstable does not change it.
bool row_regressed(const compare::RowComparison& row);

// The base keys (name and params) of the rows that regressed, in report order.
std::vector<std::string> regressed_keys(const compare::CompareReport& report);

// The rows whose base key is among `keys`: both sides of a comparison restricted to the
// regressed rows (a row whose contract changed keeps its base key, and is refused, not dropped).
std::vector<compare::CompareRow> rows_among(const std::vector<compare::CompareRow>& rows,
                                            const std::vector<std::string>& keys);

// "BM_x [wallclock/pipelined/warm] +30.0% SLOWER" for a compared row; "<label>: <finding>" for
// one whose latencies were not compared.
std::string row_change_text(const compare::RowComparison& row);

// "3 rows: 2 SAME, 1 not compared": the verdicts of a report, for the preflight's refusal.
std::string verdict_counts(const compare::CompareReport& report);

struct CommitClassification {
  CommitVerdict verdict = CommitVerdict::good;
  std::string detail;  // every row's row_change_text, "; "-separated
};

// Classifies a commit by the comparison good -> commit restricted to the regressed rows: bad
// when one of them regressed; else skip when one of them was not compared (missing, refused for
// its contract or config, a failed measurement); else good (SAME, FASTER, or UNKNOWN: beyond the
// threshold but not confirmed by the rank test).
CommitClassification classify_commit(const compare::CompareReport& restricted);

}  // namespace caliber::bisect
