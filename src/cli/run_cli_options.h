// caliber run's options, registered on another command too: caliber batch takes every option of
// caliber run with the same meaning and passes it to each shard's caliber run (docs/batch.md).
#pragma once

#include <CLI/CLI.hpp>

#include "runner/run_options.h"

namespace caliber::cli {

void add_run_options(CLI::App* cmd, runner::RunOptions& o);

}  // namespace caliber::cli
