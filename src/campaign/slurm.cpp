#include "campaign/slurm.h"

#include <unistd.h>

#include <chrono>

#include <fmt/format.h>

#include "ab/cell_command.h"
#include "caliber/errors.h"
#include "core/subprocess.h"

namespace caliber::campaign {

std::string sbatch_script(const SbatchJob& job) {
  std::string s = "#!/bin/bash\n";
  s += fmt::format("#SBATCH --job-name={}\n", job.job_name);
  s += fmt::format("#SBATCH --output={}\n", job.log_pattern);
  if (!job.array.empty()) s += fmt::format("#SBATCH --array={}\n", job.array);
  for (const std::string& a : job.extra_args) s += fmt::format("#SBATCH {}\n", a);
  s += "# written by caliber batch --slurm (docs/batch.md); the campaign manifest is the contract\n";
  s += "exec";
  for (const std::string& a : job.command) {
    s += ' ';
    s += a == "{task}" ? std::string("\"${SLURM_ARRAY_TASK_ID}\"") : shell_quote(a);
  }
  s += '\n';
  return s;
}

std::string submit_sbatch(const std::string& script_path, const std::string& after_ok_job) {
  SubprocessOptions o;
  o.argv = {"sbatch", "--parsable"};
  if (!after_ok_job.empty()) {
    o.argv.push_back("--dependency=afterok:" + after_ok_job);
    o.argv.push_back("--kill-on-invalid-dep=yes");
  }
  o.argv.push_back(script_path);
  o.capture_stdout = true;
  o.timeout_s = 60;
  const SubprocessResult r = run_subprocess(o);
  std::string id = r.captured_stdout;
  while (!id.empty() && (id.back() == '\n' || id.back() == '\r')) id.pop_back();
  if (const auto semi = id.find(';'); semi != std::string::npos) id.resize(semi);  // "id;cluster"
  if (r.exit_code != 0 || id.empty() || id.find_first_not_of("0123456789") != std::string::npos) {
    throw Error(fmt::format("sbatch {} failed (exit {}): {}", script_path, r.exit_code,
                            r.spawn_error.empty() ? r.captured_stdout : r.spawn_error));
  }
  return id;
}

bool wait_for_slurm_jobs(const std::vector<std::string>& job_ids, double wait_s, double poll_s) {
  std::string list;
  for (const auto& id : job_ids) list += (list.empty() ? "" : ",") + id;
  const auto start = std::chrono::steady_clock::now();
  while (true) {
    SubprocessOptions o;
    o.argv = {"squeue", "-h", "-j", list, "-o", "%i"};
    o.capture_stdout = true;
    o.timeout_s = 30;
    const SubprocessResult r = run_subprocess(o);
    // squeue exits non-zero for job ids it no longer knows: they are all gone.
    if (r.exit_code != 0 || r.captured_stdout.find_first_not_of(" \n") == std::string::npos) return true;
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > wait_s) {
      SubprocessOptions c;
      c.argv = {"scancel"};
      c.argv.insert(c.argv.end(), job_ids.begin(), job_ids.end());
      c.timeout_s = 30;
      run_subprocess(c);
      return false;
    }
    usleep(static_cast<useconds_t>(poll_s * 1e6));
  }
}

}  // namespace caliber::campaign
