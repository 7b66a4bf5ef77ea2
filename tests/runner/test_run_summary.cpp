// run_summary.json and the last lines of caliber run (runner/run_summary.h), from literal rows
// and a literal session.
#include <gtest/gtest.h>

#include <csignal>
#include <sstream>

#include "runner/run_summary.h"

namespace caliber::runner {
namespace {

BenchmarkResultRow row(const std::string& shape_id, BenchmarkStatus status) {
  BenchmarkResultRow r;
  r.shape_id = shape_id;
  r.provider = "p";
  r.benchmark_status = status;
  return r;
}

RunPlan plan_of(const std::vector<std::string>& shape_ids) {
  RunPlan plan;
  for (const std::string& id : shape_ids) {
    ShapeRow s;
    s.shape_id = id;
    plan.shapes.push_back(s);
  }
  return plan;
}

TEST(RunSummary, PlannedRowsCountOnlyThePlannedShapesAndNameEveryStatus) {
  const std::vector<BenchmarkResultRow> rows = {row("a", BenchmarkStatus::ok), row("b", BenchmarkStatus::ok),
                                                row("gone", BenchmarkStatus::failed)};
  const PlannedRows planned = planned_rows(rows, plan_of({"a", "b"}));
  EXPECT_EQ(planned.rows, 2u);
  EXPECT_EQ(planned.statuses.at("ok"), 2u);
  EXPECT_EQ(planned.statuses.at("failed"), 0u);  // the removed shape's row is not the run's
  EXPECT_EQ(planned.statuses.size(), all_benchmark_statuses().size());
  EXPECT_FALSE(planned.bad);
}

TEST(RunSummary, AFailedIncorrectOrImpossibleRowIsBad) {
  for (BenchmarkStatus s : {BenchmarkStatus::failed, BenchmarkStatus::incorrect, BenchmarkStatus::faster_than_physical}) {
    EXPECT_TRUE(planned_rows({row("a", BenchmarkStatus::ok), row("a", s)}, plan_of({"a"})).bad) << to_string(s);
  }
  EXPECT_FALSE(planned_rows({row("a", BenchmarkStatus::oom)}, plan_of({"a"})).bad);
}

TEST(RunSummary, ASessionThatMeasuredNothingHasNoRatios) {
  RunOptions options;
  options.run_id = "r1";
  options.op = "rmsnorm";
  const RunPlan plan = plan_of({"a"});
  RowProvenance rows;
  rows.harness_version = "0.1.0";
  SessionAccount session;
  session.interrupted_by = SIGINT;
  const PlannedRows planned = planned_rows({}, plan);
  const nlohmann::json j = run_summary_json(options, plan, rows, /*device_known=*/false, session, planned,
                                            time_breakdown({}), 0.0);
  EXPECT_EQ(j.at("kind"), "caliber.run_summary");
  EXPECT_EQ(j.at("run_id"), "r1");
  EXPECT_TRUE(j.at("device").is_null());
  const nlohmann::json& s = j.at("session");
  EXPECT_TRUE(s.at("harness_overhead").is_null());
  EXPECT_TRUE(s.at("cells_per_minute").is_null());
  EXPECT_TRUE(s.at("start_up").at("before_first_worker_ms").is_null());
  EXPECT_EQ(s.at("start_up").at("first_worker_steps_ms"), nlohmann::json::object());
  EXPECT_EQ(s.at("interrupted_by"), "SIGINT");
  EXPECT_EQ(j.at("cells_total"), 0u);  // a plan without providers has no cells
}

TEST(RunSummary, ASessionCarriesItsTimesAndStarts) {
  SessionAccount session;
  session.wall_s = 10;
  session.contract_s = 8;
  session.cells = 3;
  session.worker_starts = 2;
  session.device_server_runs = 1;
  session.before_first_worker_ms = 12.5;
  session.worker_ready_ms = {100, 50};
  session.first_worker_steps_ms = {{"plan", 1.5}};
  const RunPlan plan = plan_of({"a"});
  const nlohmann::json s = run_summary_json(RunOptions{}, plan, RowProvenance{}, true, session,
                                            planned_rows({}, plan), time_breakdown({}), 10.0)
                               .at("session");
  EXPECT_DOUBLE_EQ(s.at("harness_overhead").get<double>(), 0.25);
  EXPECT_DOUBLE_EQ(s.at("cells_per_minute").get<double>(), 18.0);
  EXPECT_EQ(s.at("worker_starts"), 2);
  EXPECT_EQ(s.at("device_server_runs"), 1);
  EXPECT_DOUBLE_EQ(s.at("start_up").at("before_first_worker_ms").get<double>(), 12.5);
  EXPECT_EQ(s.at("start_up").at("worker_ready_ms"), nlohmann::json({100.0, 50.0}));
  EXPECT_EQ(s.at("start_up").at("first_worker_steps_ms"), nlohmann::json({{"plan", 1.5}}));
  EXPECT_TRUE(s.at("interrupted_by").is_null());
}

TEST(RunSummary, TheLastLinesCountTheStatusesAndTheOverhead) {
  const RunPlan plan = plan_of({"a", "b"});
  const PlannedRows planned =
      planned_rows({row("a", BenchmarkStatus::ok), row("b", BenchmarkStatus::failed)}, plan);
  SessionAccount session;
  session.wall_s = 10;
  session.contract_s = 8;
  session.cells = 2;
  std::ostringstream err;
  print_run_totals(err, "out", 2, planned, session, time_breakdown({}), 0.0);
  EXPECT_EQ(err.str().substr(0, err.str().find('\n')),
            "caliber run: 2 cells (1 failed, 1 ok) in out; 2 this session in 10.0 s wall, 8.0 s inside the "
            "contracts (harness overhead 25%)");
  EXPECT_NE(err.str().find("\ncaliber run: time: "), std::string::npos) << err.str();
  session.contract_s = 0;
  std::ostringstream none;
  print_run_totals(none, "out", 2, planned, session, time_breakdown({}), 0.0);
  EXPECT_NE(none.str().find("(harness overhead n/a)"), std::string::npos) << none.str();
}

}  // namespace
}  // namespace caliber::runner
