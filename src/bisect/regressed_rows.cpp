#include "bisect/regressed_rows.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

namespace caliber::bisect {

using compare::CompareReport;
using compare::CompareRow;
using compare::RowComparison;

bool row_regressed(const RowComparison& row) {
  return row.finding_outcome == compare::Outcome::fail && row.verdict && row.verdict->verdict == compare::Verdict::slower;
}

std::vector<std::string> regressed_keys(const CompareReport& report) {
  std::vector<std::string> keys;
  for (const RowComparison& row : report.rows) {
    if (row_regressed(row)) keys.push_back(row.pair.baseline->base_key());
  }
  return keys;
}

std::vector<CompareRow> rows_among(const std::vector<CompareRow>& rows, const std::vector<std::string>& keys) {
  std::vector<CompareRow> kept;
  for (const CompareRow& row : rows) {
    if (std::find(keys.begin(), keys.end(), row.base_key()) != keys.end()) kept.push_back(row);
  }
  return kept;
}

std::string row_change_text(const RowComparison& row) {
  if (!row.verdict || !row.change) return fmt::format("{}: {}", row.label, row.finding);
  const double pct = row.change->delta_pct;
  const std::string moved = std::isinf(pct) ? (pct > 0 ? "+inf%" : "-inf%") : fmt::format("{:+.1f}%", pct);
  return fmt::format("{} {} {}", row.label, moved, row.verdict_label());
}

std::string verdict_counts(const CompareReport& report) {
  std::map<std::string, std::size_t> counts;
  for (const RowComparison& row : report.rows) ++counts[row.verdict ? row.verdict_label() : "not compared"];
  std::string text = fmt::format("{} row{}", report.rows.size(), report.rows.size() == 1 ? "" : "s");
  const char* sep = ": ";
  for (const auto& [label, n] : counts) {
    text += fmt::format("{}{} {}", sep, n, label);
    sep = ", ";
  }
  return text;
}

CommitClassification classify_commit(const CompareReport& restricted) {
  CommitClassification c;
  bool regressed = false, uncompared = false;
  for (const RowComparison& row : restricted.rows) {
    regressed = regressed || row_regressed(row);
    uncompared = uncompared || !row.verdict;
    c.detail += (c.detail.empty() ? "" : "; ") + row_change_text(row);
  }
  c.verdict = regressed ? CommitVerdict::bad : uncompared ? CommitVerdict::skip : CommitVerdict::good;
  return c;
}

}  // namespace caliber::bisect
