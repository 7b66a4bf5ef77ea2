// The regression gate: every paired row gets an outcome and a label such as
// [GATE FAIL: contract differs: schedule isolated→graph] or [GATE SKIP: baseline has no raw us].
// The rules (fails closed / fails open, in the order they are checked) are in docs/gate.md.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "compare/compare_row.h"
#include "compare/row_matching.h"
#include "compare/thresholds.h"
#include "compare/verdict.h"

namespace caliber::compare {

// pass/fail/skip/unknown: the outcome of a gated row. report: the row is not allowlisted.
enum class Outcome { pass, fail, skip, unknown, report };
std::string_view to_string(Outcome o);

struct RowComparison {
  RowPair pair;
  std::string label;  // the row's label (the current row's, else the baseline's)
  std::string arch;   // the architecture whose rules were consulted
  std::optional<GateRule> rule;  // the allowlist rule gating this row; none: report-only
  std::optional<LatencyChange> change;       // when both latencies were compared
  std::optional<StatisticalVerdict> verdict;
  // Why a compared side's number is not stable, as the reports call it ("baseline p90/p10 = 1.56 >
  // 1.2"); empty when both are stable or their files record no stability.
  std::string unstable;
  std::vector<ContractDifference> contract_differences;
  bool contract_refused = false;  // the contracts differ: the latencies were not compared
  // The providers' configs make the pair not like for like (record-vs-record, or a config on one
  // side only: compare/config_check.h): the latencies were not compared.
  bool config_refused = false;
  bool refused() const { return contract_refused || config_refused; }
  Outcome outcome = Outcome::report;
  // What the row's check found, e.g. "missing from current", "slower: +25.0% +12.30 us".
  std::string finding;
  // Outcome of the same checks had the row been gated (for report-only rows).
  Outcome finding_outcome = Outcome::pass;

  bool gated() const { return rule.has_value(); }
  // The verdict as every renderer prints it: "FASTER", or "FASTER (unstable)" / "SLOWER (unstable)"
  // when a side is unstable (the move may be the noise); "-" when the latencies were not compared.
  // The gate's outcome does not depend on it (docs/gate.md, "Unstable rows").
  std::string verdict_label() const;
  // "[GATE FAIL: <finding>]", "[GATE PASS: <finding>]", "[REPORT: <finding>]".
  std::string gate_label() const;
};

// pass: nothing gated failed. fail: a gated row failed. refused: a contract or the providers'
// configs differ on a row in scope (a gated row; every row when there is no thresholds file): the
// comparison is refused.
enum class GateResult { pass, fail, refused };
std::string_view to_string(GateResult r);

struct GateSummary {
  std::size_t rows = 0, gated = 0, passed = 0, failed = 0, skipped = 0, unknown = 0;
  std::size_t report_only = 0, contract_refused = 0, config_refused = 0;
  std::size_t graph_calls_refused = 0;  // of contract_refused: graph_calls among the differences
};

struct GateOptions {
  bool strict = false;  // a gated UNKNOWN fails
};

struct CompareReport {
  std::string baseline_file, current_file;
  std::string thresholds_file;  // empty: none
  StatisticsSettings statistics;
  bool strict = false;
  std::vector<RowComparison> rows;
  std::vector<std::string> notes;  // rules that matched nothing, undeclared architectures
  GateSummary summary;
  GateResult result = GateResult::pass;
  // Why the comparison was refused: "contract mismatch", "config mismatch" or "contract and config
  // mismatch"; empty unless result is refused.
  std::string refusal;
};

CompareReport evaluate_gate(const std::vector<CompareRow>& baseline,
                            const std::vector<CompareRow>& current, const Thresholds& thresholds,
                            const GateOptions& options, const std::string& baseline_file,
                            const std::string& current_file);

}  // namespace caliber::compare
