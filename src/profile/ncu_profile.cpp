#include "profile/ncu_profile.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <sstream>

#include <fmt/format.h>

#include "ab/cell_command.h"  // shell_quote
#include "core/atomic_file.h"
#include "results/benchmark_results.h"
#include "core/json_fields.h"
#include "core/subprocess.h"
#include "core/utc_time.h"
#include "io/benchmark_results_json.h"
#include "io/shape_ledger_json.h"

namespace caliber::profile {
namespace {

namespace fs = std::filesystem;

bool executable(const fs::path& p) { return fs::is_regular_file(p) && ::access(p.c_str(), X_OK) == 0; }

std::string last_line(const std::string& file) {
  std::ifstream in(file);
  std::string line, last;
  while (std::getline(in, line)) {
    if (!line.empty()) last = line;
  }
  return last;
}

// Runs argv (no shell), stdout and stderr to files, no time limit; the exit status (128 + signal
// when killed, 127 when it could not be started).
int run_logged(const std::vector<std::string>& argv, const std::string& stdout_file, const std::string& stderr_file) {
  SubprocessOptions o;
  o.argv = argv;
  o.stdout_path = stdout_file;
  o.stderr_path = stderr_file;
  return run_subprocess(o).exit_code;
}

// The cell's scratch: <cell>/shape_ledger.jsonl (the one shape) and <cell>/run (the run's --out).
fs::path cell_directory(const std::string& export_base) { return fs::path(export_base).parent_path() / "cell"; }

// Why the profiled cell did not run the provider's call, from the cell's own results ("" when it
// did: status ok or incorrect, both of which ran and timed the call).
// A cell command that writes no results (a custom --cell-command) is not second-guessed.
std::string cell_outcome(const fs::path& cell, const ProfileRequest& r) {
  const fs::path results = cell / "run" / "benchmark_results.jsonl";
  if (!fs::exists(results)) return {};
  for (const BenchmarkResultRow& row : read_benchmark_results(results.string())) {
    if (row.shape_id != r.shape_id || row.provider != r.provider) continue;
    if (row.benchmark_status == BenchmarkStatus::ok || row.benchmark_status == BenchmarkStatus::incorrect) return {};
    return fmt::format("the cell recorded {}: {}", to_string(row.benchmark_status), row.status_reason.value_or(""));
  }
  return fmt::format("the cell has no row of {} {}", r.shape_id, r.provider);
}

}  // namespace

std::optional<std::string> find_ncu(std::string* why) {
  std::vector<fs::path> candidates;
  if (const char* path = std::getenv("PATH")) {
    std::stringstream ss(path);
    std::string dir;
    while (std::getline(ss, dir, ':')) {
      if (!dir.empty()) candidates.push_back(fs::path(dir) / "ncu");
    }
  }
  if (const char* cuda = std::getenv("CUDA_HOME"); cuda && *cuda) candidates.push_back(fs::path(cuda) / "bin" / "ncu");
  candidates.push_back("/usr/local/cuda/bin/ncu");
  for (const auto& c : candidates) {
    if (executable(c)) return c.string();
  }
  if (why) *why = "ncu (Nsight Compute) not found on PATH, in $CUDA_HOME/bin or /usr/local/cuda/bin";
  return std::nullopt;
}

std::vector<std::string> ncu_profile_command(const ProfileRequest& r, const std::string& export_base) {
  std::string metrics;
  for (const auto& m : profile_metrics()) metrics += (metrics.empty() ? "" : ",") + m;
  std::vector<std::string> argv = {r.ncu,
                                   "--clock-control", "none",
                                   "--target-processes", "all",
                                   "--nvtx", "--nvtx-include", std::string(kProfileNvtxRange) + "/",
                                   "--metrics", metrics,
                                   "--export", export_base,
                                   "--force-overwrite"};
  const std::vector<std::string> cell =
      expand_cell_command(r.cell_command, {{"caliber", r.caliber_exe},
                                           {"op", r.op_type},
                                           {"shape_ledger", r.shape_ledger},
                                           {"cell_ledger", (cell_directory(export_base) / "shape_ledger.jsonl").string()},
                                           {"baseline_matrix", r.baseline_matrix},
                                           {"shape_id", r.shape_id},
                                           {"provider", r.provider},
                                           {"device", std::to_string(r.device)},
                                           {"cell_out", (cell_directory(export_base) / "run").string()}});
  argv.insert(argv.end(), cell.begin(), cell.end());
  return argv;
}

ProfileDiagnosis run_profile(const ProfileRequest& r, std::ostream& log) {
  const fs::path dir = profile_directory(r.profiles_root, r.shape_id, r.provider);
  fs::create_directories(dir);
  ProfileDiagnosis d;
  d.op_type = r.op_type;
  d.shape_id = r.shape_id;
  d.provider = r.provider;
  d.created_at = utc_timestamp_now();
  auto finish = [&](const std::string& status, const std::string& reason) {
    d.status = status;
    d.reason = reason;
    write_profile_diagnosis((dir / "diagnosis.json").string(), d);
    log << fmt::format("{} {}: {}\n", r.shape_id, r.provider, d.summary_line());
    return d;
  };
  if (!r.provider_disabled.empty()) {
    return finish("deferred", "the provider is disabled in the baseline matrix: " + r.provider_disabled);
  }
  if (r.backend != "cuda") {
    return finish("deferred", fmt::format("ncu profiles CUDA kernels; the {} backend has none", r.backend));
  }
  if (r.ncu.empty()) return finish("deferred", r.ncu_missing);

  const std::string export_base = (dir / "profile").string();
  d.command = ncu_profile_command(r, export_base);
  const fs::path cell = cell_directory(export_base);
  std::string repro = fmt::format("#!/bin/sh\n# Reproduces this profile (caliber profile).\nrm -rf {}\n",
                                  shell_quote((cell / "run").string()));
  for (const auto& a : d.command) repro += shell_quote(a) + ' ';
  repro += '\n';
  write_file_atomically((dir / "repro.sh").string(), [&](std::ostream& out) { out << repro; });
  // The cell's scratch directory: a fresh run (caliber run refuses an --out that holds results)
  // over a ledger of the one shape.
  fs::remove_all(cell);
  fs::create_directories(cell);
  write_shape_ledger((cell / "shape_ledger.jsonl").string(), {r.shape});

  const std::string out_log = (dir / "ncu_profile.stdout.log").string();
  const std::string err_log = (dir / "ncu_profile.stderr.log").string();
  const int rc = run_logged(d.command, out_log, err_log);
  if (rc != 0) {
    const std::string tail = last_line(err_log).empty() ? last_line(out_log) : last_line(err_log);
    return finish("failed", fmt::format("ncu exited with status {}{}", rc, tail.empty() ? "" : ": " + tail));
  }
  if (const std::string why = cell_outcome(cell, r); !why.empty()) return finish("failed", why);
  const std::string csv = (dir / "ncu_raw.csv").string();
  const std::vector<std::string> import = {r.ncu,    "--import", export_base + ".ncu-rep", "--csv", "--page", "raw",
                                           "--print-units", "base"};
  const int import_rc = run_logged(import, csv, (dir / "ncu_import.stderr.log").string());
  if (import_rc != 0) {
    return finish("failed", fmt::format("ncu --import exited with status {}: {}", import_rc,
                                        last_line((dir / "ncu_import.stderr.log").string())));
  }
  d.kernels = parse_ncu_raw_csv(read_text_file(csv), csv);
  if (d.kernels.empty()) {
    return finish("failed", fmt::format("ncu profiled no kernel: the cell command must launch the provider inside "
                                        "the NVTX range '{}'",
                                        kProfileNvtxRange));
  }
  return finish("profiled", "");
}

}  // namespace caliber::profile
