#include "compare/gate.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "compare/config_check.h"
#include "core/unit_text.h"

namespace caliber::compare {

std::string_view to_string(Outcome o) {
  switch (o) {
    case Outcome::pass: return "pass";
    case Outcome::fail: return "fail";
    case Outcome::skip: return "skip";
    case Outcome::unknown: return "unknown";
    case Outcome::report: return "report";
  }
  return "?";
}

std::string_view to_string(GateResult r) {
  switch (r) {
    case GateResult::pass: return "pass";
    case GateResult::fail: return "fail";
    case GateResult::refused: return "refused";
  }
  return "?";
}

std::string RowComparison::gate_label() const {
  if (!gated()) return fmt::format("[REPORT: {}]", finding);
  std::string word;
  switch (outcome) {
    case Outcome::pass: word = "PASS"; break;
    case Outcome::fail: word = "FAIL"; break;
    case Outcome::skip: word = "SKIP"; break;
    case Outcome::unknown: word = "UNKNOWN"; break;
    case Outcome::report: word = "REPORT"; break;
  }
  return fmt::format("[GATE {}: {}]", word, finding);
}

std::string RowComparison::verdict_label() const {
  if (!verdict) return "-";
  std::string text(to_string(verdict->verdict));
  if (is_move(verdict->verdict) && !unstable.empty()) text += " (unstable)";
  return text;
}

namespace {

bool is_broken(RowStatus s) {
  return s == RowStatus::failed || s == RowStatus::oom || s == RowStatus::incorrect ||
         s == RowStatus::faster_than_physical;
}

bool has_raw_us(const CompareRow& r) { return r.status == RowStatus::ok && r.value_us.has_value(); }

bool is_duration(double us) { return std::isfinite(us) && us >= 0; }

// Why a row's latency or samples are not durations (not finite, or negative); nothing when they are.
std::optional<std::string> invalid_latency(const CompareRow& r) {
  if (!is_duration(*r.value_us)) return fmt::format("latency is not a duration: {} us", *r.value_us);
  for (std::size_t i = 0; i < r.samples_us.size(); ++i) {
    if (!is_duration(r.samples_us[i])) return fmt::format("sample {} is not a duration: {} us", i, r.samples_us[i]);
  }
  return std::nullopt;
}

std::string status_suffix(const CompareRow& r) {
  if (r.status == RowStatus::ok) return "";
  return fmt::format(" (status {}{})", to_string(r.status),
                     r.status_detail.empty() ? "" : ": " + r.status_detail);
}

std::string signed_pct(double pct) {
  if (std::isinf(pct)) return pct > 0 ? "+inf%" : "-inf%";
  return fmt::format("{:+.1f}%", pct);
}

std::string signed_us(double us) { return (us >= 0 ? "+" : "") + format_us(us) + " us"; }

std::string limits(const PracticalThreshold& t) {
  return fmt::format("limits {}% and {} us", t.relative_pct, t.absolute_us);
}

void set_finding(RowComparison& row, Outcome o, std::string finding) {
  row.finding_outcome = o;
  row.finding = std::move(finding);
}

// A pass needs a current number whose outputs caliber verified; otherwise the row is UNKNOWN
// (FAIL under --strict), whatever its latency says.
void set_pass(RowComparison& row, bool strict, std::string finding) {
  const CompareRow& cur = *row.pair.current;
  if (cur.integrity.empty() || cur.integrity == "unverified") {
    const std::string why = cur.integrity.empty() ? "the file records no integrity checks"
                                                  : "its outputs were not verified: " + cur.integrity_detail;
    return set_finding(row, strict ? Outcome::fail : Outcome::unknown,
                       fmt::format("unverified{} ({}); {}", strict ? " (--strict)" : "", why, finding));
  }
  if (cur.integrity == "partial") finding += "; integrity partial: some checks could not run";
  set_finding(row, Outcome::pass, std::move(finding));
}

// The checks of docs/gate.md before any latency is compared, in order. True when one decided the
// row (its finding is set).
bool decided_before_latency(RowComparison& row, const std::string& replay_dir) {
  const auto& b = row.pair.baseline;
  const auto& c = row.pair.current;
  auto set = [&](Outcome o, std::string finding) {
    set_finding(row, o, std::move(finding));
    return true;
  };
  if (b && c && !b->arch.empty() && !c->arch.empty() && b->arch != c->arch) {
    return set(Outcome::skip, fmt::format("arch differs: {}→{}", b->arch, c->arch));
  }
  if (!c) return set(Outcome::fail, "missing from current");
  if (!b) return set(Outcome::skip, "new row: no baseline");
  if (is_broken(c->status)) {
    return set(Outcome::fail, fmt::format("current row {}{}", to_string(c->status),
                                          c->status_detail.empty() ? "" : ": " + c->status_detail));
  }
  // docs/integrity.md: a number whose integrity check failed is not a result; one whose outputs
  // were never verified cannot gate as a pass.
  if (c->integrity == "failed") return set(Outcome::fail, "current row failed an integrity check: " + c->integrity_detail);
  if (b->integrity == "failed") return set(Outcome::skip, "baseline row failed an integrity check: " + b->integrity_detail);
  if (!has_raw_us(*b)) return set(Outcome::skip, "baseline has no raw us" + status_suffix(*b));
  if (!has_raw_us(*c)) return set(Outcome::fail, "current has no raw us" + status_suffix(*c));
  // The readers refuse such rows; a row built any other way must not pass the gate either (a NaN
  // compares false with every limit, and -1000 us reads as faster).
  for (const auto& [side, measured] : {std::pair{"baseline", b}, std::pair{"current", c}}) {
    if (const auto bad = invalid_latency(*measured)) return set(Outcome::fail, fmt::format("{} {}", side, *bad));
  }
  row.contract_differences = contract_differences(b->contract, c->contract);
  if (!row.contract_differences.empty()) {
    row.contract_refused = true;
    return set(Outcome::fail, "contract differs: " + describe_differences(row.contract_differences));
  }
  // Two providers' own choices of configuration compare the choices, not the code.
  if (const auto mismatch = config_mismatch(*b, *c, replay_dir)) {
    row.config_refused = true;
    return set(Outcome::fail, *mismatch);
  }
  return false;
}

// "baseline p90/p10 = 1.56 > 1.2; current ...": the sides whose number is not stable.
std::string unstable_sides(const CompareRow& b, const CompareRow& c) {
  std::string out;
  for (const auto& [side, row] : {std::pair{"baseline", &b}, std::pair{"current", &c}}) {
    if (!row->unstable.empty()) out += fmt::format("{}{} {}", out.empty() ? "" : "; ", side, row->unstable);
  }
  return out;
}

// Runs the checks of docs/gate.md in order and fills finding / finding_outcome.
void classify(RowComparison& row, const PracticalThreshold& threshold, const StatisticsSettings& stats,
              bool strict, const std::string& replay_dir) {
  if (decided_before_latency(row, replay_dir)) return;
  const auto& b = row.pair.baseline;
  const auto& c = row.pair.current;
  row.change = latency_change(*b->value_us, *c->value_us, threshold);
  row.verdict = decide_verdict(*row.change, b->samples_us, c->samples_us, stats);
  row.unstable = unstable_sides(*b, *c);
  std::string moved = fmt::format("{}, {}", signed_pct(row.change->delta_pct), signed_us(row.change->delta_us));
  // A move on an unstable row may be the noise: its finding says which side and why (docs/gate.md).
  if (is_move(row.verdict->verdict) && !row.unstable.empty()) moved += fmt::format(" (unstable: {})", row.unstable);
  switch (row.verdict->verdict) {
    case Verdict::slower:
      return set_finding(row, Outcome::fail,
                         fmt::format("slower {} ({}); {}", moved, limits(threshold), row.verdict->basis));
    case Verdict::faster:
      return set_pass(row, strict, fmt::format("faster {}; {}", moved, row.verdict->basis));
    case Verdict::same:
      return set_pass(row, strict, fmt::format("same {}; {}", moved, row.verdict->basis));
    case Verdict::unknown:
      if (strict) {
        return set_finding(row, Outcome::fail, fmt::format("unknown (--strict) {} ({}); {}", moved, limits(threshold),
                                                           row.verdict->basis));
      }
      return set_finding(row, Outcome::unknown,
                         fmt::format("unknown {} ({}); {}", moved, limits(threshold), row.verdict->basis));
  }
}

// The rule that gates a row: the allowlist of the current run's architecture decides; a row whose
// contract changed stays gated when its baseline side matches a rule (row.arch is then the
// baseline's). Null: the row is report-only.
const GateRule* gating_rule(const Thresholds& thresholds, const RowPair& pair, RowComparison& row) {
  const GateRule* rule = nullptr;
  if (pair.current) rule = thresholds.rule_for(*pair.current, pair.current->arch);
  if (!rule && pair.baseline) {
    rule = thresholds.rule_for(*pair.baseline, pair.baseline->arch);
    if (rule) row.arch = pair.baseline->arch;
  }
  return rule;
}

// Notes on the thresholds file: architectures without rules, rules that matched no row, and the
// rows' architectures it does not declare.
void note_thresholds(CompareReport& report, const Thresholds& thresholds,
                     const std::set<std::pair<std::string, std::size_t>>& used_rules,
                     const std::set<std::string>& undeclared) {
  for (const auto& [arch, rules] : thresholds.architectures) {
    if (rules.rules.empty()) {
      report.notes.push_back(fmt::format("architecture {} is declared with no rules: reported, never gated", arch));
    }
    for (const GateRule& r : rules.rules) {
      if (!used_rules.count({arch, r.index})) {
        report.notes.push_back(fmt::format("{} matched no row in either file", r.describe()));
      }
    }
  }
  for (const std::string& arch : undeclared) {
    report.notes.push_back(fmt::format("architecture {} is not declared in {}: its rows are report-only",
                                       arch.empty() ? "(unrecorded)" : arch, thresholds.file));
  }
}

// The summary's counts and the gate's result: refused when a row in scope (gated, or any row
// without a thresholds file) was refused for its contract or config, else fail when a gated row
// failed, else pass.
void summarize(CompareReport& report, const Thresholds& thresholds) {
  GateSummary& s = report.summary;
  bool refused_contract = false, refused_config = false, failed = false;
  for (const RowComparison& row : report.rows) {
    ++s.rows;
    if (row.contract_refused) ++s.contract_refused;
    if (row.contract_refused && std::any_of(row.contract_differences.begin(), row.contract_differences.end(),
                                            [](const ContractDifference& d) { return d.field == "graph_calls"; })) {
      ++s.graph_calls_refused;
    }
    if (row.config_refused) ++s.config_refused;
    const bool in_scope = row.gated() || thresholds.file.empty();
    refused_contract = refused_contract || (in_scope && row.contract_refused);
    refused_config = refused_config || (in_scope && row.config_refused);
    if (!row.gated()) {
      ++s.report_only;
      continue;
    }
    ++s.gated;
    switch (row.outcome) {
      case Outcome::pass: ++s.passed; break;
      case Outcome::fail: ++s.failed; failed = true; break;
      case Outcome::skip: ++s.skipped; break;
      case Outcome::unknown: ++s.unknown; break;
      case Outcome::report: break;
    }
  }
  const bool refused = refused_contract || refused_config;
  // A gate that gated nothing (rules for another architecture only, or rules that match no row)
  // proves nothing: under --strict it fails, otherwise the summary line says so.
  const bool gated_nothing = !thresholds.file.empty() && s.gated == 0;
  failed = failed || (gated_nothing && report.strict);
  report.result = refused ? GateResult::refused : failed ? GateResult::fail : GateResult::pass;
  if (refused) {
    report.refusal = refused_contract && refused_config ? "contract and config mismatch"
                     : refused_contract                 ? "contract mismatch"
                                                        : "config mismatch";
  }
}

}  // namespace

CompareReport evaluate_gate(const std::vector<CompareRow>& baseline, const std::vector<CompareRow>& current,
                            const Thresholds& thresholds, const GateOptions& options,
                            const std::string& baseline_file, const std::string& current_file) {
  CompareReport report;
  report.baseline_file = baseline_file;
  report.current_file = current_file;
  report.thresholds_file = thresholds.file;
  report.statistics = thresholds.statistics;
  report.strict = options.strict;

  const std::string replay_dir = replay_directory_of(baseline_file);
  std::set<std::pair<std::string, std::size_t>> used_rules;
  std::set<std::string> undeclared;
  for (RowPair& pair : match_rows(baseline, current)) {
    RowComparison row;
    const CompareRow& shown = pair.current ? *pair.current : *pair.baseline;
    row.label = shown.label();
    row.arch = shown.arch;
    const GateRule* rule = gating_rule(thresholds, pair, row);
    if (rule) {
      row.rule = *rule;
      used_rules.emplace(rule->arch, rule->index);
    }
    if (!thresholds.file.empty() && !thresholds.architectures.count(row.arch)) undeclared.insert(row.arch);
    row.pair = std::move(pair);
    classify(row, rule ? rule->threshold : thresholds.report_only, thresholds.statistics, options.strict, replay_dir);
    row.outcome = rule ? row.finding_outcome : Outcome::report;
    report.rows.push_back(std::move(row));
  }
  note_thresholds(report, thresholds, used_rules, undeclared);
  summarize(report, thresholds);
  return report;
}

}  // namespace caliber::compare
