// Per-shape speedup moves between two runs of one frozen ledger.
#include "analysis/regression_diff.h"

#include <cmath>
#include <map>

#include <fmt/format.h>

#include "caliber/contract.h"

namespace caliber {
namespace {

std::string not_comparable_note(const ShapeComparison& s) {
  if (!s.candidate.usable()) return "candidate " + s.candidate.exclusion;
  return "no usable baseline";
}

// The line of row i, 0 when not known.
long line_of(const std::vector<long>& lines, std::size_t i) { return i < lines.size() ? lines[i] : 0; }

}  // namespace

std::size_t RegressionDiff::count(const std::string& verdict) const {
  std::size_t n = 0;
  for (const auto& s : shapes) n += s.verdict == verdict;
  return n;
}

RegressionDiff diff_runs(const ComparisonSet& before, const ComparisonSet& after, double threshold) {
  RegressionDiff diff;
  diff.threshold = threshold;
  std::map<std::string, const ShapeComparison*> old_shapes;
  for (const auto& s : before.shapes) old_shapes[s.shape.shape_id] = &s;
  for (const ShapeComparison& now : after.shapes) {
    ShapeMove m;
    m.shape_id = now.shape.shape_id;
    m.dtype = std::string(to_string(now.shape.dtype));
    m.args = now.args_label();
    m.stage = std::string(to_string(now.shape.stage));
    m.model = now.shape.model.value_or("-");
    m.after_speedup = now.speedup_vs_best;
    m.after_best = now.best_baseline ? after.provider_label(*now.best_baseline) : "";
    m.after_candidate_us = now.candidate.kernel_only_us();
    auto it = old_shapes.find(now.shape.shape_id);
    if (it != old_shapes.end()) {
      const ShapeComparison& was = *it->second;
      m.before_speedup = was.speedup_vs_best;
      m.before_best = was.best_baseline ? before.provider_label(*was.best_baseline) : "";
      m.before_candidate_us = was.candidate.kernel_only_us();
      if (!m.before_speedup) m.note = "before: " + not_comparable_note(was);
    }
    if (!m.after_speedup) m.note += (m.note.empty() ? "" : "; ") + ("after: " + not_comparable_note(now));
    if (m.before_speedup && m.after_speedup) {
      m.ratio = *m.after_speedup / *m.before_speedup;
      m.verdict = *m.ratio < 1 - threshold ? "regressed" : *m.ratio > 1 + threshold ? "improved" : "unchanged";
    } else {
      m.verdict = "not comparable";
    }
    diff.shapes.push_back(std::move(m));
  }
  return diff;
}

nlohmann::json to_json(const ShapeMove& m) {
  auto opt = [](const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
  return nlohmann::json{{"shape_id", m.shape_id},
                        {"dtype", m.dtype},
                        {"args", m.args},
                        {"stage", m.stage},
                        {"model", m.model},
                        {"verdict", m.verdict},
                        {"before_speedup_vs_best", opt(m.before_speedup)},
                        {"after_speedup_vs_best", opt(m.after_speedup)},
                        {"ratio", opt(m.ratio)},
                        {"before_best_baseline", m.before_best},
                        {"after_best_baseline", m.after_best},
                        {"before_candidate_us", opt(m.before_candidate_us)},
                        {"after_candidate_us", opt(m.after_candidate_us)},
                        {"note", m.note}};
}

std::vector<CaliberDifference> rows_unlike_identity(const std::vector<BenchmarkResultRow>& rows,
                                                    const std::vector<long>& row_lines, const RunIdentity& identity,
                                                    const std::string& results_file) {
  using Field = std::pair<const char*, std::string (*)(const BenchmarkResultRow&)>;
  static const Field kFields[] = {
      {"backend", [](const BenchmarkResultRow& r) { return r.backend; }},
      {"device.name", [](const BenchmarkResultRow& r) { return r.gpu; }},
      {"device.arch", [](const BenchmarkResultRow& r) { return r.arch; }},
      {"device.driver_version", [](const BenchmarkResultRow& r) { return r.driver_version; }},
      {"device.runtime_version", [](const BenchmarkResultRow& r) { return r.runtime_version; }},
  };
  const DeviceInfo& d = identity.device;
  const std::string expected[] = {std::string(to_string(d.backend)), d.name, d.arch, d.driver_version,
                                  d.runtime_version};
  std::vector<CaliberDifference> out;
  for (std::size_t f = 0; f < std::size(kFields); ++f) {
    std::size_t first = rows.size(), count = 0;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      if (kFields[f].second(rows[i]) == expected[f]) continue;
      if (count++ == 0) first = i;
    }
    if (count == 0) continue;
    const std::string where = line_of(row_lines, first) > 0
                                  ? fmt::format("{}:{}", results_file, line_of(row_lines, first))
                                  : results_file;
    out.push_back({fmt::format("{} {}{}", where, kFields[f].first,
                               count > 1 ? fmt::format(" ({} rows differ)", count) : std::string()),
                   expected[f], kFields[f].second(rows[first])});
  }
  return out;
}

}  // namespace caliber
