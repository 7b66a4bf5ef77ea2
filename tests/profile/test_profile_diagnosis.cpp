// The profiler gate's stored diagnoses, ncu's raw CSV, and the cell-command template.
#include <gtest/gtest.h>

#include <filesystem>

#include "caliber/errors.h"
#include "profile/profiler_gate.h"
#include "profile/ncu_profile.h"
#include "support/run_cli.h"

namespace caliber {
namespace {

// The shape of `ncu --import R --csv --page raw --print-units base`: header, units, one row per
// kernel; ncu's own messages start with "==".
const char* kRawCsv =
    "==PROF== Connected to process 4242\n"
    "\"ID\",\"Process ID\",\"Kernel Name\",\"gpu__time_duration.sum\",\"dram__bytes_read.sum\","
    "\"dram__bytes_write.sum\",\"l1tex__t_bytes_pipe_lsu_mem_local_op_ld.sum\",\"launch__grid_size\","
    "\"some__other_metric\"\n"
    "\"\",\"\",\"\",\"nsecond\",\"byte\",\"byte\",\"byte\",\"\",\"\"\n"
    "\"0\",\"4242\",\"rmsnorm_kernel<bf16>(...)\",\"12,288\",\"1,073,741,824\",\"536870912\",\"0\",\"4096\",\"7\"\n"
    "\"1\",\"4242\",\"rmsnorm_tail\",\"712\",\"n/a\",\"1024\",\"256\",\"1\",\"7\"\n";

TEST(ProfileDiagnosis, ParsesNcuRawCsvKeepingKnownMetrics) {
  const auto kernels = parse_ncu_raw_csv(kRawCsv, "ncu_raw.csv");
  ASSERT_EQ(kernels.size(), 2u);
  EXPECT_EQ(kernels[0].name, "rmsnorm_kernel<bf16>(...)");
  EXPECT_DOUBLE_EQ(kernels[0].metrics.at("gpu__time_duration.sum"), 12288);  // thousands separators dropped
  EXPECT_DOUBLE_EQ(kernels[0].metrics.at("dram__bytes_read.sum"), 1073741824);
  EXPECT_EQ(kernels[0].units.at("gpu__time_duration.sum"), "nsecond");
  EXPECT_EQ(kernels[0].metrics.count("some__other_metric"), 0u);  // not one of profile_metrics()
  EXPECT_EQ(kernels[1].metrics.count("dram__bytes_read.sum"), 0u);  // n/a left out

  ProfileDiagnosis d;
  d.status = "profiled";
  d.kernels = kernels;
  EXPECT_DOUBLE_EQ(*d.total("gpu__time_duration.sum"), 13000);
  EXPECT_DOUBLE_EQ(*d.local_memory_bytes(), 256);
  EXPECT_EQ(d.summary_line(), "profiled: 2 kernels, 13.00 us, DRAM 1.50 GiB, local memory 256 B");
  EXPECT_THROW(parse_ncu_raw_csv("\"ID\",\"Name\"\n\"1\",\"x\"\n", "bad.csv"), InputError);
}

TEST(ProfileDiagnosis, RoundTripAndStrictReading) {
  ProfileDiagnosis d;
  d.status = "deferred";
  d.reason = "ncu not found";
  d.op_type = "rmsnorm";
  d.shape_id = "sha1:0123456789abcdef";
  d.provider = "caliber";
  d.created_at = "2026-11-29T12:00:00Z";
  const std::string root = testing_support::temp_path("profiles");
  std::filesystem::remove_all(root);
  EXPECT_FALSE(find_profile_diagnosis(root, d.shape_id, "caliber"));
  const std::string dir = profile_directory(root, d.shape_id, d.provider);
  EXPECT_EQ(dir, root + "/0123456789abcdef/caliber");
  write_profile_diagnosis(dir + "/diagnosis.json", d);
  const auto back = find_profile_diagnosis(root, d.shape_id, "caliber");
  ASSERT_TRUE(back);
  EXPECT_EQ(back->status, "deferred");
  EXPECT_EQ(back->summary_line(), "deferred: ncu not found");
  EXPECT_EQ(profile_diagnosis_json(*back), profile_diagnosis_json(d));

  d.reason = "";
  write_profile_diagnosis(dir + "/diagnosis.json", d);
  EXPECT_THROW(read_profile_diagnosis(dir + "/diagnosis.json"), InputError);  // a deferral must say why
}

TEST(ProfileDiagnosis, CellCommandTemplate) {
  const auto argv = expand_cell_command("{caliber} run --op {op} --x a{shape_id}b  --out {cell_out}",
                                        {{"caliber", "/bin/caliber"}, {"op", "rmsnorm"}, {"shape_id", "S"},
                                         {"cell_out", "/tmp/with space"}});
  EXPECT_EQ(argv, (std::vector<std::string>{"/bin/caliber", "run", "--op", "rmsnorm", "--x", "aSb", "--out",
                                            "/tmp/with space"}));
  EXPECT_THROW(expand_cell_command("{nope}", {}), UsageError);
  EXPECT_THROW(expand_cell_command("{op", {{"op", "x"}}), UsageError);
  // The default template uses only known placeholders.
  EXPECT_NO_THROW(expand_cell_command(kProfileCellCommandTemplate,
                                      {{"caliber", "c"}, {"op", "o"}, {"shape_ledger", "l"}, {"cell_ledger", "c"}, {"baseline_matrix", "m"},
                                       {"shape_id", "s"}, {"provider", "p"}, {"device", "0"}, {"cell_out", "d"}}));
}

TEST(ProfileDiagnosis, NcuCommandLeavesClocksAlone) {
  profile::ProfileRequest r;
  r.ncu = "/opt/ncu";
  r.cell_command = "{caliber} run {shape_id}";
  r.caliber_exe = "/bin/caliber";
  r.shape_id = "sha1:1";
  const auto argv = profile::ncu_profile_command(r, "/p/profile");
  ASSERT_GE(argv.size(), 4u);
  EXPECT_EQ(argv[0], "/opt/ncu");
  EXPECT_EQ(argv[1], "--clock-control");
  EXPECT_EQ(argv[2], "none");
  EXPECT_EQ(std::vector<std::string>(argv.end() - 3, argv.end()),
            (std::vector<std::string>{"/bin/caliber", "run", "sha1:1"}));
}

}  // namespace
}  // namespace caliber
