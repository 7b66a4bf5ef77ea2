// A child process running `caliber __run-worker`, with a command pipe (its stdin) and an event
// pipe. The parent never initializes CUDA: it only forks and execs its own executable.
// Or a run served by a device server (runner/device_server.h): the same commands and events over
// its Unix socket, the server standing for the child (kill_now kills it, wait_exit waits for the
// end of the run it served).
#pragma once

#include <sys/types.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace caliber::runner {

class WorkerProcess {
 public:
  // Forks and execs `executable` with `arguments`; the child gets the event pipe as descriptor
  // `events_fd`, dies with the parent (PR_SET_PDEATHSIG) and leads its own process group, which
  // ends with it (wait_exit, kill_now): processes the measured code forked do not outlive it. It ignores SIGINT, SIGTERM and
  // SIGHUP: a Ctrl-C reaches the whole process group, and the parent decides what a stop means
  // (finish the cell, then stop the worker). Throws Error when fork/exec fails.
  WorkerProcess(const std::string& executable, const std::vector<std::string>& arguments, int events_fd);
  ~WorkerProcess();  // kills the child if it still runs
  // Asks the device server listening on `socket_path` to serve a run with the worker options
  // `arguments`; nullptr with *why when no server answers there (none listens, it closed the
  // connection, or it did not answer within answer_timeout_s).
  static std::unique_ptr<WorkerProcess> connect_to_server(const std::string& socket_path,
                                                          const std::vector<std::string>& arguments,
                                                          double answer_timeout_s, std::string* why);
  bool served() const { return served_; }
  // Asks the device server on `socket_path` to exit, and waits (up to timeout_s) until it has: a
  // run that cannot be served (its worker is Python) needs the device to itself. False with *why
  // when no server answered or it did not exit in time.
  static bool retire_server(const std::string& socket_path, double timeout_s, std::string* why);
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;

  // Writes one line to the child's stdin. False when the child is gone.
  bool send_line(const std::string& line);
  // Sends the channel's token (runner/worker_token.h), the first line. A served run's own lines
  // (job_done, crashed) are then taken only with it: the measured code runs in the server and can
  // write on the connection too.
  bool send_token(const std::string& token);
  // Closes the child's stdin (it then finishes and exits).
  void close_input();

  enum class ReadResult { line, eof, timeout, interrupted };
  // Waits up to timeout_s for the next line of the event pipe. With `give_up`, asked at least
  // once a second and after every signal: `interrupted` as soon as it says true.
  ReadResult read_line(std::string& line, double timeout_s, const std::function<bool()>& give_up = nullptr);

  // Kills the worker and everything in its process group (what the measured code forked); a served
  // run's server alone.
  void kill_now();
  // Waits for the child to exit; returns a description: "exit code 3", "signal 11 (Segmentation fault)".
  std::string wait_exit();
  int exit_code() const { return exit_code_; }  // after wait_exit: the code, or -1 for a signal
  pid_t pid() const { return pid_; }

 private:
  WorkerProcess() = default;
  // A served run's own lines (job_done, crashed) that carry the channel's token: taken in, not
  // returned by read_line (a line without it is returned, and the run takes it for forged).
  bool take_server_line(const std::string& line);
  // Kills what is left in the worker's process group (not a served run's server).
  void end_group();
  bool served_ = false;
  bool killed_ = false;
  std::string token_;  // the channel's (send_token)
  int crash_signal_ = 0;
  std::optional<int> job_exit_code_;
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
