// caliber batch: a campaign over ops x ledgers x matrices x devices (docs/batch.md); the hidden
// `__batch-task` is one Slurm array task (or the canary job) of a frozen campaign.
#include <iostream>
#include <memory>

#include "caliber/errors.h"
#include "campaign/batch.h"
#include "cli/command.h"
#include "cli/history_options.h"
#include "runner/run_cli_options.h"
#include "core/subprocess.h"

namespace caliber::cli {
namespace {

const RegisterCommand registration{41, [](CLI::App& root, int& exit_code) {
  auto o = std::make_shared<campaign::BatchOptions>();
  auto* cmd = root.add_subcommand(
      "batch", "A campaign: ops x ledgers x matrices x devices, sharded, retried, resumable, frozen and receipted "
               "(docs/batch.md)");
  // Every caliber run option, with the same meaning; --op, --shape-ledger and --baseline-matrix
  // take comma lists, --out is the campaign directory, --resume continues a campaign.
  runner::add_run_options(cmd, o->run);
  cmd->get_option("--op")->description("Op or comma list of ops");
  cmd->get_option("--shape-ledger")->description("Shape ledger or comma list of ledgers (their union is the campaign's)");
  cmd->get_option("--baseline-matrix")->description("Comma list of baseline matrices, one per op (paired by op_type)");
  cmd->get_option("--out")->description("The campaign directory (docs/batch.md, \"Files\")");
  cmd->get_option("--resume")->description("Continue the campaign in --out: failed and timed-out cells run again");
  cmd->add_option("--devices", o->devices, "Device slots, one shard each: 0,1 (two devices) or 0,0 (two shards on one)")
      ->capture_default_str();
  cmd->add_option("--retries", o->retries,
                  "Attempts after the first for a failed cell; the same failure twice stops them")
      ->capture_default_str();
  cmd->add_option("--shard-timeout-s", o->shard_timeout_s,
                  "Limit of one attempt of one shard's caliber run (SIGTERM to its process group, SIGKILL "
                  "--kill-after-s later)")
      ->capture_default_str();
  cmd->add_option("--kill-after-s", o->kill_after_s, "Seconds between SIGTERM and SIGKILL")->capture_default_str();
  cmd->add_option("--canary", o->canary,
                  "OP/PROVIDER of the canary cell (its op's first shape); default: the first op's reference provider");
  cmd->add_flag("--dry-run", o->dry_run, "Print the plan, the manifest hash and the time budget; run and write nothing");
  cmd->add_flag("--process-per-shard", o->process_per_shard,
                "Each shard's caliber run opens the device in a worker process of its own (default: one device "
                "server per device measures its shards one after the other, docs/batch.md)");
  cmd->add_flag("--strict", o->strict, "Exit 1 when a cell ended failed, incorrect or faster_than_physical");
  cmd->add_flag("--slurm", o->slurm, "Submit the shards as an sbatch job array (after a canary job) and merge them");
  cmd->add_option("--slurm-arg", o->slurm_args, "An sbatch option for both jobs, e.g. --slurm-arg=--partition=gpu (repeatable)");
  cmd->add_option("--slurm-wait-s", o->slurm_wait_s, "How long to wait for the Slurm jobs (default: the worst-case budget + 600 s)");
  auto h = std::make_shared<RunHistory>();
  add_run_history_options(*cmd, *h);
  cmd->callback([o, h, &exit_code] {
    forward_termination_signals_to_children();
    exit_code = with_run_history(*h, [&] { return campaign::run_batch(*o, std::cout, std::cerr); },
                                 [&] { return o->run.out + "/benchmark_results.jsonl"; });
  });

  auto dir = std::make_shared<std::string>();
  auto task = std::make_shared<int>(-1);
  auto canary = std::make_shared<bool>(false);
  auto* t = root.add_subcommand("__batch-task", "");
  t->group("");  // hidden: what an sbatch task runs
  t->add_option("--campaign", *dir)->required();
  t->add_option("--task", *task, "The shard (the array task id)");
  t->add_flag("--canary", *canary, "The canary cell instead of a shard");
  t->callback([dir, task, canary, &exit_code] {
    if (!*canary && *task < 0) throw UsageError("__batch-task: --task K or --canary");
    forward_termination_signals_to_children();
    exit_code = campaign::run_batch_task(*dir, *canary ? -1 : *task, std::cerr);
  });
}};

}  // namespace
}  // namespace caliber::cli
