// Sums the cells' phases and the measurements' wall time of a campaign's rows.
#include "campaign/campaign_time.h"

#include <fmt/format.h>

namespace caliber::campaign {
using json = nlohmann::json;

CampaignTime campaign_time(const std::vector<const BenchmarkResultRow*>& rows) {
  CampaignTime t;
  for (const BenchmarkResultRow* r : rows) {
    ++t.rows;
    t.cells_wall_ms += r->cell_wall_time_ms;
    for (const std::optional<Result>* m : {&r->eager, &r->kernel_only}) {
      if (*m) t.inside_contracts_ms += (*m)->wall_time_ms;
    }
    if (!r->cell_phases) continue;
    ++t.rows_with_phases;
    for (const auto& [name, member] : cell_phase_fields()) t.phases.*member += (*r->cell_phases).*member;
  }
  return t;
}

json to_json(const CampaignTime& t, double campaign_wall_s) {
  json phases = json::object(), per_cell = json::object();
  for (const auto& [name, member] : cell_phase_fields()) {
    phases[name] = t.phases.*member;
    per_cell[name] = t.rows_with_phases ? t.phases.*member / static_cast<double>(t.rows_with_phases) : 0.0;
  }
  json j = {{"rows", t.rows},
            {"rows_with_phases", t.rows_with_phases},
            {"cells_wall_ms", t.cells_wall_ms},
            {"inside_contracts_ms", t.inside_contracts_ms},
            {"phases_ms", phases},
            {"per_cell_ms", per_cell}};
  if (campaign_wall_s > 0) {
    j["campaign_wall_ms"] = campaign_wall_s * 1000.0;
    j["campaign_over_contracts"] =
        t.inside_contracts_ms > 0 ? json(campaign_wall_s * 1000.0 / t.inside_contracts_ms) : json(nullptr);
    j["cells_per_minute"] = static_cast<double>(t.rows) / campaign_wall_s * 60.0;
  }
  return j;
}

std::string describe(const CampaignTime& t, double campaign_wall_s) {
  std::string head;
  if (campaign_wall_s > 0) {
    head = fmt::format("campaign {:.1f} s ({:.0f} cells/min), ", campaign_wall_s,
                       static_cast<double>(t.rows) / campaign_wall_s * 60.0);
  }
  head += fmt::format("cells {:.1f} s, inside the contracts {:.1f} s", t.cells_wall_ms / 1000.0,
                      t.inside_contracts_ms / 1000.0);
  if (campaign_wall_s > 0 && t.inside_contracts_ms > 0) {
    head += fmt::format(" (campaign {:.2f}x the contracts)", campaign_wall_s * 1000.0 / t.inside_contracts_ms);
  }
  if (t.rows_with_phases == 0) return head;
  std::string per;
  for (const auto& [name, member] : cell_phase_fields()) {
    per += fmt::format("{}{} {:.2f}", per.empty() ? "" : ", ", name,
                       t.phases.*member / static_cast<double>(t.rows_with_phases));
  }
  return head + fmt::format("; per cell that ran ({}), ms: {}", t.rows_with_phases, per);
}

}  // namespace caliber::campaign
