// `caliber run`: the parent process. It reads and checks the ledger and the matrix, resumes an
// interrupted run, and drives a measuring worker process one shape at a time: it appends (and
// fsyncs) each row the worker reports, records a failed row for a cell whose worker died or hung,
// and restarts the worker for the remaining cells. It never initializes CUDA itself.
#pragma once

#include "runner/run_options.h"

namespace caliber::runner {

// Returns the CLI exit code: 0 when every cell has a row; 1 with --strict when a cell failed or
// was incorrect, or when the worker cannot start; 2 for a usage or input error reported by the
// worker; 4 when --resume meets results measured on another device or by another caliber build.
int run_benchmark(const RunOptions& options, bool strict);

}  // namespace caliber::runner
