// The measuring worker of `caliber run` (the hidden `caliber __run-worker` subcommand).
//
// Protocol (JSON lines). Parent -> worker on stdin, one command per shape:
//   {"shape_index": 3, "shape_id": "sha1:...", "providers": ["caliber", "cublas"]}
// Worker -> parent on the events descriptor:
//   {"event": "ready", "device": {...}}                 after the device is open; with
//                                                         --start-checks also "identity": {...}
//                                                         (run_identity.json, collected before)
//   {"event": "preflight_failed", "failures": [{"check": "device_visible", "detail": "..."}]}
//                                                        --start-checks: the device preflight failed
//   {"event": "fatal", "exit_code": 2, "message": "..."} before exiting on a usage/input error
//   {"event": "start", "shape_id": "...", "provider": "..."}
//   {"event": "row", "row": {...results row...}}
//   {"event": "shape_done", "shape_id": "...", "healthy": true}
// The worker exits 0 at the end of stdin, and kWorkerDeviceLost after a shape that left the
// device unusable (a sticky error), so that a fresh process continues with the next cells.
#pragma once

#include "runner/run_options.h"

namespace caliber::runner {

inline constexpr int kWorkerDeviceLost = 3;
inline constexpr int kExitPreflightFailed = 3;  // after a preflight_failed event

int run_worker(const RunOptions& options);

}  // namespace caliber::runner
