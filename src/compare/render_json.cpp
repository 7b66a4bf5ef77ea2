// The comparison as JSON (kind caliber.comparison, schema_version 1; docs/gate.md "JSON output").
#include <cmath>
#include <ostream>

#include <nlohmann/json.hpp>

#include "compare/report_renderers.h"

namespace caliber::compare {
namespace {

using nlohmann::json;

json number_or_null(std::optional<double> v) {
  if (!v || !std::isfinite(*v)) return nullptr;
  return *v;
}

json side(const std::optional<CompareRow>& r) {
  if (!r) return nullptr;
  json j = {{"arch", r->arch},
            {"status", std::string(to_string(r->status))},
            {"value_us", number_or_null(r->value_us)},
            {"n", r->n},
            {"samples", r->samples_us.size()},
            {"origin", r->origin}};
  if (!r->unstable.empty()) j["unstable"] = r->unstable;
  if (!r->status_detail.empty()) j["status_detail"] = r->status_detail;
  if (r->config) {
    j["config"] = {{"pinning", std::string(to_string(r->config->pinning))},
                   {"key", r->config->key},
                   {"description", r->config->description},
                   {"source", r->config->source.empty() ? json(nullptr) : json(r->config->source)}};
  }
  if (r->arch_assumed) j["arch_assumed"] = true;
  return j;
}

// One row of the comparison: its label and outcome, both sides, the rule that gates it, and what
// was decided from the latencies (or why they were not compared).
json row_json(const RowComparison& row) {
  const CompareRow& shown = row.pair.current ? *row.pair.current : *row.pair.baseline;
  json j = {{"label", row.label},
            {"name", shown.name},
            {"params", shown.params},
            {"arch", row.arch},
            {"gated", row.gated()},
            {"outcome", std::string(to_string(row.outcome))},
            {"finding", row.finding},
            {"gate_label", row.gate_label()},
            {"baseline", side(row.pair.baseline)},
            {"current", side(row.pair.current)}};
  if (row.rule) {
    j["rule"] = {{"arch", row.rule->arch},
                 {"index", row.rule->index},
                 {"name", row.rule->name},
                 {"relative_pct", row.rule->threshold.relative_pct},
                 {"absolute_us", row.rule->threshold.absolute_us},
                 {"calibration", row.rule->calibration}};
  }
  if (row.change) {
    j["delta_us"] = row.change->delta_us;
    j["delta_pct"] = number_or_null(row.change->delta_pct);
  }
  if (row.verdict) {
    j["verdict"] = std::string(to_string(row.verdict->verdict));
    j["verdict_label"] = row.verdict_label();
    j["unstable"] = !row.unstable.empty();
    j["verdict_basis"] = row.verdict->basis;
    if (row.verdict->test) {
      j["rank_test"] = {{"w", row.verdict->test->w},
                        {"p_two_sided", row.verdict->test->p_two_sided},
                        {"method", std::string(row.verdict->test->method())},
                        {"ties", row.verdict->test->ties}};
    }
  }
  if (!row.contract_differences.empty()) {
    j["contract_differences"] = json::array();
    for (const auto& d : row.contract_differences) {
      j["contract_differences"].push_back({{"field", d.field},
                                           {"baseline", d.baseline.empty() ? json(nullptr) : json(d.baseline)},
                                           {"current", d.current.empty() ? json(nullptr) : json(d.current)}});
    }
  }
  return j;
}

}  // namespace

void write_compare_json(std::ostream& out, const CompareReport& r) {
  json doc = json::object();
  doc["schema_version"] = kComparisonSchemaVersion;
  doc["kind"] = "caliber.comparison";
  doc["baseline"] = r.baseline_file;
  doc["current"] = r.current_file;
  doc["thresholds"] = r.thresholds_file.empty() ? json(nullptr) : json(r.thresholds_file);
  doc["statistics"] = {{"test", "mann-whitney-u"},
                       {"alpha", r.statistics.alpha},
                       {"min_samples", r.statistics.min_samples},
                       {"strict", r.strict}};
  doc["result"] = std::string(to_string(r.result));
  const GateSummary& s = r.summary;
  doc["summary"] = {{"rows", s.rows},       {"gated", s.gated},
                    {"passed", s.passed},   {"failed", s.failed},
                    {"skipped", s.skipped}, {"unknown", s.unknown},
                    {"report_only", s.report_only}, {"contract_refused", s.contract_refused},
                    {"config_refused", s.config_refused}};
  doc["rows"] = json::array();
  for (const RowComparison& row : r.rows) doc["rows"].push_back(row_json(row));
  doc["notes"] = r.notes;
  out << doc.dump(2) << '\n';
}

}  // namespace caliber::compare
