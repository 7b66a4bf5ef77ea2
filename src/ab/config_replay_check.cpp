#include "ab/config_replay_check.h"

#include <map>

#include <fmt/format.h>

namespace caliber {

bool recorded_any_config(const CellResults& a_round1) {
  for (const ShapeMeasurement& m : a_round1.rows) {
    if (!m.config_key.empty()) return true;
  }
  return false;
}

std::vector<std::string> record_vs_record(const CellResults& a_round1, const CellResults& cell) {
  std::map<std::string, const ShapeMeasurement*> reference;
  for (const ShapeMeasurement& m : a_round1.rows) {
    if (!m.config_key.empty()) reference.emplace(m.key, &m);
  }
  std::vector<std::string> out;
  for (const ShapeMeasurement& m : cell.rows) {
    const auto it = reference.find(m.key);
    if (it == reference.end()) continue;
    const std::string& want = it->second->config_key;
    if (m.config_key.empty()) {
      out.push_back(fmt::format("{}: A.r1 ran '{}', this cell ran no recorded config", m.key, want));
    } else if (m.config_pinning != "replayed" || m.config_key != want) {
      out.push_back(fmt::format("{}: A.r1 ran '{}', this cell ran '{}' ({})", m.key, want, m.config_key,
                                m.config_pinning.empty() ? "no pinning recorded" : m.config_pinning));
    }
  }
  return out;
}

}  // namespace caliber
