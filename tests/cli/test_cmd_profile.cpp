// caliber profile: deferrals are recorded, a (fake) ncu's metrics are stored, failures say why.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "results/benchmark_results.h"
#include "profile/profiler_gate.h"
#include "ledger/shape_ledger.h"
#include "support/run_cli.h"
#include "io/benchmark_results_json.h"
#include "io/shape_ledger_json.h"

namespace caliber {
namespace {

namespace fs = std::filesystem;

const std::string kFixture = std::string(CALIBER_TEST_DATA) + "/report/fixture";
const std::string kShape = "sha1:653ef6e8591a35d9";  // the fixture's m=2048 n=3584 prefill shape

// The shipped host rmsnorm matrix, plus a provider disabled with its reason.
std::string matrix_text() {
  return testing_support::read_file_text(std::string(CALIBER_SOURCE_DIR) + "/matrices/host/rmsnorm/baseline_matrix.yaml") +
         "  cudnn: {enabled: false, provider: cudnn, skip_reason: \"cuDNN has no RMSNorm outside its graph API\"}\n";
}

struct Workspace {
  std::string dir;
  std::string matrix;
  std::string profiles;
};

Workspace workspace(const std::string& name) {
  Workspace w;
  w.dir = testing_support::temp_path(name);
  fs::remove_all(w.dir);
  fs::create_directories(w.dir);
  w.matrix = w.dir + "/baseline_matrix.yaml";
  std::ofstream(w.matrix) << matrix_text();
  w.profiles = w.dir + "/profiles";
  return w;
}

std::string profile_args(const Workspace& w, const std::string& provider = "caliber") {
  return "profile --op rmsnorm --shape-id " + kShape + " --provider " + provider + " --shape-ledger " + kFixture +
         "/shape_ledger.jsonl --baseline-matrix " + w.matrix + " --out " + w.profiles;
}

// A stand-in for ncu: refuses to run unless clocks are left alone, prints a raw CSV page on
// --import, and otherwise runs the cell command that follows its own options, on the host backend
// (there is no GPU here) in place of cuda. `exit_code` != 0 makes the profiling run fail with a
// message on stderr before the cell runs.
std::string fake_ncu(const Workspace& w, int exit_code) {
  const std::string path = w.dir + "/ncu";
  std::ofstream(path) << "#!/bin/bash\n"
                         "case \"$*\" in\n"
                         "  *--import*)\n"
                         "    echo '==PROF== importing'\n"
                         "    echo '\"ID\",\"Kernel Name\",\"gpu__time_duration.sum\",\"dram__bytes_read.sum\","
                         "\"l1tex__t_bytes_pipe_lsu_mem_local_op_st.sum\"'\n"
                         "    echo '\"\",\"\",\"nsecond\",\"byte\",\"byte\"'\n"
                         "    echo '\"0\",\"rmsnorm_kernel\",\"30,000\",\"29367296\",\"512\"'\n"
                         "    exit 0;;\n"
                         "esac\n"
                         "[ \"$1\" = --clock-control ] && [ \"$2\" = none ] || { echo 'clocks would be locked' >&2; exit 9; }\n"
                         "if [ " << exit_code << " != 0 ]; then echo 'ncu: simulated failure' >&2; exit " << exit_code << "; fi\n"
                         "while [ $# -gt 0 ] && [ \"$1\" != --force-overwrite ]; do shift; done\n"
                         "shift\n"
                         "cell=(); prev=\n"
                         "for a in \"$@\"; do [ \"$prev\" = --backend ] && a=host; cell+=(\"$a\"); prev=$a; done\n"
                         "exec \"${cell[@]}\"\n";
  ::chmod(path.c_str(), 0755);
  return path;
}

TEST(CmdProfile, HostBackendIsRecordedAsDeferred) {
  const Workspace w = workspace("profile-host");
  const auto r = testing_support::run_cli(profile_args(w) + " --backend host");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const ProfileDiagnosis d = read_profile_diagnosis(profile_directory(w.profiles, kShape, "caliber") + "/diagnosis.json");
  EXPECT_EQ(d.status, "deferred");
  EXPECT_EQ(d.reason, "ncu profiles CUDA kernels; the host backend has none");
  EXPECT_EQ(d.shape_id, kShape);
}

TEST(CmdProfile, ADisabledProviderIsRecordedAsDeferred) {
  const Workspace w = workspace("profile-disabled");
  const auto r = testing_support::run_cli(profile_args(w, "cudnn"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const ProfileDiagnosis d = read_profile_diagnosis(profile_directory(w.profiles, kShape, "cudnn") + "/diagnosis.json");
  EXPECT_EQ(d.reason, "the provider is disabled in the baseline matrix: cuDNN has no RMSNorm outside its graph API");
}

TEST(CmdProfile, NoNcuIsRecordedAsDeferred) {
  if (fs::exists("/usr/local/cuda/bin/ncu")) GTEST_SKIP() << "ncu is installed in /usr/local/cuda/bin";
  const Workspace w = workspace("profile-no-ncu");
  const auto r = testing_support::run_cli_command("env -u CUDA_HOME PATH=" + w.dir + "/empty " +
                                                  testing_support::caliber_exe() + " " + profile_args(w));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const ProfileDiagnosis d = read_profile_diagnosis(profile_directory(w.profiles, kShape, "caliber") + "/diagnosis.json");
  EXPECT_EQ(d.status, "deferred");
  EXPECT_EQ(d.reason, "ncu (Nsight Compute) not found on PATH, in $CUDA_HOME/bin or /usr/local/cuda/bin");
}

TEST(CmdProfile, StoresTheMetricsNcuReports) {
  const Workspace w = workspace("profile-fake-ncu");
  const auto r = testing_support::run_cli(profile_args(w) + " --ncu " + fake_ncu(w, 0));
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  const std::string dir = profile_directory(w.profiles, kShape, "caliber");
  const ProfileDiagnosis d = read_profile_diagnosis(dir + "/diagnosis.json");
  EXPECT_EQ(d.status, "profiled") << d.reason;
  ASSERT_EQ(d.kernels.size(), 1u);
  EXPECT_EQ(d.kernels[0].name, "rmsnorm_kernel");
  EXPECT_DOUBLE_EQ(d.kernels[0].metrics.at("gpu__time_duration.sum"), 30000);
  EXPECT_DOUBLE_EQ(*d.local_memory_bytes(), 512);
  EXPECT_EQ(d.summary_line(), "profiled: 1 kernel, 30.00 us, DRAM 28.0 MiB, local memory 512 B");
  // The command ncu ran: clocks untouched, only the NVTX range, then the one cell through caliber run.
  ASSERT_GT(d.command.size(), 8u);
  EXPECT_EQ(d.command[1], "--clock-control");
  EXPECT_EQ(d.command[2], "none");
  EXPECT_NE(std::find(d.command.begin(), d.command.end(), "caliber_profile/"), d.command.end());
  const auto run = std::find(d.command.begin(), d.command.end(), "run");
  ASSERT_NE(run, d.command.end());
  EXPECT_EQ(*(run - 1), testing_support::caliber_exe());
  auto value_of = [&](const std::string& option) {
    const auto at = std::find(run, d.command.end(), option);
    return at == d.command.end() || at + 1 == d.command.end() ? std::string("<absent>") : *(at + 1);
  };
  EXPECT_EQ(value_of("--shape-ledger"), dir + "/cell/shape_ledger.jsonl");
  EXPECT_EQ(value_of("--providers"), "caliber");
  EXPECT_EQ(value_of("--out"), dir + "/cell/run");
  EXPECT_EQ(value_of("--backend"), "cuda");
  EXPECT_TRUE(fs::exists(dir + "/repro.sh"));
  EXPECT_TRUE(fs::exists(dir + "/ncu_raw.csv"));

  // The cell: a ledger of the one shape, and a run that measured exactly one cell, this one.
  const std::vector<ShapeRow> cell_ledger = read_shape_ledger(dir + "/cell/shape_ledger.jsonl");
  ASSERT_EQ(cell_ledger.size(), 1u);
  EXPECT_EQ(cell_ledger[0].shape_id, kShape);
  const std::vector<BenchmarkResultRow> rows = read_benchmark_results(dir + "/cell/run/benchmark_results.jsonl");
  ASSERT_EQ(rows.size(), 3u);  // one per matrix provider
  int measured = 0;
  for (const BenchmarkResultRow& row : rows) {
    EXPECT_EQ(row.shape_id, kShape);
    if (row.kernel_only || row.eager) {
      ++measured;
      EXPECT_EQ(row.provider, "caliber");
      EXPECT_EQ(row.benchmark_status, BenchmarkStatus::ok) << row.status_reason.value_or("");
    } else {
      EXPECT_TRUE(row.benchmark_status == BenchmarkStatus::skipped ||
                  row.benchmark_status == BenchmarkStatus::not_configured)
          << row.provider;
    }
  }
  EXPECT_EQ(measured, 1);
}

TEST(CmdProfile, ACellThatDidNotRunTheProviderIsAFailedProfile) {
  Workspace w = workspace("profile-unsupported-cell");
  // A plugin that supports fp32 only, for the fixture's bf16 shape: the cell records unsupported.
  std::ofstream(w.matrix, std::ios::app) << "  fp32only: {enabled: true, entrypoint: \"" << CALIBER_TEST_PLUGIN
                                         << ":caliber_test_fp32_only\", provider: plugin}\n";
  const auto r = testing_support::run_cli(profile_args(w, "fp32only") + " --ncu " + fake_ncu(w, 0));
  EXPECT_EQ(r.exit_code, 1) << r.err << r.out;
  const ProfileDiagnosis d = read_profile_diagnosis(profile_directory(w.profiles, kShape, "fp32only") + "/diagnosis.json");
  EXPECT_EQ(d.status, "failed");
  EXPECT_EQ(d.reason.rfind("the cell recorded unsupported: ", 0), 0u) << d.reason;
  EXPECT_TRUE(d.kernels.empty());
}

TEST(CmdProfile, AFailingNcuIsRecordedAndExitsOne) {
  const Workspace w = workspace("profile-failing-ncu");
  const auto r = testing_support::run_cli(profile_args(w) + " --ncu " + fake_ncu(w, 5));
  EXPECT_EQ(r.exit_code, 1);
  const ProfileDiagnosis d = read_profile_diagnosis(profile_directory(w.profiles, kShape, "caliber") + "/diagnosis.json");
  EXPECT_EQ(d.status, "failed");
  EXPECT_EQ(d.reason, "ncu exited with status 5: ncu: simulated failure");
}

TEST(CmdProfile, UnknownShapeOrProviderIsAUsageError) {
  const Workspace w = workspace("profile-usage");
  auto r = testing_support::run_cli("profile --op rmsnorm --shape-id sha1:0000000000000000 --provider caliber "
                                    "--shape-ledger " + kFixture + "/shape_ledger.jsonl --baseline-matrix " + w.matrix);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--shape-id sha1:0000000000000000: not in"), std::string::npos) << r.err;
  r = testing_support::run_cli(profile_args(w, "mystery"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--provider mystery: not in"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(w.profiles));
}

}  // namespace
}  // namespace caliber
