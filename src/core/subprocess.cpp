#include "core/subprocess.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "caliber/errors.h"

namespace caliber {
namespace {

// The process groups of the children running now (run_subprocess: one; ChildProcess: several),
// for the signal handler, which may read only lock-free atomics.
constexpr int kChildSlots = 64;
std::atomic<pid_t> g_running_child_groups[kChildSlots];

int register_child_group(pid_t group) {
  for (int i = 0; i < kChildSlots; ++i) {
    pid_t expected = 0;
    if (g_running_child_groups[i].compare_exchange_strong(expected, group)) return i;
  }
  return -1;  // not forwarded; the child still dies with its time limit
}

void unregister_child_group(int slot) {
  if (slot >= 0) g_running_child_groups[slot].store(0);
}

double steady_now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// What the child runs, built in the parent before fork. Between fork and exec the child of a
// multi-threaded parent may only make async-signal-safe calls (another thread may have held
// malloc's lock, or the environment's, at the fork): no allocation, no setenv, no formatting.
struct ChildExec {
  std::vector<std::string> env_entries;  // "NAME=value"
  std::vector<char*> argv;               // into the options' argv, null-terminated
  std::vector<char*> envp;               // into env_entries, null-terminated
  std::vector<char> error;               // "caliber: cannot run NAME: ", then room for the errno text
  std::size_t error_prefix = 0;          // bytes of `error` in use before the errno text
};

ChildExec prepare_child_exec(const SubprocessOptions& o) {
  ChildExec e;
  for (const std::string& a : o.argv) e.argv.push_back(const_cast<char*>(a.c_str()));
  e.argv.push_back(nullptr);
  e.env_entries = environment_with(environ, o.env);
  for (std::string& entry : e.env_entries) e.envp.push_back(entry.data());
  e.envp.push_back(nullptr);
  const std::string prefix = fmt::format("caliber: cannot run {}: ", o.argv[0]);
  e.error.assign(prefix.begin(), prefix.end());
  e.error_prefix = prefix.size();
  e.error.resize(prefix.size() + 256);  // an errno description and the newline
  return e;
}

// Writes the prepared "cannot run" message with the errno text, in async-signal-safe calls only.
void write_exec_error(ChildExec& e, int error) {
  // strerrordesc_np: the untranslated text strerror gives in the C locale, read from a table
  // (strerror itself may translate, which takes locks).
  const char* text = strerrordesc_np(error);
  if (!text) text = "Unknown error";
  std::size_t n = e.error_prefix;
  for (; *text && n + 1 < e.error.size(); ++text) e.error[n++] = *text;
  e.error[n++] = '\n';
  [[maybe_unused]] const ssize_t written = write(STDERR_FILENO, e.error.data(), n);
}

[[noreturn]] void exec_child(const SubprocessOptions& o, ChildExec& e, int stdout_pipe_write, int open_flags = O_TRUNC) {
  setpgid(0, 0);
  if (o.die_with_parent) prctl(PR_SET_PDEATHSIG, SIGKILL);
  // Default signal dispositions in the child, whatever the harness installed.
  signal(SIGINT, SIG_DFL);
  signal(SIGTERM, SIG_DFL);
  signal(SIGHUP, SIG_DFL);
  signal(SIGPIPE, SIG_DFL);
  const int devnull = open("/dev/null", O_RDONLY);
  if (devnull >= 0) dup2(devnull, STDIN_FILENO);
  if (!o.stdout_path.empty()) {
    const int fd = open(o.stdout_path.c_str(), O_WRONLY | O_CREAT | open_flags, 0644);
    if (fd < 0) _exit(127);
    dup2(fd, STDOUT_FILENO);
    if (o.stderr_path.empty()) dup2(fd, STDERR_FILENO);
  } else if (stdout_pipe_write >= 0) {
    dup2(stdout_pipe_write, STDOUT_FILENO);
  }
  if (!o.stderr_path.empty()) {
    const int fd = open(o.stderr_path.c_str(), O_WRONLY | O_CREAT | open_flags, 0644);
    if (fd < 0) _exit(127);
    dup2(fd, STDERR_FILENO);
  }
  // execvpe looks the program up in the PATH of `environ`: point it at the child's environment
  // (a pointer store), so that a PATH in the options is the one searched. glibc's execvpe
  // allocates nothing (its path buffer is on the stack).
  environ = e.envp.data();
  execvpe(e.argv[0], e.argv.data(), e.envp.data());
  write_exec_error(e, errno);
  _exit(127);
}

// Reads what the child wrote to `fd` (or sleeps 20 ms when there is nothing to read from);
// at the end of the pipe, closes it and sets fd to -1.
void read_or_sleep(int& fd, std::string& out) {
  if (fd < 0) {
    usleep(20000);
    return;
  }
  char buf[4096];
  pollfd p{fd, POLLIN, 0};
  if (poll(&p, 1, 20) > 0) {
    const ssize_t n = read(fd, buf, sizeof buf);
    if (n > 0) {
      out.append(buf, static_cast<std::size_t>(n));
    } else if (n == 0) {
      close(fd);
      fd = -1;
    }
  }
}

struct Waited {
  int status = 0;          // waitpid's
  bool kill_sent = false;  // SIGKILL after SIGTERM was ignored for kill_after_s
};

// Waits for the child `pid` (started at t0), collecting what it writes to `stdout_fd` (-1: not
// captured, or the pipe has ended) into r.captured_stdout: SIGTERM to its group at o.timeout_s
// (r.timed_out), SIGKILL o.kill_after_s later, and SIGKILL to what is left of the group once it
// has exited.
Waited wait_with_limits(pid_t pid, const SubprocessOptions& o, std::chrono::steady_clock::time_point t0,
                        int& stdout_fd, SubprocessResult& r) {
  Waited w;
  bool exited = false;
  bool term_sent = false;
  double term_at_s = 0;
  while (!exited) {
    read_or_sleep(stdout_fd, r.captured_stdout);
    const pid_t got = waitpid(pid, &w.status, WNOHANG);
    if (got == pid) {
      exited = true;
      break;
    }
    if (got < 0 && errno != EINTR) break;
    const double now_s = seconds_since(t0);
    if (o.timeout_s > 0 && !term_sent && now_s >= o.timeout_s) {
      kill(-pid, SIGTERM);
      term_sent = true;
      term_at_s = now_s;
      r.timed_out = true;
    } else if (term_sent && !w.kill_sent && now_s - term_at_s >= o.kill_after_s) {
      kill(-pid, SIGKILL);
      w.kill_sent = true;
    }
  }
  if (!exited) waitpid(pid, &w.status, 0);
  if (term_sent) kill(-pid, SIGKILL);  // whatever of its group is left
  return w;
}

void forward_and_die(int sig) {
  for (auto& slot : g_running_child_groups) {
    const pid_t group = slot.load();
    if (group > 0) kill(-group, SIGTERM);
  }
  signal(sig, SIG_DFL);
  raise(sig);
}

}  // namespace

std::vector<std::string> environment_with(const char* const* parent,
                                          const std::vector<std::pair<std::string, std::string>>& overrides) {
  std::vector<std::string> entries;
  for (const char* const* p = parent; p && *p; ++p) entries.emplace_back(*p);
  for (const auto& [name, value] : overrides) {
    // setenv(3) refuses such names: they are left out, as they were when the child called it.
    if (name.empty() || name.find('=') != std::string::npos) continue;
    const std::string prefix = name + "=";
    auto same = std::find_if(entries.begin(), entries.end(),
                             [&](const std::string& e) { return e.starts_with(prefix); });
    if (same != entries.end()) {
      *same = prefix + value;
    } else {
      entries.push_back(prefix + value);
    }
  }
  return entries;
}

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

std::string harness_binary() {
  Dl_info info{};
  if (::dladdr(reinterpret_cast<const void*>(&harness_binary), &info) != 0 && info.dli_fname && *info.dli_fname) {
    std::error_code ec;
    const auto p = std::filesystem::canonical(info.dli_fname, ec);
    if (!ec) return p.string();
  }
  return self_executable();
}

void forward_termination_signals_to_children() {
  struct sigaction sa{};
  sa.sa_handler = forward_and_die;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaction(sig, &sa, nullptr);
}

SubprocessResult run_subprocess(const SubprocessOptions& o) {
  if (o.argv.empty()) throw UsageError("run_subprocess: empty argv");
  ChildExec child = prepare_child_exec(o);
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
  if (pid == 0) exec_child(o, child, capture ? pipe_fds[1] : -1);
  setpgid(pid, pid);  // also in the parent: no race with the kill below
  const int slot = register_child_group(pid);
  if (capture) {
    close(pipe_fds[1]);
    // Non-blocking: a grandchild that keeps the pipe open must not hold the harness after the
    // child itself has exited.
    fcntl(pipe_fds[0], F_SETFL, fcntl(pipe_fds[0], F_GETFL) | O_NONBLOCK);
  }

  int stdout_fd = capture ? pipe_fds[0] : -1;
  const Waited waited = wait_with_limits(pid, o, t0, stdout_fd, r);
  unregister_child_group(slot);
  if (stdout_fd >= 0) {
    char buf[4096];
    ssize_t n;
    while ((n = read(stdout_fd, buf, sizeof buf)) > 0) r.captured_stdout.append(buf, static_cast<std::size_t>(n));
    close(stdout_fd);
  }
  r.elapsed_s = seconds_since(t0);
  r.exit_code = exit_code_of_wait_status(waited.status);
  if (r.timed_out) r.exit_code = waited.kill_sent ? kExitKilled : kExitTimedOut;
  if (!r.timed_out && r.exit_code == 127) {
    r.spawn_error = fmt::format("exit 127: {} or a program it runs was not found or could not be executed", o.argv[0]);
  }
  return r;
}

ChildProcess::ChildProcess(const SubprocessOptions& options) : options_(options) {
  if (options_.argv.empty()) throw UsageError("ChildProcess: empty argv");
  if (options_.capture_stdout) throw UsageError("ChildProcess: capture_stdout is not supported");
  ChildExec child = prepare_child_exec(options_);
  started_s_ = steady_now_s();
  const pid_t pid = fork();
  if (pid < 0) throw Error(fmt::format("fork failed: {}", std::strerror(errno)));
  if (pid == 0) exec_child(options_, child, -1, O_APPEND);
  setpgid(pid, pid);
  pid_ = pid;
  slot_ = register_child_group(pid);
}

ChildProcess::~ChildProcess() {
  if (!exited_ && pid_ > 0) {
    kill(-pid_, SIGKILL);
    int status = 0;
    waitpid(pid_, &status, 0);
  }
  unregister_child_group(slot_);
}

bool ChildProcess::poll() {
  if (exited_) return true;
  int status = 0;
  const pid_t w = waitpid(pid_, &status, WNOHANG);
  const double now_s = steady_now_s() - started_s_;
  if (w == pid_) {
    exited_ = true;
    if (term_at_s_ >= 0) kill(-pid_, SIGKILL);  // whatever of its group is left
    unregister_child_group(slot_);
    slot_ = -1;
    result_.elapsed_s = now_s;
    result_.exit_code = exit_code_of_wait_status(status);
    if (result_.timed_out) result_.exit_code = kill_sent_ ? kExitKilled : kExitTimedOut;
    if (!result_.timed_out && result_.exit_code == 127) {
      result_.spawn_error = fmt::format("exit 127: {} could not be executed", options_.argv[0]);
    }
    return true;
  }
  if (options_.timeout_s > 0 && term_at_s_ < 0 && now_s >= options_.timeout_s) {
    result_.timed_out = true;
    terminate();
  } else if (term_at_s_ >= 0 && !kill_sent_ && now_s - term_at_s_ >= options_.kill_after_s) {
    kill(-pid_, SIGKILL);
    kill_sent_ = true;
  }
  return false;
}

void ChildProcess::terminate() {
  if (exited_ || term_at_s_ >= 0) return;
  kill(-pid_, SIGTERM);
  term_at_s_ = steady_now_s() - started_s_;
}

const SubprocessResult& ChildProcess::wait() {
  while (!poll()) usleep(20000);
  return result_;
}

}  // namespace caliber
