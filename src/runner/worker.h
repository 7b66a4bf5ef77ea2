// The measuring worker of `caliber run` (the hidden `caliber __run-worker` subcommand).
//
// Protocol (JSON lines). Parent -> worker on stdin, one command per shape or group of shapes:
//   {"shape_index": 3, "shape_id": "sha1:...", "providers": ["caliber", "cublas"]}
//   {"shapes": [{"shape_index": 3, ...}, {"shape_index": 4, ...}], "capture_denied": {...}}
// (a group's untimed calls may share one trace: ShapeRunner::run_shapes; "start" events name the
// shape, rows come shape after shape, and every shape of a group gets its shape_done at its end)
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
//
// A device server (runner/device_server.h) serves runs one after the other on the device it
// opened once: serve_run is the same worker with the device already open.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "modules/backend_module.h"
#include "caliber/backend.h"
#include "fingerprint/code_fingerprint.h"
#include "runner/run_options.h"
#include "runner/shape_runner.h"

namespace caliber::runner {

inline constexpr int kWorkerDeviceLost = 3;
inline constexpr int kExitPreflightFailed = 3;  // after a preflight_failed event

// The hooks of this backend (its module's): where it records device code (cuda: the kernels each
// correctness call launches, from CUPTI) and profiler ranges for caliber profile (cuda: NVTX); a
// backend whose code is the process's libraries (the host) is fingerprinted from their files.
struct WorkerHooks {
  CallHooks hooks;
  std::function<CodeFingerprint()> fingerprint;
  std::unique_ptr<DeviceCodeRecorder> recorder;
};

// A worker's open device and its hooks, kept across the runs a device server serves.
struct WorkerDevice {
  WorkerDevice();
  ~WorkerDevice();
  BackendKind kind = BackendKind::host;
  int index = 0;
  WorkerHooks hooks;
  std::unique_ptr<Backend> backend;
};

// Opens `options.device` of `kind` with its code recorder attached first (modules load lazily,
// at their first launch, after this). Throws what open_backend throws.
std::unique_ptr<WorkerDevice> open_worker_device(const RunOptions& options, BackendKind kind);

// The worker of one run: commands from stdin, events to --events-fd; opens its own device.
int run_worker(const RunOptions& options);

// The same, with the device `served` already open (nullptr: open one) and commands from
// `next_command` (false at their end). A run on another backend or device than `served`, or
// under a profiler, is refused with a fatal event (exit code 2).
int serve_run(const RunOptions& options, WorkerDevice* served, const std::function<bool(std::string&)>& next_command);

}  // namespace caliber::runner
