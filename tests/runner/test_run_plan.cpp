// The run plan and contracts: filters, documented defaults, graph_calls rule, refusals.
#include <gtest/gtest.h>

#include "caliber/errors.h"
#include "ledger/importers.h"
#include "runner/run_plan.h"
#include "support/cli_run.h"
#include "io/shape_ledger_json.h"

namespace caliber::runner {
namespace {

using testing_support::fresh_dir;
using testing_support::write_text;

const char* kMatrix = R"(schema_version: 1
kernel: rmsnorm
op_type: rmsnorm
dtype: [bf16]
reference_provider: naive
layout_contract: row_major
providers:
  caliber: {enabled: true, entrypoint: "builtin:caliber", provider: caliber}
  naive: {enabled: true, entrypoint: "builtin:naive", provider: caliber}
)";

RunOptions options_in(const std::string& dir) {
  ledger::RowTemplate t;
  t.op = ops::OpType::rmsnorm;
  std::vector<ShapeRow> rows;
  for (std::int64_t m : {1, 2, 3}) {
    rows.push_back(ledger::make_row(t, DType::bf16, {{"m", m}, {"n", 8}, {"eps", 1e-6}}, Stage::decode, std::nullopt,
                                    {SourceKind::manual, "test", ""}, ""));
  }
  rows.push_back(ledger::make_row(t, DType::fp32, {{"m", 4}, {"n", 8}, {"eps", 1e-6}}, Stage::decode, std::nullopt,
                                  {SourceKind::manual, "test", ""}, ""));
  rows.push_back(ledger::make_row(t, DType::bf16, {{"m", 5}, {"n", 8}, {"eps", 1e-6}}, Stage::prefill, std::nullopt,
                                  {SourceKind::manual, "test", ""}, ""));
  write_shape_ledger(dir + "/shape_ledger.jsonl", rows);
  write_text(dir + "/baseline_matrix.yaml", kMatrix);
  RunOptions o;
  o.op = "rmsnorm";
  o.shape_ledger = dir + "/shape_ledger.jsonl";
  o.baseline_matrix = dir + "/baseline_matrix.yaml";
  o.out = dir + "/out";
  return o;
}

TEST(RunPlan, FiltersByStageDtypeAndLimitAndSaysWhat) {
  const std::string dir = fresh_dir("run_plan_filters");
  RunOptions o = options_in(dir);
  RunPlan all = make_run_plan(o);
  EXPECT_EQ(all.shapes.size(), 4u);  // the fp32 row is not in the matrix's dtype list
  ASSERT_EQ(all.notices.size(), 1u);
  EXPECT_NE(all.notices[0].find("dtype fp32"), std::string::npos);
  EXPECT_EQ(all.cells(), 8u);
  o.stages = "decode";
  o.limit = 2;
  RunPlan some = make_run_plan(o);
  ASSERT_EQ(some.shapes.size(), 2u);
  EXPECT_EQ(some.shapes[1].args["m"], 2);
  o.stages = "warmup";
  EXPECT_THROW(make_run_plan(o), UsageError);
  o.stages = "diagnostic";
  EXPECT_THROW(make_run_plan(o), UsageError);  // nothing left
  o.stages.reset();
  o.providers = "caliber,cudnn";
  EXPECT_THROW(make_run_plan(o), UsageError);  // cudnn is not in the matrix
  o.providers.reset();
  o.op = "gemm";
  EXPECT_THROW(make_run_plan(o), UsageError);  // the matrix is for rmsnorm
}

TEST(RunContracts, DocumentedDefaultsPerBackend) {
  RunOptions o;
  const RunContracts cuda = make_run_contracts(o, BackendKind::cuda);
  EXPECT_EQ(cuda.kernel_only.instrument, Instrument::event);
  EXPECT_EQ(cuda.kernel_only.schedule, Schedule::graph);
  EXPECT_EQ(cuda.kernel_only.cache, CachePolicy::warm);
  EXPECT_EQ(cuda.eager.schedule, Schedule::per_iter);
  EXPECT_EQ(cuda.eager.cache, CachePolicy::warm);
  EXPECT_TRUE(cuda.auto_graph_calls);
  EXPECT_EQ(cuda.eager.warmup, 3);
  EXPECT_EQ(cuda.eager.iterations.max_time_ms, 25.0);
  const RunContracts host = make_run_contracts(o, BackendKind::host);
  EXPECT_EQ(host.kernel_only.schedule, Schedule::per_iter);
  EXPECT_EQ(host.eager.schedule, Schedule::isolated);
  EXPECT_EQ(host.eager.instrument, Instrument::wallclock);
}

TEST(RunContracts, OptionsChangeThemAndImpossibleOnesAreRefused) {
  RunOptions o;
  o.graph_calls = "4";
  o.eager_cache = "cold";
  const RunContracts c = make_run_contracts(o, BackendKind::cuda);
  EXPECT_FALSE(c.auto_graph_calls);
  EXPECT_EQ(c.kernel_only.graph_calls, 4);
  EXPECT_EQ(c.eager.cache, CachePolicy::cold);
  o.kernel_only_cache = "cold";  // graph + cold needs cupti
  EXPECT_THROW(make_run_contracts(o, BackendKind::cuda), ContractError);
  o.kernel_only_cache.reset();
  o.eager_cache = "rotate";
  EXPECT_THROW(make_run_contracts(o, BackendKind::cuda), ContractError);
  o.eager_cache.reset();
  o.graph_calls = "zero";
  EXPECT_THROW(make_run_contracts(o, BackendKind::cuda), UsageError);
  for (const char* bounded : {"99999999999", "4097", "0"}) {
    o.graph_calls = bounded;
    try {
      make_run_contracts(o, BackendKind::host);
      ADD_FAILURE() << bounded << " accepted";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("expected auto or a count from 1 to 4096"), std::string::npos) << e.what();
    }
  }
  o.graph_calls = "4096";
  EXPECT_EQ(make_run_contracts(o, BackendKind::cuda).kernel_only.graph_calls, 4096);
  o.graph_calls = "auto";
  o.kernel_only_schedule = "graph";
  EXPECT_THROW(make_run_contracts(o, BackendKind::host), ContractError);  // no graphs on the host
}

TEST(GraphCalls, LargestPowerOfTwoWithinTwoHundredMicroseconds) {
  EXPECT_EQ(graph_calls_for(2.0), 16);
  EXPECT_EQ(graph_calls_for(12.5), 16);   // 16 x 12.5 = 200
  EXPECT_EQ(graph_calls_for(13.0), 8);
  EXPECT_EQ(graph_calls_for(60.0), 2);
  EXPECT_EQ(graph_calls_for(150.0), 1);
  EXPECT_EQ(graph_calls_for(5000.0), 1);
}

}  // namespace
}  // namespace caliber::runner
