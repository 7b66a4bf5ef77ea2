// A child process with a wall-clock limit: the A/B cells and bounded external queries
// (nvidia-smi) run through it. The child gets its own process group, so a timeout ends the whole
// tree it started (a shell, a caliber run, its workers), not only the shell.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace caliber {

struct SubprocessOptions {
  std::vector<std::string> argv;  // argv[0] is looked up in PATH
  // Set in the child on top of the parent's environment.
  std::vector<std::pair<std::string, std::string>> env;
  std::string stdout_path;       // stdout (and stderr, unless stderr_path is set) goes here
  std::string stderr_path;
  bool capture_stdout = false;   // when stdout_path is empty: collect stdout into the result
  double timeout_s = 0;          // 0: no limit
  double kill_after_s = 10;      // after SIGTERM on timeout, SIGKILL this much later
  // The child gets SIGKILL when this process dies (PR_SET_PDEATHSIG), even by kill -9: a killed
  // campaign leaves no shard measuring on its own (docs/batch.md).
  bool die_with_parent = false;
};

// Exit codes follow coreutils timeout(1), so a cell that times out reads the same whether the
// harness or the user's command enforced the limit.
inline constexpr int kExitTimedOut = 124;   // terminated by SIGTERM at the time limit
inline constexpr int kExitKilled = 137;     // 128 + SIGKILL: did not stop on SIGTERM (or was OOM-killed)

struct SubprocessResult {
  int exit_code = -1;       // the child's status; 128 + N when killed by signal N; 124/137 on timeout
  bool timed_out = false;   // this harness stopped it at timeout_s
  double elapsed_s = 0;     // wall time, seconds
  std::string captured_stdout;
  std::string spawn_error;  // fork/exec failed (exit_code is then 127)
};

// Runs the child to completion or to its time limit. Never throws for the child's failures;
// throws Error when fork or pipe creation fails.
SubprocessResult run_subprocess(const SubprocessOptions& options);

// A child started without waiting for it, so that several run side by side (the shards of a
// campaign, docs/batch.md). Its own process group; the time limit is applied by poll(): SIGTERM
// to the group at timeout_s, SIGKILL kill_after_s later. stdout/stderr go to the option's paths
// (appended to, not truncated: a shard's log keeps every attempt); capture_stdout is not
// supported.
class ChildProcess {
 public:
  explicit ChildProcess(const SubprocessOptions& options);  // throws Error when fork fails
  ~ChildProcess();  // SIGKILLs the group of a child still running, and reaps it
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  // True once the child has exited (result() is then final). Never blocks.
  bool poll();
  // SIGTERM to the group now (SIGKILL kill_after_s later, on a later poll()).
  void terminate();
  // Waits until the child has exited, applying the limits (polls every 20 ms).
  const SubprocessResult& wait();
  const SubprocessResult& result() const { return result_; }
  int pid() const { return pid_; }

 private:
  SubprocessOptions options_;
  int pid_ = -1;
  int slot_ = -1;
  double started_s_ = 0;
  double term_at_s_ = -1;
  bool kill_sent_ = false;
  bool exited_ = false;
  SubprocessResult result_;
};

// While a child runs, SIGINT/SIGTERM/SIGHUP sent to caliber are passed to the child's process
// group before caliber itself ends, so an interrupted A/B leaves no orphaned cell on the device.
void forward_termination_signals_to_children();

// 124 or 137: the exit of a cell stopped for time (by this harness or by a timeout wrapper).
inline bool is_timeout_exit(int exit_code) { return exit_code == kExitTimedOut || exit_code == kExitKilled; }

// The environment a child gets: `parent` ("NAME=value" entries, null-terminated, as environ),
// each override replacing the entry of its name in place or appended after the others, in order
// (setenv's effect). Names that setenv refuses (empty, or holding '=') are left out.
std::vector<std::string> environment_with(const char* const* parent,
                                          const std::vector<std::pair<std::string, std::string>>& overrides);

// A waitpid() status as an exit code: the child's exit status, or 128 + N when signal N ended it
// (the shell's convention); -1 for anything else.
int exit_code_of_wait_status(int status);
// A waitpid() status in words: "exit code 3", "signal 11 (Segmentation fault)".
std::string describe_wait_status(int status);

// The path of the running executable (/proc/self/exe): what a command starts to run caliber
// again (caliber run's workers, caliber ab's default side binary). Throws Error when unreadable.
std::string self_executable();

// The file that holds caliber's code in this process: the running executable, or the library
// (libcaliber_c.so) when caliber runs inside another program (a worker Python hosts).
std::string harness_binary();

}  // namespace caliber
