// `caliber run`: the parent process. It runs the preflight, reads and checks the ledger and the
// matrix, writes run_identity.json (or checks it when resuming an interrupted run), and drives a
// measuring worker process one shape at a time: it appends (and fsyncs) each row the worker
// reports, records a failed row for a cell whose worker died or hung, and restarts the worker for
// the remaining cells. It never initializes CUDA itself.
#pragma once

#include "runner/run_options.h"

namespace caliber::runner {

// Returns the CLI exit code: 0 when every cell has a row; 1 with --strict when a cell failed or
// was incorrect, or when the worker cannot start; 2 for a usage or input error reported by the
// worker. Throws PreflightError (exit 3) when a preflight check fails — the parent's (input files,
// plugins, output directory) or the first worker's (device, libraries) — before anything is
// measured or written; CaliberMismatchError (exit 4) when --resume meets a run of another caliber
// (run_identity.json differs in a caliber field, or is missing).
int run_benchmark(const RunOptions& options, bool strict);

}  // namespace caliber::runner
