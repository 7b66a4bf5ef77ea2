// Per-shape speedup moves between two runs of one frozen ledger.
#include "caliber/regression_diff.h"

#include <cmath>
#include <map>

#include <fmt/format.h>

#include "caliber/result_json.h"

namespace caliber {
namespace {

std::string not_comparable_note(const ShapeComparison& s) {
  if (!s.candidate.usable()) return "candidate " + s.candidate.exclusion;
  return "no usable baseline";
}

const BenchmarkResultRow* first_candidate_row(const std::vector<BenchmarkResultRow>& rows, const std::string& candidate,
                                              bool need_kernel_only) {
  for (const auto& r : rows) {
    if (r.provider != candidate) continue;
    if (need_kernel_only && !r.kernel_only) continue;
    return &r;
  }
  return nullptr;
}

void compare_contract(std::vector<RunDifference>& out, const std::string& role, const std::optional<Result>& a,
                      const std::optional<Result>& b) {
  if (!a || !b) return;
  const nlohmann::json ja = to_json(a->contract);
  const nlohmann::json jb = to_json(b->contract);
  for (const auto& [key, value] : ja.items()) {
    const std::string other = jb.contains(key) ? jb.at(key).dump() : "<absent>";
    if (value.dump() != other) out.push_back({fmt::format("contracts[{}].{}", role, key), value.dump(), other});
  }
  for (const auto& [key, value] : jb.items()) {
    if (!ja.contains(key)) out.push_back({fmt::format("contracts[{}].{}", role, key), "<absent>", value.dump()});
  }
}

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

std::vector<RunDifference> result_runs_differences(const std::vector<BenchmarkResultRow>& before,
                                                   const std::vector<BenchmarkResultRow>& after,
                                                   const std::string& candidate) {
  std::vector<RunDifference> out;
  const BenchmarkResultRow* a = first_candidate_row(before, candidate, true);
  const BenchmarkResultRow* b = first_candidate_row(after, candidate, true);
  if (!a) a = first_candidate_row(before, candidate, false);
  if (!b) b = first_candidate_row(after, candidate, false);
  if (!a || !b) {
    out.push_back({"candidate", a ? candidate : "<no row>", b ? candidate : "<no row>"});
    return out;
  }
  if (a->backend != b->backend) out.push_back({"backend", a->backend, b->backend});
  if (a->gpu != b->gpu) out.push_back({"device.name", a->gpu, b->gpu});
  if (a->arch != b->arch) out.push_back({"device.arch", a->arch, b->arch});
  compare_contract(out, "kernel_only", a->kernel_only, b->kernel_only);
  compare_contract(out, "eager", a->eager, b->eager);
  return out;
}

}  // namespace caliber
