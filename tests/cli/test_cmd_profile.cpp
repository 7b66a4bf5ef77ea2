// caliber profile: deferrals are recorded, a (fake) ncu's metrics are stored, failures say why.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "caliber/profiler_gate.h"
#include "support/run_cli.h"

namespace caliber {
namespace {

namespace fs = std::filesystem;

const std::string kFixture = std::string(CALIBER_TEST_DATA) + "/report/fixture";
const std::string kShape = "sha1:653ef6e8591a35d9";  // the fixture's m=2048 n=3584 prefill shape

const char* kMatrix = R"(schema_version: 1
kernel: rmsnorm
op_type: rmsnorm
dtype: [bf16]
reference_provider: naive
layout_contract: row_major
providers:
  caliber: {enabled: true, entrypoint: "builtin:caliber", provider: caliber}
  naive: {enabled: true, entrypoint: "builtin:naive", provider: caliber}
  cudnn: {enabled: false, provider: cudnn, skip_reason: "cuDNN has no RMSNorm outside its graph API"}
)";

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
  std::ofstream(w.matrix) << kMatrix;
  w.profiles = w.dir + "/profiles";
  return w;
}

std::string profile_args(const Workspace& w, const std::string& provider = "caliber") {
  return "profile --op rmsnorm --shape-id " + kShape + " --provider " + provider + " --shape-ledger " + kFixture +
         "/shape_ledger.jsonl --baseline-matrix " + w.matrix + " --out " + w.profiles;
}

// A stand-in for ncu: refuses to run unless clocks are left alone, and prints a raw CSV page on
// --import. `exit_code` != 0 makes the profiling run fail with a message on stderr.
std::string fake_ncu(const Workspace& w, int exit_code) {
  const std::string path = w.dir + "/ncu";
  std::ofstream(path) << "#!/bin/sh\n"
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
                         "echo 'ncu: simulated failure' >&2\n"
                         "exit " << exit_code << "\n";
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
  // The command ncu ran: clocks untouched, only the NVTX range, then the one cell.
  ASSERT_GT(d.command.size(), 8u);
  EXPECT_EQ(d.command[1], "--clock-control");
  EXPECT_EQ(d.command[2], "none");
  EXPECT_NE(std::find(d.command.begin(), d.command.end(), "caliber_profile/"), d.command.end());
  EXPECT_NE(std::find(d.command.begin(), d.command.end(), "--profile-cell"), d.command.end());
  EXPECT_TRUE(fs::exists(dir + "/repro.sh"));
  EXPECT_TRUE(fs::exists(dir + "/ncu_raw.csv"));
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
