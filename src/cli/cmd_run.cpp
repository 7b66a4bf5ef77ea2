// caliber run: every provider of a baseline matrix over every shape of a ledger, with a
// correctness gate, kernel-only and eager timings, and one results row per cell.
// The hidden `__run-worker` subcommand is the measuring process `caliber run` starts.
#include <memory>

#include "cli/command.h"
#include "cli/history_options.h"
#include "runner/device_server.h"
#include "runner/run_options.h"
#include "runner/supervisor.h"
#include "runner/worker.h"
#include "runner/run_cli_options.h"

namespace caliber::cli {

namespace {

const RegisterCommand registration{40, [](CLI::App& root, int& exit_code) {
  auto o = std::make_shared<runner::RunOptions>();
  auto strict = std::make_shared<bool>(false);
  auto* cmd = root.add_subcommand(
      "run", "Benchmark every provider of a baseline matrix over a shape ledger (correctness, kernel-only, eager)");
  runner::add_run_options(cmd, *o);
  cmd->add_flag("--strict", *strict, "Exit 1 when a cell failed or was incorrect (default: they are data)");
  cmd->add_option("--run-id", o->run_id, "The run id of a new run (default: drawn); with --resume, must be the run's");
  cmd->add_option("--rerun-cells", o->rerun_cells,
                  "With --resume: run these failed cells again (file of shape_id<TAB>provider lines); their rows "
                  "move to benchmark_attempts.jsonl (docs/batch.md)");
  cmd->add_option("--capture-denied", o->capture_denied,
                  "Providers denied graph capture from the start (file of provider<TAB>why lines; caliber batch "
                  "passes the campaign's, docs/runner.md)");
  cmd->add_option("--device-server", o->device_server,
                  "Measure through the device server listening on this Unix socket (caliber batch starts one per "
                  "device, docs/batch.md); without an answer there the run starts its own worker");
  auto h = std::make_shared<RunHistory>();
  add_run_history_options(*cmd, *h);
  cmd->callback([o, strict, h, &exit_code] {
    exit_code = with_run_history(*h, [&] { return runner::run_benchmark(*o, *strict); },
                                 [&] { return o->out + "/benchmark_results.jsonl"; });
  });

  auto w = std::make_shared<runner::RunOptions>();
  auto* worker = root.add_subcommand("__run-worker", "");
  worker->group("");  // hidden: started by caliber run
  runner::add_worker_options(worker, *w);
  worker->callback([w, &exit_code] { exit_code = runner::run_worker(*w); });

  auto s = std::make_shared<runner::DeviceServerOptions>();
  auto* server = root.add_subcommand("__device-server", "");
  server->group("");  // hidden: started by caliber batch, one per device
  server->add_option("--socket", s->socket)->required();
  server->add_option("--backend", s->backend)->required();
  server->add_option("--device", s->device)->required();
  server->callback([s, &exit_code] { exit_code = runner::run_device_server(*s); });
}};

}  // namespace
}  // namespace caliber::cli
