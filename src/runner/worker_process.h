// A child process running `caliber __run-worker`, with a command pipe (its stdin) and an event
// pipe. The parent never initializes CUDA: it only forks and execs its own executable.
#pragma once

#include <sys/types.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace caliber::runner {

class WorkerProcess {
 public:
  // Forks and execs `executable` with `arguments`; the child gets the event pipe as descriptor
  // `events_fd` and dies with the parent (PR_SET_PDEATHSIG). It ignores SIGINT, SIGTERM and
  // SIGHUP: a Ctrl-C reaches the whole process group, and the parent decides what a stop means
  // (finish the cell, then stop the worker). Throws Error when fork/exec fails.
  WorkerProcess(const std::string& executable, const std::vector<std::string>& arguments, int events_fd);
  ~WorkerProcess();  // kills the child if it still runs
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;

  // Writes one line to the child's stdin. False when the child is gone.
  bool send_line(const std::string& line);
  // Closes the child's stdin (it then finishes and exits).
  void close_input();

  enum class ReadResult { line, eof, timeout, interrupted };
  // Waits up to timeout_s for the next line of the event pipe. With `give_up`, asked at least
  // once a second and after every signal: `interrupted` as soon as it says true.
  ReadResult read_line(std::string& line, double timeout_s, const std::function<bool()>& give_up = nullptr);

  void kill_now();
  // Waits for the child to exit; returns a description: "exit code 3", "signal 11 (Segmentation fault)".
  std::string wait_exit();
  int exit_code() const { return exit_code_; }  // after wait_exit: the code, or -1 for a signal
  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = -1;
  int to_child_ = -1;
  int from_child_ = -1;
  std::string buffer_;
  bool eof_ = false;
  bool reaped_ = false;
  int exit_code_ = -1;
  std::string exit_text_;
};

}  // namespace caliber::runner
