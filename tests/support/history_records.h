// Literal history runs for the store, trend and calibration tests: a run of named points with a
// chosen commit and date, and a store on SQLite or on the test PostgreSQL server.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "history/history_store.h"
#include "history/run_record.h"
#include "support/cli_run.h"
#include "support/postgres_server.h"

namespace caliber::testing_support {

// A point of series `name` (params {"shape_id": shape}) under contract `schedule`.
struct LiteralPoint {
  std::string name;
  double value_us = 0;
  std::string shape = "s1";
  std::string schedule = "graph";
  std::string status = "ok";
};

inline history::SeriesRecord literal_series(const LiteralPoint& p, const std::string& identity_key) {
  compare::CompareRow row;
  row.name = p.name;
  row.params = {{"shape_id", p.shape}, {"provider", "mine"}};
  row.arch = "sm_90";
  row.contract["quantity"] = "device_time";
  row.contract["instrument"] = "cupti";
  row.contract["schedule"] = p.schedule;
  row.contract["cache"] = "cold";
  row.contract["statistic"] = "median";
  return history::series_of(row, identity_key);
}

inline history::RunRecord literal_run(const std::string& key, const std::string& date, const std::string& commit,
                                      const std::vector<LiteralPoint>& points,
                                      const std::string& identity = R"({"device.driver_version":"560.1"})") {
  history::RunRecord r;
  r.run_key = key;
  r.run_id = "run-" + key;
  r.format = "benchmark_results_jsonl";
  r.source = "/runs/" + key;
  r.commit = commit;
  r.commit_source = "--commit";
  r.date = date;
  r.device = "NVIDIA H100";
  r.arch = "sm_90";
  r.command = "caliber run --out /runs/" + key;
  r.identity_fields = identity;
  r.identity_key = identity.substr(0, 30);
  for (const LiteralPoint& p : points) {
    history::PointRecord pr;
    pr.series = literal_series(p, r.identity_key);
    pr.status = p.status;
    if (p.status == "ok") pr.value_us = p.value_us;
    pr.samples = 20;
    r.points.push_back(pr);
  }
  return r;
}

// "2026-01-01T00:00:00Z" plus `day` days, in months of 28 days (day < 28 * 12).
inline std::string literal_date(int day) {
  return fmt::format("2026-{:02}-{:02}T00:00:00Z", 1 + day / 28, 1 + day % 28);
}

// A fresh history location of the named backend ("sqlite" or "postgresql"), or "" with *skip set.
inline std::string fresh_history(const std::string& backend, const std::string& name, std::string* skip) {
  if (backend == "sqlite") return fresh_dir("history_" + name) + "/history.sqlite";
  PostgresServer* server = PostgresServer::instance(skip);
  return server ? server->fresh_database(name) : "";
}

}  // namespace caliber::testing_support
