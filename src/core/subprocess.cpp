#include "core/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

#include "caliber/errors.h"

namespace caliber {
namespace {

std::atomic<pid_t> g_running_child_group{0};

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

[[noreturn]] void exec_child(const SubprocessOptions& o, int stdout_pipe_write) {
  setpgid(0, 0);
  // Default signal dispositions in the child, whatever the harness installed.
  signal(SIGINT, SIG_DFL);
  signal(SIGTERM, SIG_DFL);
  signal(SIGHUP, SIG_DFL);
  signal(SIGPIPE, SIG_DFL);
  for (const auto& [k, v] : o.env) setenv(k.c_str(), v.c_str(), 1);
  const int devnull = open("/dev/null", O_RDONLY);
  if (devnull >= 0) dup2(devnull, STDIN_FILENO);
  if (!o.stdout_path.empty()) {
    const int fd = open(o.stdout_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) _exit(127);
    dup2(fd, STDOUT_FILENO);
    if (o.stderr_path.empty()) dup2(fd, STDERR_FILENO);
  } else if (stdout_pipe_write >= 0) {
    dup2(stdout_pipe_write, STDOUT_FILENO);
  }
  if (!o.stderr_path.empty()) {
    const int fd = open(o.stderr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) _exit(127);
    dup2(fd, STDERR_FILENO);
  }
  std::vector<char*> argv;
  for (const auto& a : o.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  execvp(argv[0], argv.data());
  const std::string msg = fmt::format("caliber: cannot run {}: {}\n", o.argv[0], std::strerror(errno));
  [[maybe_unused]] const ssize_t n = write(STDERR_FILENO, msg.data(), msg.size());
  _exit(127);
}

void forward_and_die(int sig) {
  const pid_t group = g_running_child_group.load();
  if (group > 0) kill(-group, SIGTERM);
  signal(sig, SIG_DFL);
  raise(sig);
}

}  // namespace

int exit_code_of_wait_status(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

std::string describe_wait_status(int status) {
  if (WIFEXITED(status)) return fmt::format("exit code {}", WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return fmt::format("signal {} ({})", WTERMSIG(status), ::strsignal(WTERMSIG(status)));
  return "unknown exit status";
}

std::string self_executable() {
  std::error_code ec;
  const auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) throw Error("cannot find the running executable (/proc/self/exe): " + ec.message());
  return p.string();
}

void forward_termination_signals_to_children() {
  struct sigaction sa{};
  sa.sa_handler = forward_and_die;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaction(sig, &sa, nullptr);
}

SubprocessResult run_subprocess(const SubprocessOptions& o) {
  if (o.argv.empty()) throw UsageError("run_subprocess: empty argv");
  SubprocessResult r;
  int pipe_fds[2] = {-1, -1};
  const bool capture = o.capture_stdout && o.stdout_path.empty();
  if (capture && pipe2(pipe_fds, O_CLOEXEC) != 0) {
    throw Error(fmt::format("cannot create a pipe: {}", std::strerror(errno)));
  }
  const auto t0 = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  if (pid < 0) {
    if (capture) {
      close(pipe_fds[0]);
      close(pipe_fds[1]);
    }
    throw Error(fmt::format("fork failed: {}", std::strerror(errno)));
  }
  if (pid == 0) exec_child(o, capture ? pipe_fds[1] : -1);
  setpgid(pid, pid);  // also in the parent: no race with the kill below
  g_running_child_group.store(pid);
  if (capture) {
    close(pipe_fds[1]);
    // Non-blocking: a grandchild that keeps the pipe open must not hold the harness after the
    // child itself has exited.
    fcntl(pipe_fds[0], F_SETFL, fcntl(pipe_fds[0], F_GETFL) | O_NONBLOCK);
  }

  int status = 0;
  bool exited = false;
  bool term_sent = false, kill_sent = false;
  double term_at_s = 0;
  char buf[4096];
  while (!exited) {
    // Read what the child wrote (or sleep 20 ms), then poll for its exit.
    if (capture && pipe_fds[0] >= 0) {
      pollfd p{pipe_fds[0], POLLIN, 0};
      if (poll(&p, 1, 20) > 0) {
        const ssize_t n = read(pipe_fds[0], buf, sizeof buf);
        if (n > 0) {
          r.captured_stdout.append(buf, static_cast<std::size_t>(n));
        } else if (n == 0) {
          close(pipe_fds[0]);
          pipe_fds[0] = -1;
        }
      }
    } else {
      usleep(20000);
    }
    const pid_t w = waitpid(pid, &status, WNOHANG);
    if (w == pid) {
      exited = true;
      break;
    }
    if (w < 0 && errno != EINTR) break;
    const double now_s = seconds_since(t0);
    if (o.timeout_s > 0 && !term_sent && now_s >= o.timeout_s) {
      kill(-pid, SIGTERM);
      term_sent = true;
      term_at_s = now_s;
      r.timed_out = true;
    } else if (term_sent && !kill_sent && now_s - term_at_s >= o.kill_after_s) {
      kill(-pid, SIGKILL);
      kill_sent = true;
    }
  }
  if (!exited) waitpid(pid, &status, 0);
  if (term_sent) kill(-pid, SIGKILL);  // whatever of its group is left
  g_running_child_group.store(0);
  if (capture && pipe_fds[0] >= 0) {
    ssize_t n;
    while ((n = read(pipe_fds[0], buf, sizeof buf)) > 0) r.captured_stdout.append(buf, static_cast<std::size_t>(n));
    close(pipe_fds[0]);
  }
  r.elapsed_s = seconds_since(t0);
  r.exit_code = exit_code_of_wait_status(status);
  if (r.timed_out) r.exit_code = kill_sent ? kExitKilled : kExitTimedOut;
  if (!r.timed_out && r.exit_code == 127) {
    r.spawn_error = fmt::format("exit 127: {} or a program it runs was not found or could not be executed", o.argv[0]);
  }
  return r;
}

}  // namespace caliber
