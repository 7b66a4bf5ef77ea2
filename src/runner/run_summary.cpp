#include "runner/run_summary.h"

#include <ostream>
#include <set>

#include <fmt/format.h>

#include "caliber/result_json.h"
#include "core/utc_time.h"
#include "runner/interrupt.h"

namespace caliber::runner {

using nlohmann::json;

PlannedRows::PlannedRows(const RunPlan& plan) {
  for (BenchmarkStatus s : all_benchmark_statuses()) statuses[std::string(to_string(s))] = 0;
  for (const ShapeRow& s : plan.shapes) planned_.insert(s.shape_id);
}

void PlannedRows::add(const BenchmarkResultRow& r) {
  if (!planned_.count(r.shape_id)) return;
  ++rows;
  time.add(r);
  ++statuses[std::string(to_string(r.benchmark_status))];
  bad = bad || r.benchmark_status == BenchmarkStatus::failed || r.benchmark_status == BenchmarkStatus::incorrect ||
        r.benchmark_status == BenchmarkStatus::faster_than_physical;
}

PlannedRows planned_rows(const std::vector<BenchmarkResultRow>& rows, const RunPlan& plan) {
  PlannedRows out(plan);
  for (const BenchmarkResultRow& r : rows) out.add(r);
  return out;
}

namespace {

json session_json(const SessionAccount& s) {
  const double wall_s = s.wall_s, contract_s = s.contract_s;
  return {{"started_at", s.started_at},
          {"finished_at", utc_timestamp_now()},
          {"wall_time_s", wall_s},
          {"contract_time_s", contract_s},
          {"harness_overhead", contract_s > 0 ? json(wall_s / contract_s - 1.0) : json(nullptr)},
          {"cells", s.cells},
          {"cells_per_minute", wall_s > 0 ? json(60.0 * static_cast<double>(s.cells) / wall_s) : json(nullptr)},
          {"worker_starts", s.worker_starts},
          // Of them, runs a device server measured on the device it held open (docs/batch.md).
          {"device_server_runs", s.device_server_runs},
          // Milliseconds: from the process's start to its first worker's spawn, each worker's start
          // until it reported its device ready, and the first worker's steps (docs/runner.md).
          {"start_up",
           {{"before_first_worker_ms", s.before_first_worker_ms ? json(*s.before_first_worker_ms) : json(nullptr)},
            {"worker_ready_ms", s.worker_ready_ms},
            {"first_worker_steps_ms", s.first_worker_steps_ms.is_null() ? json::object() : s.first_worker_steps_ms}}},
          {"interrupted_by", s.interrupted_by ? json(signal_name(s.interrupted_by)) : json(nullptr)}};
}

}  // namespace

json run_summary_json(const RunOptions& options, const RunPlan& plan, const RowProvenance& rows, bool device_known,
                      const SessionAccount& session, const PlannedRows& planned, const TimeBreakdown& time,
                      double time_wall_s) {
  return {
      {"schema_version", 1},
      {"kind", "caliber.run_summary"},
      {"run_id", options.run_id},
      {"op", options.op},
      {"kernel", plan.matrix.kernel},
      {"shape_ledger", options.shape_ledger},
      {"baseline_matrix", options.baseline_matrix},
      {"device", device_known ? to_json(rows.device) : json(nullptr)},
      {"harness_version", rows.harness_version},
      {"candidate_commit", rows.candidate_commit},
      {"session", session_json(session)},
      {"cells_total", plan.cells()},
      {"statuses", planned.statuses},
      {"time", to_json(time, time_wall_s)},
      {"notices", plan.notices},
  };
}

std::string run_totals_line(const std::string& out_dir, std::size_t cells_total, const PlannedRows& planned,
                            const SessionAccount& session) {
  std::string counts;
  for (const auto& [k, v] : planned.statuses) {
    if (v) counts += fmt::format("{}{} {}", counts.empty() ? "" : ", ", v, k);
  }
  const double wall_s = session.wall_s, contract_s = session.contract_s;
  return fmt::format("{} cells ({}) in {}; {} this session in {:.1f} s wall, {:.1f} s inside the contracts (harness "
                     "overhead {})",
                     cells_total, counts, out_dir, session.cells, wall_s, contract_s,
                     contract_s > 0 ? fmt::format("{:.0f}%", 100.0 * (wall_s / contract_s - 1.0)) : "n/a");
}

void print_run_totals(std::ostream& err, const std::string& out_dir, std::size_t cells_total,
                      const PlannedRows& planned, const SessionAccount& session, const TimeBreakdown& time,
                      double time_wall_s) {
  err << "caliber run: " << run_totals_line(out_dir, cells_total, planned, session) << '\n';
  err << "caliber run: time: " << describe(time, time_wall_s) << '\n';
}

}  // namespace caliber::runner
