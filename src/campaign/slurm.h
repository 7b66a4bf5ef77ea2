// caliber batch --slurm (docs/batch.md, "Slurm"): the frozen campaign as two sbatch jobs, the
// canary and, depending on it (afterok), a job array with one task per shard. Each task runs
// `caliber __batch-task --campaign DIR --task K`, which reads the manifest as its contract and
// refuses to measure with another binary; the submitting caliber waits for both jobs (squeue),
// then merges the shards (refusing shards whose identities differ).
#pragma once

#include <string>
#include <vector>

namespace caliber::campaign {

struct SbatchJob {
  std::string job_name;
  std::string log_pattern;              // --output (%a: the array task id)
  std::string array;                    // "0-3", or "" for a single task
  std::vector<std::string> extra_args;  // --slurm-arg values, each one #SBATCH line
  std::vector<std::string> command;     // what the task runs (shell-quoted into the script)
};

// The batch script: "#!/bin/bash", one "#SBATCH" line per option, then `exec` of the command with
// $SLURM_ARRAY_TASK_ID standing for the literal argument "{task}".
std::string sbatch_script(const SbatchJob& job);

// Submits a script (`sbatch --parsable [--dependency=afterok:ID --kill-on-invalid-dep=yes]`);
// returns the job id. Throws Error with sbatch's output when it fails.
std::string submit_sbatch(const std::string& script_path, const std::string& after_ok_job = "");

// Waits until none of the jobs is in squeue any more, polling every poll_s, at most wait_s.
// False on timeout (the jobs are then cancelled with scancel).
bool wait_for_slurm_jobs(const std::vector<std::string>& job_ids, double wait_s, double poll_s = 1.0);

}  // namespace caliber::campaign
