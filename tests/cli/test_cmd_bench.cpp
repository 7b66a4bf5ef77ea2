// caliber bench through the built binary: exit codes, refusals, and the files it writes.
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
#include <thread>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "caliber/backend.h"
#include "support/cli_run.h"
#include "support/json_schema.h"
#include "support/run_cli.h"

namespace caliber {
namespace {

using testing_support::file_exists;
using testing_support::load_schema;
using testing_support::schema_errors;
using testing_support::run_cli;
using testing_support::temp_path;

int count_lines(const std::string& s) { return static_cast<int>(std::count(s.begin(), s.end(), '\n')); }

// Each refusal: exit 2, one line on stderr naming the option, nothing on stdout, no file.
void expect_refused(const std::string& args, const std::string& fragment) {
  const std::string json = temp_path("refused.json");
  std::remove(json.c_str());
  const bool names_backend = args.find("--backend") != std::string::npos;
  const auto r = run_cli(std::string("bench ") + (names_backend ? "" : "--backend host ") + args + " --json " + json);
  EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.err;
  EXPECT_EQ(count_lines(r.err), 1) << args << "\n" << r.err;
  EXPECT_NE(r.err.find(fragment), std::string::npos) << args << "\n" << r.err;
  EXPECT_EQ(r.out, "") << args;
  EXPECT_FALSE(file_exists(json)) << args;
}

TEST(CliBench, RefusesBadUsageWithExitTwoAndNoOutput) {
  expect_refused("--schedule bogus", "--schedule: unknown schedule 'bogus'");
  expect_refused("--cache hot", "--cache: unknown cache policy 'hot'");
  expect_refused("--statistic average", "--statistic: unknown statistic 'average'");
  expect_refused("--instrument clock", "--instrument: unknown instrument 'clock'");
  expect_refused("--backend tpu", "--backend: unknown backend 'tpu'");
  expect_refused("--iters 0", "--iters must be >= 1 (got 0)");
  expect_refused("--iters -5", "--iters must be >= 1 (got -5)");
  expect_refused("--warmup 0", "--warmup must be >= 1 (got 0)");
  expect_refused("--graph-calls 0", "--graph-calls must be >= 1 (got 0)");
  expect_refused("--min-samples 0", "--min-samples must be >= 1 (got 0)");
  expect_refused("--max-time-ms -1", "--max-time-ms must be > 0");
  expect_refused("--target-precision 2", "--target-precision must be in (0, 1)");
  expect_refused("--min-time-ms 50 --max-time-ms 10", "--min-time-ms (50 ms) exceeds --max-time-ms (10 ms)");
  expect_refused("--min-time-ms 2000", "--min-time-ms (2000 ms) exceeds --max-time-ms (1000 ms)");  // the default
  expect_refused("--iters 5 --min-samples 3", "--iters (a fixed count) cannot be combined");
  expect_refused("--size 3", "--size must be a positive multiple of 4 bytes");
  expect_refused("--size 12XB", "--size '12XB': unknown unit 'XB'");
  expect_refused("--kernel gemm", "--kernel: unknown kernel 'gemm' for the host backend");
  expect_refused("--kernel copy,,tiny", "--kernel 'copy,,tiny': empty item in list");
  expect_refused("--device 3", "--device 3: the host backend has one device, 0");
  expect_refused("--iters abc", "--iters");
}

TEST(CliBench, RefusesImpossibleContracts) {
  expect_refused("--schedule graph", "graph capture");
  expect_refused("--instrument event", "the host backend times host work with the wallclock instrument only");
  expect_refused("--instrument cupti", "the host backend times host work with the wallclock instrument only");
  expect_refused("--schedule pipelined --iters 100", "only statistic mean is meaningful (got median)");
  expect_refused("--schedule pipelined --statistic mean --cache cold --iters 100", "inside the timed window");
  expect_refused("--schedule pipelined --statistic mean --cache warm", "give a fixed call count");
  expect_refused("--measure host-dispatch --schedule per_iter", "schedule must be isolated");
}

TEST(CliBench, RefusesUnwritableOutputPathsBeforeMeasuring) {
  auto r = run_cli("bench --backend host --kernel tiny --iters 5 --json /nonexistent-dir/x/out.json");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--json /nonexistent-dir/x/out.json: directory /nonexistent-dir/x does not exist"),
            std::string::npos)
      << r.err;
  r = run_cli("bench --backend host --kernel tiny --iters 5 --csv " + ::testing::TempDir());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("is a directory"), std::string::npos) << r.err;
}

TEST(CliBench, CudaWithoutADeviceFailsPreflight) {
  for (const auto& b : available_backends()) {
    if (b.kind == BackendKind::cuda && b.device_count > 0) GTEST_SKIP() << "a CUDA device is visible";
  }
  const auto r = run_cli("bench --backend cuda --kernel tiny --iters 5");
  bool compiled = false;
  for (const auto& b : available_backends()) compiled = compiled || (b.kind == BackendKind::cuda && b.compiled);
  if (compiled) {
    // A cuda build on a machine without a device: the named preflight check, exit 3.
    EXPECT_EQ(r.exit_code, 3);
    EXPECT_EQ(r.err.rfind("PREFLIGHT_FAILED check=device_visible: backend cuda ", 0), 0u) << r.err;
  } else {
    // A build without CUDA: what was asked for does not exist in this build, a usage error.
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("the cuda backend is not built"), std::string::npos) << r.err;
  }
  EXPECT_EQ(r.out, "");
}

// Cut short after its first measurements, bench leaves the JSON it wrote so far (marked
// incomplete) and no CSV: the CSV has no completeness mark, so compare would read a partial one
// as the whole run.
TEST(CliBench, ARunCutShortLeavesAnIncompleteJsonAndNoCsv) {
  const std::string dir = testing_support::fresh_dir("bench_cut_short");
  const std::string json = dir + "/b.json", csv = dir + "/b.csv";
  testing_support::write_text(csv, "a stale file of an earlier run\n");
  const pid_t pid = testing_support::start_caliber(
      {"bench", "--backend", "host", "--kernel", "copy,scale,tiny", "--size", "64KiB", "--cache",
       "warm,cold", "--min-time-ms", "300", "--max-time-ms", "300", "--json", json, "--csv", csv},
      dir);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  int status = 0;
  bool ended = false;
  while (!std::filesystem::exists(json) && std::chrono::steady_clock::now() < deadline) {
    if (::waitpid(pid, &status, WNOHANG) == pid) {
      ended = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ASSERT_FALSE(ended) << testing_support::slurp(dir + "/stderr.txt");
  ::kill(pid, SIGKILL);
  testing_support::wait_exit_code(pid);
  ASSERT_TRUE(std::filesystem::exists(json));
  std::ifstream in(json);
  const nlohmann::json doc = nlohmann::json::parse(in);
  EXPECT_EQ(doc["complete"], false);
  EXPECT_FALSE(doc["results"].empty());
  EXPECT_FALSE(std::filesystem::exists(csv));
}

TEST(CliBench, HostRunWritesSchemaValidJsonAndContractCsv) {
  const std::string json = temp_path("bench.json");
  const std::string csv = temp_path("bench.csv");
  const auto r = run_cli("bench --backend host --kernel copy,tiny --size 64KiB --cache warm,cold --iters 20 "
                         "--samples --json " + json + " --csv " + csv);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // The table: a header and one row per result, contract columns included.
  EXPECT_NE(r.out.find("name  size      backend  instrument  schedule  cache  stat"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("copy  64.0 KiB  host     wallclock   isolated  warm   median"), std::string::npos) << r.out;

  std::ifstream in(json);
  const nlohmann::json doc = nlohmann::json::parse(in);
  EXPECT_EQ(doc["complete"], true);
  ASSERT_EQ(doc["results"].size(), 4u);
  EXPECT_EQ(doc["results"][0]["name"], "copy");
  EXPECT_EQ(doc["results"][0]["contract"]["cache"], "warm");
  EXPECT_EQ(doc["results"][1]["contract"]["cache"], "cold");
  EXPECT_EQ(doc["results"][3]["name"], "tiny");
  EXPECT_EQ(doc["results"][3]["summary"]["n"], 20);
  EXPECT_EQ(doc["results"][3]["samples_us"].size(), 20u);
  valijson::Schema schema;
  load_schema(std::string(CALIBER_SOURCE_DIR) + "/schemas/results.schema.json", schema);
  EXPECT_EQ(schema_errors(schema, doc), std::vector<std::string>{});
  // The schema is not vacuous: a broken document fails it.
  nlohmann::json broken = doc;
  broken["results"][0]["contract"]["schedule"] = "sometimes";
  broken["results"][1].erase("summary");
  EXPECT_GE(schema_errors(schema, broken).size(), 2u);

  // CSV golden with the numbers and the machine-specific fields normalized.
  std::ifstream cin(csv);
  std::stringstream ss;
  ss << cin.rdbuf();
  std::string text = ss.str();
  std::vector<std::string> lines;
  std::string line;
  std::istringstream ls(text);
  while (std::getline(ls, line)) lines.push_back(line);
  ASSERT_EQ(lines.size(), 5u);
  EXPECT_EQ(lines[0],
            "name,params,device_name,arch,backend,quantity,instrument,schedule,cache,statistic,warmup,"
            "iterations,graph_calls,cupti_reduction,cupti_value,throttle_policy,inputs,value_us,n,min_us,p10_us,p25_us,"
            "median_us,p75_us,p90_us,max_us,mean_us,stdev_us,rel_iqr,stable,stop_reason,flush_bytes,"
            "rotation_copies,flags,warnings,instrument_perturbation_us,instrument_perturbation_pct,integrity,integrity_failure");
  // Keep the contract columns (4-16) and n (18); replace the measured numbers (17, 19-28), the
  // machine-dependent stability, flags and warnings.
  auto normalize = [](const std::string& row) {
    std::vector<std::string> f;
    std::string cur;
    bool quoted = false;
    for (char c : row) {
      if (c == '"') quoted = !quoted;
      if (c == ',' && !quoted) {
        f.push_back(cur);
        cur.clear();
      } else {
        cur += c;
      }
    }
    f.push_back(cur);
    f[2] = "CPU";
    f[3] = "ARCH";
    for (int i : {17, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28}) f[static_cast<std::size_t>(i)] = "N";
    f[29] = "STABLE";
    f[31] = f[31] == "0" ? "0" : "FLUSH";
    f[33] = "F";
    f[34] = "W";
    std::string out;
    for (std::size_t i = 0; i < f.size(); ++i) out += (i ? "," : "") + f[i];
    return out;
  };
  const std::string params_copy = "\"{\"\"dtype\"\":\"\"float32\"\",\"\"elements\"\":16384,\"\"size_bytes\"\":65536}\"";
  const std::string params_tiny = "\"{\"\"dtype\"\":\"\"float32\"\",\"\"elements\"\":256,\"\"size_bytes\"\":1024}\"";
  EXPECT_EQ(normalize(lines[1]), "copy," + params_copy +
                                     ",CPU,ARCH,host,device_time,wallclock,isolated,warm,median,10,fixed:20,,,,flag,fixed,N,20,"
                                     "N,N,N,N,N,N,N,N,N,N,STABLE,fixed count,0,0,F,W,,,verified,");
  EXPECT_EQ(normalize(lines[2]), "copy," + params_copy +
                                     ",CPU,ARCH,host,device_time,wallclock,isolated,cold,median,10,fixed:20,,,,flag,fixed,N,20,"
                                     "N,N,N,N,N,N,N,N,N,N,STABLE,fixed count,FLUSH,0,F,W,,,verified,");
  EXPECT_EQ(normalize(lines[4]), "tiny," + params_tiny +
                                     ",CPU,ARCH,host,device_time,wallclock,isolated,cold,median,10,fixed:20,,,,flag,fixed,N,20,"
                                     "N,N,N,N,N,N,N,N,N,N,STABLE,fixed count,FLUSH,0,F,W,,,verified,");
}

TEST(CliBench, AllExpandsToTheValidCombinationsAndSaysWhatItSkipped) {
  const auto r = run_cli("bench --backend host --kernel tiny --schedule all --cache warm --iters 5");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("skipped schedule=graph cache=warm: schedule graph needs device graph capture"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("skipped schedule=pipelined cache=warm"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("isolated"), std::string::npos);
  EXPECT_NE(r.out.find("per_iter"), std::string::npos);
}

TEST(CliBench, PipelinedWithMeanAndHostDispatch) {
  auto r = run_cli("bench --backend host --kernel tiny --schedule pipelined --statistic mean --cache warm "
                   "--iters 1000");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("pipelined/1000"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("one sample = mean of 1000 back-to-back calls"), std::string::npos) << r.out;
  r = run_cli("bench --backend host --kernel tiny --measure host-dispatch --iters 10");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("host_dispatch"), std::string::npos) << r.out;
}

TEST(Cli, HelpVersionDevicesAndUnknownCommands) {
  auto r = run_cli("--help");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("devices"), std::string::npos);
  EXPECT_NE(r.out.find("bench"), std::string::npos);
  r = run_cli("bench --help");
  EXPECT_EQ(r.exit_code, 0);
  for (const char* flag : {"--backend", "--device", "--kernel", "--size", "--instrument", "--schedule", "--cache",
                           "--statistic", "--warmup", "--iters", "--min-samples", "--min-time-ms", "--max-time-ms",
                           "--target-precision", "--json", "--csv"}) {
    EXPECT_NE(r.out.find(flag), std::string::npos) << flag;
  }
  r = run_cli("--version");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("0.1.0"), std::string::npos);
  r = run_cli("devices");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("backend host: 1 device(s)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("last-level cache"), std::string::npos) << r.out;
  r = run_cli("devices --json");
  EXPECT_EQ(r.exit_code, 0);
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["backends"][0]["backend"], "host");
  EXPECT_EQ(doc["backends"][0]["devices"].size(), 1u);
  r = run_cli("frobnicate");
  EXPECT_EQ(r.exit_code, 2);
  r = run_cli("");
  EXPECT_EQ(r.exit_code, 2);
}

}  // namespace
}  // namespace caliber
