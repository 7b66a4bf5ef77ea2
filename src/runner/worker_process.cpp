#include "runner/worker_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

#include <fmt/format.h>

#include "caliber/errors.h"
#include "core/subprocess.h"

namespace caliber::runner {

WorkerProcess::WorkerProcess(const std::string& executable, const std::vector<std::string>& arguments,
                             int events_fd) {
  int to_child[2], from_child[2];
  if (::pipe2(to_child, O_CLOEXEC) != 0) throw Error(fmt::format("pipe failed: {}", std::strerror(errno)));
  if (::pipe2(from_child, O_CLOEXEC) != 0) {
    ::close(to_child[0]);
    ::close(to_child[1]);
    throw Error(fmt::format("pipe failed: {}", std::strerror(errno)));
  }
  std::vector<std::string> args = {executable};
  args.insert(args.end(), arguments.begin(), arguments.end());
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) throw Error(fmt::format("fork failed: {}", std::strerror(errno)));
  if (pid == 0) {
    // Child: only async-signal-safe calls until exec.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);  // the parent died before prctl
    // Ignored dispositions survive exec (and signal() is async-signal-safe).
    ::signal(SIGINT, SIG_IGN);
    ::signal(SIGTERM, SIG_IGN);
    ::signal(SIGHUP, SIG_IGN);
    ::dup2(to_child[0], STDIN_FILENO);
    ::dup2(from_child[1], events_fd);  // dup2 clears O_CLOEXEC on the new descriptor
    ::execv(executable.c_str(), argv.data());
    ::_exit(127);
  }
  pid_ = pid;
  ::close(to_child[0]);
  ::close(from_child[1]);
  to_child_ = to_child[1];
  from_child_ = from_child[0];
}

WorkerProcess::~WorkerProcess() {
  if (to_child_ >= 0) ::close(to_child_);
  if (from_child_ >= 0) ::close(from_child_);
  if (!reaped_ && pid_ > 0) {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
}

bool WorkerProcess::send_line(const std::string& line) {
  if (to_child_ < 0) return false;
  const std::string data = line + "\n";
  std::size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(to_child_, data.data() + done, data.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;  // EPIPE: the child is gone (SIGPIPE is ignored by main)
    }
    done += static_cast<std::size_t>(n);
  }
  return true;
}

void WorkerProcess::close_input() {
  if (to_child_ >= 0) ::close(to_child_);
  to_child_ = -1;
}

WorkerProcess::ReadResult WorkerProcess::read_line(std::string& line, double timeout_s,
                                                   const std::function<bool()>& give_up) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  while (true) {
    const auto nl = buffer_.find('\n');
    if (nl != std::string::npos) {
      line = buffer_.substr(0, nl);
      buffer_.erase(0, nl + 1);
      return ReadResult::line;
    }
    if (eof_) return ReadResult::eof;
    if (give_up && give_up()) return ReadResult::interrupted;
    const auto left = std::chrono::duration<double, std::milli>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) return ReadResult::timeout;
    pollfd pfd{from_child_, POLLIN, 0};
    const int r = ::poll(&pfd, 1, static_cast<int>(std::min(left, 1000.0)) + 1);
    if (r < 0) {
      if (errno == EINTR) continue;
      throw Error(fmt::format("poll failed: {}", std::strerror(errno)));
    }
    if (r == 0) continue;
    char chunk[65536];
    const ssize_t n = ::read(from_child_, chunk, sizeof chunk);
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      eof_ = true;
    } else if (n == 0) {
      eof_ = true;
    } else {
      buffer_.append(chunk, static_cast<std::size_t>(n));
    }
  }
}

void WorkerProcess::kill_now() {
  if (!reaped_ && pid_ > 0) ::kill(pid_, SIGKILL);
}

std::string WorkerProcess::wait_exit() {
  if (reaped_) return exit_text_;
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  reaped_ = true;
  exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  exit_text_ = describe_wait_status(status);
  return exit_text_;
}

}  // namespace caliber::runner
