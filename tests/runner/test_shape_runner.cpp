#include "runner/shape_runner.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "backends/host/host_backend.h"
#include "caliber/clock.h"
#include "caliber/errors.h"
#include "ops/op_catalog.h"
#include "runner/shape_inputs.h"
#include "support/test_host_device.h"

namespace caliber::runner {
namespace {

namespace fs = std::filesystem;

// A host backend with a tracer: it logs when the tracing of device work is held, each census, and
// each timer a measurement makes, with whether tracing was on at that moment.
class TracingHost : public host::HostBackend {
 public:
  // `memory_bytes`: the device's memory (0: unknown, no limit); `refuse`: the tracer cannot be
  // held (ContractError), as on a backend without CUPTI.
  explicit TracingHost(std::uint64_t memory_bytes = 0, bool refuse = false)
      : HostBackend(steady_clock(), with_memory(memory_bytes)), refuse_(refuse) {}
  bool observes_device_work() const override { return true; }
  std::unique_ptr<ActivityTracing> keep_activity_tracing_on() override {
    if (refuse_) throw ContractError("no tracer here");
    struct Trace : ActivityTracing {
      explicit Trace(TracingHost& h) : host(h) {
        host.log.push_back("trace on");
        ++host.traces;
      }
      ~Trace() override {
        host.log.push_back("trace off");
        --host.traces;
      }
      TracingHost& host;
    };
    return std::make_unique<Trace>(*this);
  }
  DeviceWorkCensus census_call(const std::function<void()>& call) override {
    log.push_back(traces > 0 ? "census (traced by the shape)" : "census (traced by itself)");
    call();
    DeviceWorkCensus c;
    c.applicable = false;  // host calls are the work: nothing more to judge
    c.observed = true;
    return c;
  }
  std::unique_ptr<SampleTimer> make_timer(Instrument instrument) override {
    if (log.empty() || log.back().rfind("timer", 0) != 0) log.push_back(traces > 0 ? "timer (traced)" : "timer");
    return HostBackend::make_timer(instrument);
  }
  std::vector<std::string> log;
  int traces = 0;

 private:
  static DeviceInfo with_memory(std::uint64_t memory_bytes) {
    DeviceInfo d = testing_support::test_host_device();
    d.memory_bytes = memory_bytes;
    return d;
  }
  bool refuse_;
};

class ShapeRunnerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("caliber_shape_runner_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    // Three providers in matrix order, the middle one disabled.
    std::ofstream(dir_ / "matrix.yaml") << "schema_version: 1\nkernel: rmsnorm\nop_type: rmsnorm\n"
                                           "dtype: [bf16]\nreference_provider: naive\nlayout_contract: row_major\n"
                                           "providers:\n"
                                           "  caliber:\n    enabled: true\n    entrypoint: \"builtin:caliber\"\n"
                                           "    provider: caliber\n"
                                           "  vendor:\n    enabled: false\n    entrypoint: \"builtin:caliber\"\n"
                                           "    provider: vendor\n    skip_reason: not on this machine\n"
                                           "  naive:\n    enabled: true\n    entrypoint: \"builtin:naive\"\n"
                                           "    provider: caliber\n";
    options_.op = "rmsnorm";
    options_.shape_ledger = std::string(CALIBER_TEST_DATA) + "/report/fixture/shape_ledger.jsonl";
    options_.baseline_matrix = (dir_ / "matrix.yaml").string();
    options_.out = (dir_ / "out").string();
    options_.backend = "host";
    options_.stages = "decode";
    options_.limit = 1;
    options_.min_samples = 6;
    options_.min_time_ms = 0;
    options_.max_time_ms = 2;
    options_.warmup = 1;
    options_.verification_seed = 0x1234;
    options_.run_id = "test-run";
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Runs every shape of the plan as one batch and returns their rows, in the order they were reported.
  std::vector<BenchmarkResultRow> run_batch(TracingHost& backend, const RunPlan& plan) {
    std::vector<BoundProvider> providers = bind_providers(plan, BackendKind::host);
    RowProvenance identity;
    identity.run_id = options_.run_id;
    identity.device = backend.device();
    ShapeRunner runner(backend, plan, make_run_contracts(options_, BackendKind::host), options_, identity, providers);
    std::vector<BenchmarkResultRow> rows;
    std::vector<ShapeJob> jobs;
    for (const ShapeRow& shape : plan.shapes) {
      ShapeJob job;
      job.shape = &shape;
      job.providers = {"caliber", "vendor", "naive"};
      job.verification_seed = options_.verification_seed;
      job.events.finished = [&](const BenchmarkResultRow& row) { rows.push_back(row); };
      jobs.push_back(std::move(job));
    }
    EXPECT_TRUE(runner.run_shapes(jobs));
    return rows;
  }

  // Runs the plan's one shape and returns its rows, in the order they were reported.
  std::vector<BenchmarkResultRow> run(TracingHost& backend, std::vector<std::string>* started = nullptr) {
    const RunPlan plan = make_run_plan(options_);
    EXPECT_EQ(plan.shapes.size(), 1u);
    std::vector<BoundProvider> providers = bind_providers(plan, BackendKind::host);
    RowProvenance identity;
    identity.run_id = options_.run_id;
    identity.device = backend.device();
    ShapeRunner runner(backend, plan, make_run_contracts(options_, BackendKind::host), options_, identity, providers);
    std::vector<BenchmarkResultRow> rows;
    ShapeEvents ev;
    ev.started = [&](const std::string& p) {
      if (started) started->push_back(p);
    };
    ev.finished = [&](const BenchmarkResultRow& row) { rows.push_back(row); };
    EXPECT_TRUE(runner.run(plan.shapes.at(0), {"caliber", "vendor", "naive"}, ev));
    return rows;
  }

  fs::path dir_;
  RunOptions options_;
};

// Each cell of a shape checks rows of its own (drawn from the shape's rows seed and its provider's
// name) and records that seed: the row one cell writes when it ends names no row another cell
// of the shape is checked on.
TEST_F(ShapeRunnerTest, EachCellOfAShapeChecksAndRecordsRowsOfItsOwn) {
  TracingHost backend;
  const std::vector<BenchmarkResultRow> rows = run(backend);
  ASSERT_EQ(rows.size(), 3u);
  const ShapeSeeds seeds = shape_seeds(rows[0].shape_id, options_.seed, options_.verification_seed);
  EXPECT_EQ(rows[0].integrity.verification_seed, cell_rows_seed(seeds, "caliber"));
  EXPECT_EQ(rows[2].integrity.verification_seed, cell_rows_seed(seeds, "naive"));
  EXPECT_NE(cell_rows_seed(seeds, "caliber"), cell_rows_seed(seeds, "naive"));
  EXPECT_NE(rows[0].integrity.verification_seed, seeds.rows);
}

TEST_F(ShapeRunnerTest, TheShapesUntimedCallsShareOneTraceThatEndsBeforeAnythingIsTimed) {
  TracingHost backend;
  std::vector<std::string> started;
  const std::vector<BenchmarkResultRow> rows = run(backend, &started);
  // Both measured providers' untimed calls under the shape's trace, then the trace ends, then
  // each provider's measurements (eager and kernel-only: a timer per measurement, logged once per
  // run of timers), never while tracing.
  EXPECT_EQ(backend.log, (std::vector<std::string>{"trace on", "census (traced by the shape)",
                                                   "census (traced by the shape)", "trace off", "timer"}));
  for (const std::string& entry : backend.log) EXPECT_NE(entry, "timer (traced)");
  // Rows in matrix order, each cell ended as it would alone.
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].provider, "caliber");
  EXPECT_EQ(rows[1].provider, "vendor");
  EXPECT_EQ(rows[2].provider, "naive");
  EXPECT_EQ(rows[0].benchmark_status, BenchmarkStatus::ok) << rows[0].status_reason.value_or("");
  EXPECT_EQ(rows[1].benchmark_status, BenchmarkStatus::not_configured);
  EXPECT_EQ(rows[2].benchmark_status, BenchmarkStatus::ok) << rows[2].status_reason.value_or("");
  // A measured cell starts twice (its untimed call, then its measurements): the parent's cell
  // timeout and crash attribution follow the cell actually running.
  EXPECT_EQ(started, (std::vector<std::string>{"caliber", "vendor", "naive", "caliber", "naive"}));
  // The phases still add up to each cell's own wall time (the wait for the other untimed call
  // is not in it).
  for (const BenchmarkResultRow& r : {rows[0], rows[2]}) {
    ASSERT_TRUE(r.cell_phases.has_value());
    const CellPhases& p = *r.cell_phases;
    EXPECT_NEAR(p.inputs_ms + p.reference_ms + p.correctness_ms + p.untimed_check_ms + p.timing_ms + p.other_ms +
                    p.fresh_inputs_ms,
                r.cell_wall_time_ms, 1e-6);
    EXPECT_GT(p.untimed_check_ms, 0);
    EXPECT_GT(p.timing_ms, 0);
  }
}

// No ceilings file was given: every measured row is still bounded, by the theoretical ceilings
// (docs/integrity.md, physically_possible), and an honest provider passes them.
TEST_F(ShapeRunnerTest, EveryMeasuredRowIsPhysicallyBoundedWithoutACeilingsFile) {
  TracingHost backend;
  const std::vector<BenchmarkResultRow> rows = run(backend);
  ASSERT_EQ(rows.size(), 3u);
  for (const BenchmarkResultRow& r : {rows[0], rows[2]}) {
    ASSERT_EQ(r.benchmark_status, BenchmarkStatus::ok) << r.status_reason.value_or("");
    const IntegrityCheck* bound = r.integrity.find(integrity_check::physically_possible);
    ASSERT_NE(bound, nullptr) << r.provider;
    EXPECT_EQ(bound->outcome, CheckOutcome::passed) << bound->detail;
    EXPECT_NE(bound->detail.find("of the theoretical "), std::string::npos) << bound->detail;
  }
}

TEST_F(ShapeRunnerTest, WithOneMeasuredProviderTheShapeIsTracedOnceAllTheSame) {
  TracingHost backend;
  options_.providers = "naive";
  const std::vector<BenchmarkResultRow> rows = run(backend);
  // One detach either way; the shape's trace could have been shared with the next shape's.
  EXPECT_EQ(backend.log, (std::vector<std::string>{"trace on", "census (traced by the shape)", "trace off", "timer"}));
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].benchmark_status, BenchmarkStatus::skipped);
  EXPECT_EQ(rows[2].benchmark_status, BenchmarkStatus::ok) << rows[2].status_reason.value_or("");
}

TEST_F(ShapeRunnerTest, ConsecutiveShapesShareOneTraceAndAreTimedInOrder) {
  TracingHost backend;
  options_.limit = 2;
  const RunPlan plan = make_run_plan(options_);
  ASSERT_EQ(plan.shapes.size(), 2u);
  std::vector<BoundProvider> providers = bind_providers(plan, BackendKind::host);
  RowProvenance identity;
  identity.run_id = options_.run_id;
  identity.device = backend.device();
  ShapeRunner runner(backend, plan, make_run_contracts(options_, BackendKind::host), options_, identity, providers);
  std::vector<BenchmarkResultRow> rows;
  std::vector<std::string> started;
  std::vector<ShapeJob> jobs;
  for (const ShapeRow& shape : plan.shapes) {
    ShapeJob job;
    job.shape = &shape;
    job.providers = {"caliber", "vendor", "naive"};
    job.verification_seed = options_.verification_seed;
    const std::string id = shape.shape_id;
    job.events.started = [&started, id](const std::string& p) { started.push_back(id + " " + p); };
    job.events.finished = [&](const BenchmarkResultRow& row) { rows.push_back(row); };
    jobs.push_back(std::move(job));
  }
  ASSERT_TRUE(runner.run_shapes(jobs));
  // The four untimed calls of the two shapes under one trace, detached once, then every timer.
  EXPECT_EQ(backend.log,
            (std::vector<std::string>{"trace on", "census (traced by the shape)", "census (traced by the shape)",
                                      "census (traced by the shape)", "census (traced by the shape)", "trace off",
                                      "timer"}));
  // Rows shape after shape, each in matrix order; each cell as it would end alone.
  ASSERT_EQ(rows.size(), 6u);
  const std::string a = plan.shapes[0].shape_id, b = plan.shapes[1].shape_id;
  const std::vector<std::pair<std::string, std::string>> order = {
      {a, "caliber"}, {a, "vendor"}, {a, "naive"}, {b, "caliber"}, {b, "vendor"}, {b, "naive"}};
  for (std::size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i].shape_id, order[i].first) << i;
    EXPECT_EQ(rows[i].provider, order[i].second) << i;
    EXPECT_EQ(rows[i].benchmark_status,
              rows[i].provider == "vendor" ? BenchmarkStatus::not_configured : BenchmarkStatus::ok)
        << rows[i].status_reason.value_or("");
  }
  // Each measured cell starts twice, its second start (its measurements) after every untimed call.
  EXPECT_EQ(started, (std::vector<std::string>{a + " caliber", a + " vendor", a + " naive", b + " caliber",
                                               b + " vendor", b + " naive", a + " caliber", a + " naive",
                                               b + " caliber", b + " naive"}));
  // What detaching cost is charged to the four traced cells; the phases still add up.
  for (const BenchmarkResultRow& r : rows) {
    if (!r.cell_phases) continue;
    const CellPhases& p = *r.cell_phases;
    EXPECT_NEAR(p.inputs_ms + p.reference_ms + p.correctness_ms + p.untimed_check_ms + p.timing_ms + p.other_ms +
                    p.fresh_inputs_ms,
                r.cell_wall_time_ms, 1e-6);
  }
  // Every provider released at the end.
  for (const BoundProvider& bp : providers) EXPECT_EQ(bp.prepared_for, nullptr) << bp.entry->name;
}

TEST_F(ShapeRunnerTest, ShapesWhoseBuffersDoNotFitTogetherHaveATraceEach) {
  options_.limit = 2;
  const RunPlan plan = make_run_plan(options_);
  ASSERT_EQ(plan.shapes.size(), 2u);
  // What each shape's untimed calls keep alive: three copies of its inputs and the outputs of its
  // two measured providers; the device's 80% holds either shape, not both.
  std::uint64_t need = 0;
  for (const ShapeRow& row : plan.shapes) {
    const ops::OpShape s = ops::parse_shape(row.op_type, row.dtype, row.layout, row.args, "(test)", 0, "args");
    for (const ops::TensorSpec& t : ops::op_of(s).inputs(s)) need += 3 * t.bytes();
    for (const ops::TensorSpec& t : ops::op_of(s).outputs(s)) need += 2 * t.bytes();
  }
  TracingHost backend(need * 5 / 4 - 5);
  const std::vector<BenchmarkResultRow> rows = run_batch(backend, plan);
  EXPECT_EQ(backend.log, (std::vector<std::string>{"trace on", "census (traced by the shape)",
                                                   "census (traced by the shape)", "trace off", "timer", "trace on",
                                                   "census (traced by the shape)", "census (traced by the shape)",
                                                   "trace off", "timer"}));
  ASSERT_EQ(rows.size(), 6u);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i].shape_id, plan.shapes[i / 3].shape_id) << i;
    EXPECT_EQ(rows[i].benchmark_status,
              rows[i].provider == "vendor" ? BenchmarkStatus::not_configured : BenchmarkStatus::ok)
        << rows[i].status_reason.value_or("");
  }
  // With room for both, one trace.
  TracingHost roomy(need * 5 / 4 + 5);
  run_batch(roomy, plan);
  EXPECT_EQ(std::count(roomy.log.begin(), roomy.log.end(), "trace on"), 1);
}

TEST_F(ShapeRunnerTest, WhenTheTracerCannotBeHeldEachCellIsTimedRightAfterItsUntimedCall) {
  TracingHost backend(0, /*refuse=*/true);
  std::vector<std::string> started;
  const std::vector<BenchmarkResultRow> rows = run(backend, &started);
  EXPECT_EQ(backend.log, (std::vector<std::string>{"census (traced by itself)", "timer", "census (traced by itself)",
                                                   "timer"}));
  EXPECT_EQ(started, (std::vector<std::string>{"caliber", "caliber", "vendor", "naive", "naive"}));
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].provider, "caliber");
  EXPECT_EQ(rows[0].benchmark_status, BenchmarkStatus::ok) << rows[0].status_reason.value_or("");
  EXPECT_EQ(rows[1].benchmark_status, BenchmarkStatus::not_configured);
  EXPECT_EQ(rows[2].benchmark_status, BenchmarkStatus::ok) << rows[2].status_reason.value_or("");
}

TEST_F(ShapeRunnerTest, WithTheIntegrityChecksOffNothingIsTraced) {
  TracingHost backend;
  options_.integrity_checks = false;
  const std::vector<BenchmarkResultRow> rows = run(backend);
  EXPECT_EQ(backend.log, (std::vector<std::string>{"timer"}));
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].benchmark_status, BenchmarkStatus::ok) << rows[0].status_reason.value_or("");
  EXPECT_EQ(rows[2].benchmark_status, BenchmarkStatus::ok) << rows[2].status_reason.value_or("");
}

}  // namespace
}  // namespace caliber::runner
