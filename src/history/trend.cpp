// Trends of the stored series (history/trend.h).
#include "history/trend.h"

#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "compare/compare_row.h"
#include "core/contract_fields.h"

namespace caliber::history {
namespace {

compare::ContractFields contract_from_json(const std::string& text) {
  compare::ContractFields fields;
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_object()) return fields;
  for (const ContractField& f : contract_field_table()) {
    if (auto it = j.find(std::string(f.name)); it != j.end() && it->is_string()) fields[f.name] = *it;
  }
  return fields;
}

// The caliber fields of the identity that differ between two runs: "device.driver_version 550→560".
std::string identity_differences(const StoredRun& a, const StoredRun& b) {
  const nlohmann::json ja = nlohmann::json::parse(a.identity_fields, nullptr, false);
  const nlohmann::json jb = nlohmann::json::parse(b.identity_fields, nullptr, false);
  if (!ja.is_object() || !jb.is_object() || ja.empty() || jb.empty()) {
    return ja.empty() == jb.empty() ? "" : "a run identity on one side only";
  }
  std::string out;
  for (const auto& [field, value] : jb.items()) {
    if (field == "contracts") continue;  // told field by field by the contract difference
    const std::string before = ja.contains(field) ? ja[field].get<std::string>() : "(unrecorded)";
    if (before != value.get<std::string>()) {
      out += fmt::format("{}{} {}→{}", out.empty() ? "" : ", ", field, before, value.get<std::string>());
    }
  }
  return out;
}

// Why series `s` (first run `first`) is not a continuation of `prev` (last run `last`).
std::string why_new(const StoredSeries& prev, const StoredRun& last, const StoredSeries& s, const StoredRun& first) {
  std::vector<std::string> why;
  if (prev.record.arch != s.record.arch) why.push_back(fmt::format("arch {}→{}", prev.record.arch, s.record.arch));
  const auto diffs = compare::contract_differences(contract_from_json(prev.record.contract),
                                                   contract_from_json(s.record.contract));
  if (!diffs.empty()) why.push_back("contract " + compare::describe_differences(diffs));
  if (prev.record.identity_key != s.record.identity_key) {
    const std::string ids = identity_differences(last, first);
    why.push_back("run identity " + (ids.empty() ? std::string("(caliber fields differ)") : ids));
  }
  return fmt::format("continues series {}: {}", prev.id, fmt::join(why, "; "));
}

void explain_new_series(std::vector<SeriesTrend>& trends, const History& history) {
  std::map<std::string, const SeriesTrend*> latest;  // by name and params, the series seen last
  std::vector<SeriesTrend*> by_start;
  for (SeriesTrend& t : trends) {
    if (!t.series->points.empty()) by_start.push_back(&t);
  }
  std::stable_sort(by_start.begin(), by_start.end(), [&](const SeriesTrend* a, const SeriesTrend* b) {
    return history.run_of(a->series->points.front()).date < history.run_of(b->series->points.front()).date;
  });
  for (SeriesTrend* t : by_start) {
    const std::string key = t->series->record.name + " " + t->series->record.params;
    if (auto it = latest.find(key); it != latest.end()) {
      const StoredSeries& prev = *it->second->series;
      t->new_series_because = why_new(prev, history.run_of(prev.points.back()), *t->series,
                                      history.run_of(t->series->points.front()));
    }
    latest[key] = t;
  }
}

}  // namespace

std::string reproduce_command(const StoredRun& run) {
  const std::string command = run.command.empty() ? "# the command was not recorded: the run came from " + run.source
                                                  : run.command;
  return fmt::format("git checkout {} && {}", run.commit, command);
}

std::string method_text(const ChangePointSettings& s) {
  return fmt::format("E-divisive means (Matteson & James 2014) with a permutation test of {} permutations at "
                     "alpha {} (the false-alarm rate per series), segments of at least {} points",
                     s.permutations, s.alpha, s.min_segment);
}

Trends compute_trends(const History& history, const ChangePointSettings& settings) {
  Trends trends;
  trends.settings = settings;
  for (const StoredSeries& s : history.series) {
    SeriesTrend t;
    t.series = &s;
    for (std::size_t i = 0; i < s.points.size(); ++i) {
      if (!s.points[i].value_us) continue;
      t.measured.push_back(i);
      t.values.push_back(*s.points[i].value_us);
    }
    // Each series draws its own permutations (seeded by its id): one unlucky draw does not hide a
    // change in every series at once, and the same history still gives the same answer.
    ChangePointSettings own = settings;
    own.seed = settings.seed ^ (static_cast<std::uint64_t>(s.id) * 0x9E3779B97F4A7C15ull);
    for (const ChangePoint& cp : find_change_points(t.values, own)) {
      TrendChange c;
      c.point = cp;
      c.before = t.measured[cp.index - 1];
      c.after = t.measured[cp.index];
      c.direction = cp.after > cp.before ? "slower" : "faster";
      c.reproduce_before = reproduce_command(history.run_of(s.points[c.before]));
      c.reproduce_after = reproduce_command(history.run_of(s.points[c.after]));
      t.changes.push_back(std::move(c));
    }
    trends.series.push_back(std::move(t));
  }
  explain_new_series(trends.series, history);
  return trends;
}

}  // namespace caliber::history
