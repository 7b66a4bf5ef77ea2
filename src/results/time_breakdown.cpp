// Sums the cells' phases and the measurements' wall time of a results set's rows.
#include "results/time_breakdown.h"

#include <fmt/format.h>

namespace caliber {
using json = nlohmann::json;

void TimeBreakdown::add(const BenchmarkResultRow& r) {
  ++rows;
  cells_wall_ms += r.cell_wall_time_ms;
  for (const std::optional<Result>* m : {&r.eager, &r.kernel_only}) {
    if (*m) inside_contracts_ms += (*m)->wall_time_ms;
  }
  if (!r.cell_phases) return;
  ++rows_with_phases;
  for (const auto& [name, member] : cell_phase_fields()) phases.*member += (*r.cell_phases).*member;
}

TimeBreakdown time_breakdown(const std::vector<const BenchmarkResultRow*>& rows) {
  TimeBreakdown t;
  for (const BenchmarkResultRow* r : rows) t.add(*r);
  return t;
}

json to_json(const TimeBreakdown& t, double wall_s) {
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
  if (wall_s > 0) {
    const double wall_ms = wall_s * 1000.0;
    j["wall_ms"] = wall_ms;
    j["wall_over_contracts"] = t.inside_contracts_ms > 0 ? json(wall_ms / t.inside_contracts_ms) : json(nullptr);
    j["wall_over_timing"] = t.phases.timing_ms > 0 ? json(wall_ms / t.phases.timing_ms) : json(nullptr);
    j["cells_per_minute"] = static_cast<double>(t.rows) / wall_s * 60.0;
  }
  return j;
}

std::string describe(const TimeBreakdown& t, double wall_s) {
  std::string head;
  if (wall_s > 0) {
    head = fmt::format("wall {:.1f} s ({:.0f} cells/min), ", wall_s, static_cast<double>(t.rows) / wall_s * 60.0);
  }
  head += fmt::format("cells {:.1f} s, inside the contracts {:.1f} s", t.cells_wall_ms / 1000.0,
                      t.inside_contracts_ms / 1000.0);
  if (wall_s > 0 && t.inside_contracts_ms > 0) {
    head += fmt::format(" (wall {:.2f}x the contracts", wall_s * 1000.0 / t.inside_contracts_ms);
    if (t.phases.timing_ms > 0) {
      head += fmt::format(", {:.2f}x their timing phase", wall_s * 1000.0 / t.phases.timing_ms);
    }
    head += ")";
  }
  if (t.rows_with_phases == 0) return head;
  std::string per;
  for (const auto& [name, member] : cell_phase_fields()) {
    per += fmt::format("{}{} {:.2f}", per.empty() ? "" : ", ", name,
                       t.phases.*member / static_cast<double>(t.rows_with_phases));
  }
  return head + fmt::format("; per cell that ran ({}), ms: {}", t.rows_with_phases, per);
}

}  // namespace caliber
