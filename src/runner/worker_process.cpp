#include "runner/worker_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "caliber/errors.h"
#include "core/subprocess.h"
#include "runner/worker_token.h"

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
    // Its own process group: what the measured code forks ends with the worker (end_group).
    ::setpgid(0, 0);
    ::dup2(to_child[0], STDIN_FILENO);
    ::dup2(from_child[1], events_fd);  // dup2 clears O_CLOEXEC on the new descriptor
    ::execv(executable.c_str(), argv.data());
    ::_exit(127);
  }
  pid_ = pid;
  ::setpgid(pid, pid);  // as the child does, so that the group exists whichever runs first
  ::close(to_child[0]);
  ::close(from_child[1]);
  to_child_ = to_child[1];
  from_child_ = from_child[0];
}

namespace {

// Whether process `pid` has ended (gone, or a zombie its parent has not reaped yet).
bool process_ended(pid_t pid) {
  std::FILE* f = std::fopen(fmt::format("/proc/{}/stat", pid).c_str(), "r");
  if (!f) return true;
  char state = 0;
  const int n = std::fscanf(f, "%*d (%*[^)]) %c", &state);
  std::fclose(f);
  return n == 1 && (state == 'Z' || state == 'X');
}

// A stream connection to the Unix socket at `path`; -1 with *why when nothing listens there.
int connect_to_socket(const std::string& path, std::string* why) {
  sockaddr_un addr{};
  if (path.empty() || path.size() >= sizeof addr.sun_path) {
    *why = "not a Unix socket path";
    return -1;
  }
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw Error(fmt::format("socket failed: {}", std::strerror(errno)));
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
    *why = fmt::format("no server listens there ({})", std::strerror(errno));
    ::close(fd);
    return -1;
  }
  return fd;
}

// The process at the other end of a Unix socket connection (-1 when the kernel does not say).
pid_t peer_pid(int fd) {
  ucred peer{};
  socklen_t size = sizeof peer;
  return ::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &size) == 0 ? peer.pid : -1;
}

}  // namespace

std::unique_ptr<WorkerProcess> WorkerProcess::connect_to_server(const std::string& socket_path,
                                                                const std::vector<std::string>& arguments,
                                                                double answer_timeout_s, std::string* why) {
  const int fd = connect_to_socket(socket_path, why);
  if (fd < 0) return nullptr;
  std::unique_ptr<WorkerProcess> w(new WorkerProcess());
  w->pid_ = peer_pid(fd);
  w->from_child_ = fd;
  w->to_child_ = ::fcntl(fd, F_DUPFD_CLOEXEC, 0);
  std::string line;
  const bool sent = w->send_line(nlohmann::json{{"arguments", arguments}}.dump());
  const ReadResult r = sent ? w->read_line(line, answer_timeout_s) : ReadResult::eof;
  if (r == ReadResult::line && line.starts_with(R"({"event":"served")")) {
    w->served_ = true;
    return w;
  }
  if (r == ReadResult::timeout && w->pid_ > 0) {
    // A server that does not answer may hold the device: it must not stay beside this run's worker.
    ::kill(w->pid_, SIGKILL);
    *why = fmt::format("the server (pid {}) did not answer within {} s and was killed", w->pid_, answer_timeout_s);
  } else {
    *why = r == ReadResult::line ? fmt::format("the server answered {}", line) : "the server closed the connection";
  }
  w->pid_ = -1;  // not a child of this process: nothing to reap
  w->reaped_ = true;
  return nullptr;
}


bool WorkerProcess::retire_server(const std::string& socket_path, double timeout_s, std::string* why) {
  const int fd = connect_to_socket(socket_path, why);
  if (fd < 0) return false;
  const pid_t pid = peer_pid(fd);
  const std::string request = R"({"retire":true})" "\n";
  const bool sent = ::write(fd, request.data(), request.size()) == static_cast<ssize_t>(request.size());
  ::close(fd);
  if (!sent || pid <= 0) {
    *why = "the server did not take the request";
    return false;
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  while (!process_ended(pid)) {
    if (std::chrono::steady_clock::now() > deadline) {
      *why = fmt::format("the server (pid {}) did not exit within {} s", pid, timeout_s);
      return false;
    }
    ::usleep(5000);
  }
  return true;
}

bool WorkerProcess::send_token(const std::string& token) {
  token_ = token;
  return send_line(token_line(token));
}

bool WorkerProcess::take_server_line(const std::string& line) {
  if (line.starts_with(R"({"event":"job_done")") || line.starts_with(R"({"event":"crashed")")) {
    const nlohmann::json ev = nlohmann::json::parse(line, nullptr, false);
    if (!ev.is_object() || !ev.contains("token") || ev["token"] != token_) return false;
    if (ev.contains("exit_code") && ev["exit_code"].is_number_integer()) {
      job_exit_code_ = ev["exit_code"].get<int>();
    }
    if (ev.contains("signal") && ev["signal"].is_number_integer()) crash_signal_ = ev["signal"].get<int>();
    return true;
  }
  return false;
}

WorkerProcess::~WorkerProcess() {
  if (to_child_ >= 0) ::close(to_child_);
  if (from_child_ >= 0) ::close(from_child_);
  if (!served_ && !reaped_ && pid_ > 0) {
    ::kill(-pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
}

void WorkerProcess::end_group() {
  // The worker's pid names its group until it is reaped (a zombie's pid is not reused), so only
  // before the waitpid that reaps it.
  if (!served_ && !reaped_ && pid_ > 0) ::kill(-pid_, SIGKILL);
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
  if (served_ && to_child_ >= 0) ::shutdown(to_child_, SHUT_WR);  // the socket stays open for reading
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
      if (served_ && take_server_line(line)) continue;
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
    if (r == 0) {
      // Nothing to read and the worker has ended: what measured code it forked may hold the pipe
      // open, but nothing of the worker's is left to come.
      if (!served_ && pid_ > 0 && process_ended(pid_)) eof_ = true;
      continue;
    }
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
  if (!reaped_ && pid_ > 0) ::kill(served_ ? pid_ : -pid_, SIGKILL);
  killed_ = true;
}

std::string WorkerProcess::wait_exit() {
  if (reaped_) return exit_text_;
  if (served_) {
    // The server ends the run it serves when its commands end, then closes the connection.
    close_input();
    std::string line;
    bool gave_up = false;
    while (true) {
      const ReadResult r = read_line(line, 60);
      if (r == ReadResult::eof) break;
      if (r != ReadResult::timeout) continue;
      if (killed_ || pid_ <= 0) {
        gave_up = true;  // killed a minute ago and still connected, or nothing to kill: stop waiting
        break;
      }
      kill_now();
    }
    reaped_ = true;
    if (gave_up) {
      exit_text_ = fmt::format("the device server, pid {}, did not end the run and could not be stopped", pid_);
      return exit_text_;
    }
    exit_code_ = job_exit_code_.value_or(-1);
    if (job_exit_code_) {
      exit_text_ = fmt::format("exit code {}", *job_exit_code_);
    } else if (crash_signal_ > 0) {
      exit_text_ = fmt::format("signal {} ({}) in the device server, pid {}", crash_signal_, ::strsignal(crash_signal_), pid_);
    } else if (killed_) {
      exit_text_ = fmt::format("signal {} ({}) to the device server, pid {}", SIGKILL, ::strsignal(SIGKILL), pid_);
    } else {
      exit_text_ = fmt::format("the device server, pid {}, ended without finishing the run", pid_);
    }
    return exit_text_;
  }
  // Once the worker has ended (not yet reaped), whatever it left running in its group ends too.
  siginfo_t ended{};
  while (::waitid(P_PID, static_cast<id_t>(pid_), &ended, WEXITED | WNOWAIT) < 0 && errno == EINTR) {
  }
  end_group();
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  reaped_ = true;
  exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  exit_text_ = describe_wait_status(status);
  return exit_text_;
}

}  // namespace caliber::runner
