// Thresholds calibrated from history (history/threshold_calibration.h).
#include "history/threshold_calibration.h"

#include <map>

#include <fmt/format.h>

namespace caliber::history {
namespace {

// The row name as a glob that matches only itself.
std::string literal_glob(const std::string& name) {
  std::string out;
  for (char c : name) {
    if (c == '*' || c == '?' || c == '[') out += std::string("[") + c + "]";
    else out += c;
  }
  return out;
}

nlohmann::json rule_params(const std::string& params_text) {
  nlohmann::json out = nlohmann::json::object();
  const nlohmann::json params = nlohmann::json::parse(params_text);
  for (auto it = params.begin(); it != params.end(); ++it) {
    if (it->is_string() || it->is_number() || it->is_boolean()) out[it.key()] = *it;
  }
  return out;
}

nlohmann::json rule_contract(const std::string& contract_text) {
  nlohmann::json out = nlohmann::json::object();
  const nlohmann::json contract = nlohmann::json::parse(contract_text);
  for (const char* field : {"quantity", "instrument", "schedule", "cache", "statistic"}) {
    if (contract.contains(field) && !contract[field].get<std::string>().empty()) out[field] = contract[field];
  }
  return out;
}

struct Candidate {
  const SeriesTrend* trend = nullptr;
  std::string last_date;
};

void add_rule(Calibration& c, const SeriesTrend& t, const History& h, const NoiseSettings& noise) {
  const StoredSeries& s = *t.series;
  const std::size_t from = t.changes.empty() ? 0 : t.changes.back().point.index;
  const std::vector<double> stable(t.values.begin() + static_cast<std::ptrdiff_t>(from), t.values.end());
  const auto threshold = noise_threshold(stable, noise);
  if (!threshold) {
    c.refused.push_back({s.id, s.record.label, s.record.arch,
                         fmt::format("{} measured runs{}; {} needed", stable.size(),
                                     t.changes.empty() ? "" : " since its last change point", noise.min_runs)});
    return;
  }
  const StoredRun& first = h.run_of(s.points[t.measured[from]]);
  const StoredRun& last = h.run_of(s.points[t.measured.back()]);
  const std::string calibration = fmt::format(
      "caliber thresholds calibrate: {}; history series {} ({} runs from {} to {}, commits {}..{}){}", describe(*threshold, noise),
      s.id, stable.size(), first.date, last.date, first.commit.substr(0, 12), last.commit.substr(0, 12),
      t.changes.empty() ? "" : ", after its last change point");
  nlohmann::json& arch = c.thresholds["architectures"][s.record.arch];
  if (!arch.contains("rules")) {
    arch["calibration"] = "caliber thresholds calibrate: run-to-run noise of the stable series in the history";
    arch["rules"] = nlohmann::json::array();
  }
  arch["rules"].push_back({{"name", literal_glob(s.record.name)},
                           {"params", rule_params(s.record.params)},
                           {"contract", rule_contract(s.record.contract)},
                           {"relative_pct", threshold->relative_pct},
                           {"absolute_us", threshold->absolute_us},
                           {"calibration", calibration}});
  ++c.rules;
}

}  // namespace

Calibration calibrate_thresholds(const Trends& trends, const History& h, const NoiseSettings& noise,
                                 const std::string& arch) {
  Calibration c;
  c.thresholds = {{"schema_version", 1},
                  {"kind", "caliber.thresholds"},
                  {"description", "Calibrated from run history by caliber thresholds calibrate (docs/history.md)"},
                  {"architectures", nlohmann::json::object()}};
  // One rule per (arch, name, params, variant): the series measured last gives it.
  std::map<std::string, Candidate> chosen;
  for (const SeriesTrend& t : trends.series) {
    const StoredSeries& s = *t.series;
    if ((!arch.empty() && s.record.arch != arch) || s.points.empty()) continue;
    if (s.record.arch.empty()) {
      c.refused.push_back({s.id, s.record.label, "", "its results record no architecture to key a rule by"});
      continue;
    }
    const std::string key = s.record.arch + "\n" + s.record.name + "\n" + s.record.params + "\n" +
                            rule_contract(s.record.contract).dump();
    const std::string last = h.run_of(s.points.back()).date;
    auto [it, fresh] = chosen.emplace(key, Candidate{&t, last});
    if (!fresh && last >= it->second.last_date) it->second = {&t, last};
  }
  for (const auto& [key, candidate] : chosen) add_rule(c, *candidate.trend, h, noise);
  return c;
}

}  // namespace caliber::history
