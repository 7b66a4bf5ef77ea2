#include "runner/worker_token.h"
#include "runner/supervisor_session.h"

#include <algorithm>
#include <iostream>

#include <fmt/format.h>

#include "caliber/clock.h"
#include "caliber/errors.h"
#include "caliber/result_json.h"
#include "core/json_fields.h"
#include "core/one_line.h"
#include "core/utc_time.h"
#include "runner/capture_failure.h"
#include "runner/cell_in_flight.h"
#include "runner/shape_runner.h"
#include "io/benchmark_results_json.h"

namespace caliber::runner {

using nlohmann::json;

std::optional<int> Supervisor::run_groups(std::vector<PendingShape> pending) {
  std::vector<std::vector<PendingShape>> groups;
  for (std::size_t i = 0; i < pending.size(); ++i) {
    if (i % kMaxShapesPerTrace == 0) groups.emplace_back();
    groups.back().push_back(std::move(pending[i]));
  }
  for (std::size_t i = 0; i < groups.size(); ++i) {
    if (interrupted()) break;
    if (auto code = run_group(groups[i], i + 1 < groups.size() ? &groups[i + 1] : nullptr)) return code;
  }
  return std::nullopt;
}

std::optional<int> Supervisor::run_group(std::vector<PendingShape> group, const std::vector<PendingShape>* next) {
  int deaths_between_cells = 0;
  while (cells_left(group) > 0 && !interrupted()) {
    if (auto code = ensure_worker()) return code;
    CellInProgress in_flight{std::nullopt, steady_clock().now_us()};
    std::string ended;  // why the worker is gone, when it is
    const GroupStop stop = follow_group(group, next, in_flight, ended);
    if (stop.stop) return stop.exit_code;
    if (ended.empty()) continue;
    after_worker_ended(group, in_flight, ended, deaths_between_cells);
  }
  return std::nullopt;
}

std::size_t Supervisor::cells_left(const std::vector<PendingShape>& group) {
  std::size_t n = 0;
  for (const auto& [index, providers] : group) n += providers.size();
  return n;
}

PendingShape* Supervisor::shape_of(std::vector<PendingShape>& group, const std::string& shape_id) const {
  for (PendingShape& g : group) {
    if (plan_.shapes[g.first].shape_id == shape_id) return &g;
  }
  return nullptr;
}

Supervisor::GroupStop Supervisor::follow_group(std::vector<PendingShape>& group, const std::vector<PendingShape>* next,
                                               CellInProgress& in_flight, std::string& ended) {
  const bool sent_ahead = sent_ahead_ == std::make_pair(group.front().first, worker_starts_);
  sent_ahead_.reset();
  std::size_t shapes_sent = 0;
  for (const auto& g : group) shapes_sent += !g.second.empty();
  if (!sent_ahead && !worker_->send_line(group_command(group).dump())) ended = "it stopped reading commands";
  std::size_t shapes_done = 0;
  while (ended.empty()) {
    std::string line;
    const auto r = worker_->read_line(line, options_.cell_timeout_s, [this] { return note_interrupt(); });
    if (r == WorkerProcess::ReadResult::timeout) {
      worker_->kill_now();
      ended = fmt::format("no result within --cell-timeout-s {} s; the worker was killed", options_.cell_timeout_s);
      break;
    }
    if (r == WorkerProcess::ReadResult::eof) {
      ended = "the worker process died";
      break;
    }
    std::string forged;
    const std::optional<json> authentic = authentic_event(line, token_, &forged);
    if (!authentic) {
      worker_->kill_now();
      ended = forged + "; the worker was killed";
      break;
    }
    const json& ev = *authentic;
    const std::string kind = ev.value("event", "");
    if (kind == "start") {
      cell_started(group, ev, in_flight);
    } else if (kind == "row") {
      if (row_reported(group, next, ev, in_flight)) return {true, std::nullopt};
    } else if (kind == "shape_done") {
      if (!ev.value("healthy", true)) {
        const std::string how = worker_->wait_exit();
        if (worker_->served()) server_refused_ = true;
        worker_.reset();
        progress_->note(fmt::format("caliber run: the device became unusable ({}); a fresh worker continues",
                                    how));
        break;
      }
      if (++shapes_done >= shapes_sent) break;
    } else if (kind == "fatal") {
      std::cerr << "caliber run: error: " << one_line(ev.value("message", "")) << '\n';
      return {true, std::max(1, ev.value("exit_code", 1))};  // a fatal end is never a success
    }
  }
  return {};
}

void Supervisor::cell_started(std::vector<PendingShape>& group, const json& ev, CellInProgress& in_flight) {
  const std::string shape_id = ev.value("shape_id", "");
  const PendingShape* g = shape_of(group, shape_id);
  if (!g) throw Error(fmt::format("the worker started a cell of a shape it was not given ({})", shape_id));
  in_flight.cell = std::make_pair(g->first, ev.value("provider", ""));
  in_flight.since_us = steady_clock().now_us();
  note_cell_in_flight(shape_id, in_flight.cell->second);
  progress_->started(shape_label(plan_.shapes[g->first]), in_flight.cell->second);
}

bool Supervisor::row_reported(std::vector<PendingShape>& group, const std::vector<PendingShape>* next,
                              const json& ev, CellInProgress& in_flight) {
  const BenchmarkResultRow row = benchmark_result_from_json(ev.at("row"), "(worker events)", 0);
  PendingShape* g = shape_of(group, row.shape_id);
  const auto it = g ? std::find(g->second.begin(), g->second.end(), row.provider) : std::vector<std::string>::iterator{};
  if (!g || it == g->second.end()) {
    throw Error(fmt::format("the worker reported an unexpected cell ({}, {})", row.shape_id, row.provider));
  }
  g->second.erase(it);
  if (cells_left(group) == 0 && next && !interrupted()) {
    learn_capture_denial(row);  // the next group's command carries what this row taught
    if (worker_->send_line(group_command(*next).dump())) {
      sent_ahead_ = std::make_pair(next->front().first, worker_starts_);
    }
  }
  record(row, shape_label(plan_.shapes[g->first]));
  in_flight.cell.reset();
  return interrupted() != 0;  // the worker is stopped by run()
}

void Supervisor::after_worker_ended(std::vector<PendingShape>& group, const CellInProgress& in_flight,
                                    const std::string& ended, int& deaths_between_cells) {
  const std::string how = worker_->wait_exit();
  // A server that died or was killed is gone: this run goes on with workers of its own.
  if (worker_->served()) server_refused_ = true;
  worker_.reset();
  if (in_flight.cell) {
    const auto& [index, provider] = *in_flight.cell;
    const ShapeRow& shape = plan_.shapes[index];
    record_failed(shape, provider, fmt::format("{} ({}) while running this cell", ended, how), in_flight.since_us);
    for (PendingShape& g : group) {
      if (g.first != index) continue;
      g.second.erase(std::find(g.second.begin(), g.second.end(), provider));
    }
    progress_->note(fmt::format("caliber run: {} / {}: {} ({}); a fresh worker continues", shape_label(shape),
                                provider, ended, how));
  } else if (++deaths_between_cells >= 2) {
    for (PendingShape& g : group) {
      for (const auto& p : g.second) {
        record_failed(plan_.shapes[g.first], p, fmt::format("{} ({}) before this cell started, twice", ended, how),
                      in_flight.since_us);
      }
      g.second.clear();
    }
  }
}

void Supervisor::learn_capture_denial(const BenchmarkResultRow& row) {
  if (auto why = capture_denial_from(row)) {
    if (capture_denied_.emplace(row.provider, *why).second) {
      progress_->note(fmt::format("caliber run: {}: {}; its next cells are timed eagerly", row.provider, *why));
    }
  }
}

json Supervisor::group_command(const std::vector<PendingShape>& group) const {
  json shapes = json::array();
  for (const auto& [index, providers] : group) {
    if (providers.empty()) continue;
    shapes.push_back({{"shape_index", index}, {"shape_id", plan_.shapes[index].shape_id}, {"providers", providers}});
  }
  return {{"shapes", shapes},
          {"capture_denied", capture_denied_},
          {"seeds", {{"inputs", options_.seed}, {"verification", fmt::format("{:016x}", options_.verification_seed)}}}};
}

void Supervisor::record(const BenchmarkResultRow& row, const std::string& label) {
  appender_->append(row);
  learn_capture_denial(row);
  ++cells_this_session_;
  if (row.kernel_only) contract_ms_ += row.kernel_only->wall_time_ms;
  if (row.eager) contract_ms_ += row.eager->wall_time_ms;
  progress_->finished(row, label);
}

void Supervisor::record_failed(const ShapeRow& shape, const std::string& provider, const std::string& reason,
                               double started_us) {
  BenchmarkResultRow row = base_row(rows_, shape, provider);
  row.provider_detail = "unknown: the worker ended before reporting it";
  row.benchmark_status = BenchmarkStatus::failed;
  row.status_reason = reason;
  row.cell_wall_time_ms = (steady_clock().now_us() - started_us) / 1000.0;
  record(row, shape_label(shape));
}

void Supervisor::note_cell_in_flight(const std::string& shape_id, const std::string& provider) {
  if (named_in_flight_ == CellKey{shape_id, provider}) return;
  named_in_flight_ = CellKey{shape_id, provider};
  CellInFlight c;
  c.run_id = options_.run_id;
  c.pid = static_cast<int>(::getpid());
  c.shape_id = shape_id;
  c.provider = provider;
  c.started_at = utc_timestamp_now();
  c.started_unix_ms = unix_ms_now();
  write_cell_in_flight(options_.out, c);
}

}  // namespace caliber::runner
