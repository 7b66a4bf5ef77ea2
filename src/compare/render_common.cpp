#include <cmath>

#include <fmt/format.h>

#include "compare/report_renderers.h"
#include "core/unit_text.h"

namespace caliber::compare {

std::string gate_summary_line(const CompareReport& r) {
  const GateSummary& s = r.summary;
  std::string head;
  switch (r.result) {
    case GateResult::pass: head = "gate PASS"; break;
    case GateResult::fail: head = "gate FAIL"; break;
    case GateResult::refused: head = fmt::format("gate REFUSED ({})", r.refusal); break;
  }
  std::string line = fmt::format("{}: {} of {} gated rows failed ({} passed, {} skipped, {} unknown); "
                                 "{} report-only rows",
                                 head, s.failed, s.gated, s.passed, s.skipped, s.unknown, s.report_only);
  if (s.gated == 0 && !r.thresholds_file.empty()) {
    line += fmt::format("; nothing was gated: no row matched a rule of an architecture {} declares{}",
                        r.thresholds_file, r.strict ? " (--strict: a gate that gated nothing fails)" : "");
  }
  if (s.contract_refused > 0) {
    line += fmt::format("; {} rows not compared: contract differs", s.contract_refused);
  }
  if (s.graph_calls_refused > 0) {
    line += fmt::format(" ({} in graph_calls: --graph-calls auto chooses them from each run's eager medians; "
                        "run the current side with --replay-configs BASELINE_DIR to take the baseline's, or "
                        "fix them with --graph-calls N)",
                        s.graph_calls_refused);
  }
  if (s.config_refused > 0) {
    line += fmt::format("; {} rows not compared: config differs (record-vs-record or one-sided)", s.config_refused);
  }
  return line;
}

std::string statistics_text(const CompareReport& r) {
  return fmt::format("rank test alpha {}, at least {} samples per side{}", r.statistics.alpha,
                     r.statistics.min_samples, r.strict ? ", --strict" : "");
}

RowCells row_cells(const RowComparison& row) {
  RowCells c{"-", "-", "-", "-", "-"};
  const auto& b = row.pair.baseline;
  const auto& cur = row.pair.current;
  if (b && b->value_us && b->status == RowStatus::ok) c.baseline_us = format_us(*b->value_us);
  if (cur && cur->value_us && cur->status == RowStatus::ok) c.current_us = format_us(*cur->value_us);
  if (row.change) {
    c.delta = std::isinf(row.change->delta_pct) ? (row.change->delta_pct > 0 ? "+inf%" : "-inf%")
                                                : fmt::format("{:+.1f}%", row.change->delta_pct);
  }
  if (row.verdict) {
    c.verdict = row.verdict_label();
    if (row.verdict->test) c.p_value = format_p_value(row.verdict->test->p_two_sided);
  }
  return c;
}

}  // namespace caliber::compare
