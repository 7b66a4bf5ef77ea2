// A device server: one measuring process that keeps a device open and serves the runs of a
// campaign one after the other (caliber batch starts one per device; docs/batch.md, "One process
// per device"). Each run (`caliber run --device-server SOCKET`) connects to the server's Unix
// socket, sends its worker options, and then speaks the worker protocol of runner/worker.h over
// the connection; the server measures it as `caliber __run-worker` would (runner::serve_run),
// without opening the device, attaching the code recorder or exiting in between.
//
// Connection protocol, on top of runner/worker.h's:
//   run -> server, first line:  {"arguments": ["--op", "rmsnorm", ...]}   (RunOptions::worker_arguments)
//   server -> run, first line:  {"event":"served","pid":N}
//   ... the worker's events and commands ...
//   server -> run, last line:   {"event":"job_done","exit_code":N}      then the server closes it
//   server -> run, on a crash:  {"event":"crashed","signal":N}          written by the signal handler
// A run that leaves the device unusable ends the server (as it ends a worker); so does a run that
// leaves threads behind (provider code still running after its run ended must not run beside the
// next run's measurements): the next shard's attempt starts a fresh server.
#pragma once

#include <string>

namespace caliber::runner {

struct DeviceServerOptions {
  std::string socket;   // path of the Unix socket to listen on (created; an old file is replaced)
  std::string backend;  // host | cuda
  int device = 0;
};

// Serves runs until killed (SIGTERM ends it), or until a run leaves the device unusable or
// threads behind. Returns the process's exit code: 0 retired, 1 the device did not open or the
// socket failed. Progress lines go to stderr (the batch's device_server log).
int run_device_server(const DeviceServerOptions& options);

}  // namespace caliber::runner
