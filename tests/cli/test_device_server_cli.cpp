// The device server (runner/device_server.h; docs/batch.md, "One process per device") on the host
// backend: one process serves several `caliber run`s, each as its own worker would (rows, identity,
// summary); a crash or a hang inside a served run costs its cell, and the run goes on with a worker
// of its own; a run that leaves a thread running ends the server; a run without a server to answer
// starts its own worker and says so.
#include <chrono>
#include <filesystem>
#include <map>
#include <thread>

#include <gtest/gtest.h>

#include "results/benchmark_results.h"
#include "core/json_fields.h"
#include "ledger/importers.h"
#include "support/cli_run.h"
#include "support/device_server_process.h"
#include "support/manual_row.h"
#include "io/benchmark_results_json.h"
#include "io/shape_ledger_json.h"

namespace caliber {
namespace {

namespace fs = std::filesystem;
using testing_support::fresh_dir;
using testing_support::run_caliber;
using testing_support::slurp;
using testing_support::write_text;

const std::string kPlugin = CALIBER_TEST_PLUGIN;

ShapeRow row(ops::OpType op, std::int64_t m, std::int64_t n) {
  nlohmann::json args = {{"m", m}, {"n", n}};
  if (op == ops::OpType::rmsnorm) args["eps"] = 1e-6;
  return testing_support::manual_row(op, DType::fp32, args);
}

std::string matrix(const std::string& op, const std::string& plugin_symbol = "") {
  std::string m = "schema_version: 1\nkernel: " + op + "\nop_type: " + op +
                  "\ndtype: [fp32]\nreference_provider: caliber\nlayout_contract: row_major\nproviders:\n"
                  "  caliber: {enabled: true, entrypoint: \"builtin:caliber\", provider: caliber}\n";
  if (!plugin_symbol.empty()) {
    m += "  plugin: {enabled: true, entrypoint: \"" + kPlugin + ":" + plugin_symbol + "\", provider: plugin}\n";
  }
  return m;
}

// A server on the host backend.
struct Server : testing_support::DeviceServerProcess {
  explicit Server(const std::string& name) : DeviceServerProcess(name, "host") {}
};

std::vector<std::string> run_args(const std::string& dir, const std::string& op, std::vector<std::string> extra = {}) {
  std::vector<std::string> a = {"run", "--op", op, "--backend", "host", "--shape-ledger", dir + "/" + op + ".jsonl",
                                "--baseline-matrix", dir + "/" + op + ".yaml", "--out", dir + "/" + op,
                                "--min-time-ms", "0", "--max-time-ms", "2", "--min-samples", "6", "--warmup", "1"};
  a.insert(a.end(), extra.begin(), extra.end());
  return a;
}

void write_op(const std::string& dir, ops::OpType op, const std::string& name, const std::string& plugin_symbol = "") {
  write_shape_ledger(dir + "/" + name + ".jsonl", {row(op, 4, 8), row(op, 13, 8), row(op, 6, 16)});
  write_text(dir + "/" + name + ".yaml", matrix(name, plugin_symbol));
}

std::map<std::string, BenchmarkStatus> statuses(const std::string& results) {
  std::map<std::string, BenchmarkStatus> out;
  for (const auto& r : read_benchmark_results(results)) {
    out[std::to_string(r.args.at("m").get<int>()) + "/" + r.provider] = r.benchmark_status;
  }
  return out;
}

nlohmann::json session(const std::string& out) {
  return parse_json_document(slurp(out + "/run_summary.json"), "run_summary.json").at("session");
}

std::size_t occurrences(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(DeviceServer, OneProcessServesRunsOfTwoOpsOneAfterTheOther) {
  Server server("device_server_two_ops");
  ASSERT_TRUE(fs::exists(server.socket)) << server.log();
  const std::string dir = server.dir;
  write_op(dir, ops::OpType::rmsnorm, "rmsnorm");
  write_op(dir, ops::OpType::softmax, "softmax");
  for (const std::string op : {"rmsnorm", "softmax"}) {
    const auto r = run_caliber(run_args(dir, op, {"--device-server", server.socket}));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err.find("starts its own worker"), std::string::npos) << r.err;
    for (const auto& [cell, status] : statuses(dir + "/" + op + "/benchmark_results.jsonl")) {
      EXPECT_EQ(status, BenchmarkStatus::ok) << op << " " << cell;
    }
    EXPECT_EQ(statuses(dir + "/" + op + "/benchmark_results.jsonl").size(), 3u);
    const auto s = session(dir + "/" + op);
    EXPECT_EQ(s.at("worker_starts"), 1);
    EXPECT_EQ(s.at("device_server_runs"), 1);
    EXPECT_TRUE(fs::exists(dir + "/" + op + "/run_identity.json"));
  }
  EXPECT_TRUE(server.running());
  const std::string log = server.log();
  EXPECT_EQ(occurrences(log, "serving runs"), 1u) << log;
  EXPECT_NE(log.find("run 1 done (exit code 0)"), std::string::npos) << log;
  EXPECT_NE(log.find("run 2 done (exit code 0)"), std::string::npos) << log;
}

// A served rmsnorm run whose plugin `symbol` misbehaves at m == 13: the run goes on to its six
// rows, of which the plugin's m == 13 cell alone failed. Its reason.
std::string served_run_failure(const Server& server, const std::string& symbol) {
  write_op(server.dir, ops::OpType::rmsnorm, "rmsnorm", symbol);
  const auto r = run_caliber(run_args(server.dir, "rmsnorm", {"--device-server", server.socket}));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const std::string results = server.dir + "/rmsnorm/benchmark_results.jsonl";
  const auto st = statuses(results);
  EXPECT_EQ(st.size(), 6u);
  std::string reason;
  for (const auto& [cell, status] : st) {
    EXPECT_EQ(status, cell == "13/plugin" ? BenchmarkStatus::failed : BenchmarkStatus::ok) << cell;
  }
  for (const auto& row : read_benchmark_results(results)) {
    if (row.benchmark_status == BenchmarkStatus::failed) reason = row.status_reason.value_or("");
  }
  EXPECT_TRUE(fs::exists(server.dir + "/rmsnorm/benchmark_results.csv"));
  return reason;
}

TEST(DeviceServer, ACrashInAServedRunCostsItsCellAndTheRunGoesOnWithItsOwnWorker) {
  Server server("device_server_crash");
  const std::string dir = server.dir;
  const std::string reason = served_run_failure(server, "caliber_test_crash");  // aborts at m == 13
  EXPECT_NE(reason.find("signal 6 (Aborted) in the device server"), std::string::npos) << reason;
  const auto s = session(dir + "/rmsnorm");
  EXPECT_EQ(s.at("device_server_runs"), 1);
  EXPECT_EQ(s.at("worker_starts"), 2);  // the server, then a worker of its own
  EXPECT_TRUE(server.exits_within(5));
}

// The measured code runs in the server and can write on the run's connection: a line that says the
// server ended the run with exit code 0, followed by a crash, is not taken for the server's own
// (the server's lines carry the run's channel token): the cell fails as forged, never "exit code 0".
TEST(DeviceServer, AServersLineForgedByTheMeasuredCodeIsNotTaken) {
  Server server("device_server_forged");
  const std::string reason = served_run_failure(server, "caliber_test_forge_server");
  EXPECT_NE(reason.find("without the worker's token"), std::string::npos) << reason;
  EXPECT_EQ(reason.find("exit code 0"), std::string::npos) << reason;
}

TEST(DeviceServer, AHangInAServedRunIsKilledWithTheServer) {
  Server server("device_server_hang");
  const std::string dir = server.dir;
  write_op(dir, ops::OpType::rmsnorm, "rmsnorm", "caliber_test_hang");  // sleeps an hour at m == 13
  const auto r = run_caliber(run_args(dir, "rmsnorm", {"--device-server", server.socket, "--cell-timeout-s", "1.5"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto st = statuses(dir + "/rmsnorm/benchmark_results.jsonl");
  ASSERT_EQ(st.size(), 6u);
  EXPECT_EQ(st.at("13/plugin"), BenchmarkStatus::failed);
  EXPECT_EQ(st.at("6/plugin"), BenchmarkStatus::ok);
  EXPECT_NE(r.err.find("no result within --cell-timeout-s 1.5 s"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("signal 9 (Killed) to the device server"), std::string::npos) << r.err;
  EXPECT_TRUE(server.exits_within(5));
}

TEST(DeviceServer, ARunThatLeavesAThreadRunningEndsTheServer) {
  Server server("device_server_thread");
  const std::string dir = server.dir;
  write_op(dir, ops::OpType::rmsnorm, "rmsnorm", "caliber_test_leave_thread");
  const auto r = run_caliber(run_args(dir, "rmsnorm", {"--device-server", server.socket}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const auto& [cell, status] : statuses(dir + "/rmsnorm/benchmark_results.jsonl")) {
    EXPECT_EQ(status, BenchmarkStatus::ok) << cell;
  }
  EXPECT_TRUE(server.exits_within(5));
  EXPECT_NE(server.log().find("the run left threads running"), std::string::npos) << server.log();
  EXPECT_FALSE(fs::exists(server.socket));
}

TEST(DeviceServer, WithoutAServerTheRunStartsItsOwnWorkerAndSaysSo) {
  const std::string dir = fresh_dir("device_server_none");
  write_op(dir, ops::OpType::rmsnorm, "rmsnorm");
  const auto r = run_caliber(run_args(dir, "rmsnorm", {"--device-server", dir + "/nobody.sock"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("device server " + dir + "/nobody.sock: no server listens there"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("this run starts its own worker"), std::string::npos) << r.err;
  EXPECT_EQ(statuses(dir + "/rmsnorm/benchmark_results.jsonl").size(), 3u);
  EXPECT_EQ(session(dir + "/rmsnorm").at("device_server_runs"), 0);
}

}  // namespace
}  // namespace caliber
