#include "core/forked_call.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <exception>
#include <iostream>

#include <fmt/format.h>

#include "caliber/errors.h"
#include "core/subprocess.h"

namespace caliber {

namespace {

// What a child may send back: its answer is a check's one-line outcome, not a stream.
constexpr std::size_t kMaxAnswerBytes = 64 * 1024;
constexpr int kAnswerFd = 200;

void write_all(int fd, const std::string& bytes) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<std::size_t>(n);
  }
}

// The child keeps stdin, stdout (onto stderr), stderr and its answer's pipe, moved out of the
// low numbers: the code it runs cannot write into a file the caller holds open, and a write on a
// descriptor it guesses (3, a worker's events channel) reaches nothing.
int keep_only_the_answer(int answer_fd) {
  const int moved = ::fcntl(answer_fd, F_DUPFD, kAnswerFd);
  if (moved < 0) return answer_fd;  // out of descriptors: keep what there is
  ::close_range(3, static_cast<unsigned>(moved) - 1, 0);
  ::close_range(static_cast<unsigned>(moved) + 1, ~0U, 0);
  return moved;
}

[[noreturn]] void child_main(const std::function<std::string()>& fn, int answer_fd) {
  ::setpgid(0, 0);
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  ::dup2(STDERR_FILENO, STDOUT_FILENO);
  answer_fd = keep_only_the_answer(answer_fd);
  std::string answer;
  try {
    answer = "V" + fn();
  } catch (const std::exception& e) {
    answer = std::string("T") + e.what();
  } catch (...) {
    answer = "Tan exception that is not a std::exception";
  }
  write_all(answer_fd, answer.substr(0, kMaxAnswerBytes));
  ::close(answer_fd);
  ::_exit(0);  // no destructor or atexit handler of the parent's runs twice
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Reads what is there without blocking; false at end of file.
bool read_available(int fd, std::string& into) {
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) {
      if (into.size() < kMaxAnswerBytes + 1) into.append(buf, static_cast<std::size_t>(n));
      continue;
    }
    if (n == 0) return false;
    return errno == EAGAIN || errno == EINTR;
  }
}

struct Ended {
  bool exited = false;
  bool timed_out = false;
  int status = 0;
};

// Waits for the answer's end of file and the child's exit, within the limit. The child's whole
// group is killed after it exits or at the limit (a grandchild holding the pipe holds nothing).
Ended wait_for_child(pid_t pid, int fd, double timeout_s, std::string& answer) {
  const auto t0 = std::chrono::steady_clock::now();
  Ended e;
  bool open = true;
  while (!e.exited) {
    if (open) {
      pollfd p{fd, POLLIN, 0};
      ::poll(&p, 1, 20);
      open = read_available(fd, answer);
    } else {
      ::usleep(5000);
    }
    if (::waitpid(pid, &e.status, WNOHANG) == pid) {
      e.exited = true;
      if (open) read_available(fd, answer);
    } else if (seconds_since(t0) >= timeout_s) {
      ::kill(-pid, SIGKILL);
      ::waitpid(pid, &e.status, 0);
      e.timed_out = true;
      break;
    }
  }
  ::kill(-pid, SIGKILL);
  return e;
}

}  // namespace

ForkedCall call_in_child(const std::function<std::string()>& fn, double timeout_s) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw Error(fmt::format("cannot create a pipe: {}", std::strerror(errno)));
  std::cout.flush();
  std::cerr.flush();
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    throw Error(fmt::format("fork failed: {}", std::strerror(errno)));
  }
  if (pid == 0) {
    ::close(fds[0]);
    child_main(fn, fds[1]);
  }
  ::setpgid(pid, pid);  // also here: no race with a kill at the limit
  ::close(fds[1]);
  ::fcntl(fds[0], F_SETFL, ::fcntl(fds[0], F_GETFL) | O_NONBLOCK);
  std::string answer;
  const Ended e = wait_for_child(pid, fds[0], timeout_s, answer);
  ::close(fds[0]);
  ForkedCall r;
  if (e.timed_out) {
    r.failure = fmt::format("did not return within {} s (its process group was killed)", timeout_s);
  } else if (answer.size() > kMaxAnswerBytes) {
    r.failure = fmt::format("answered more than {} bytes", kMaxAnswerBytes);
  } else if (!answer.empty() && answer[0] == 'V' && exit_code_of_wait_status(e.status) == 0) {
    r.answered = true;
    r.value = answer.substr(1);
  } else if (!answer.empty() && answer[0] == 'T') {
    r.failure = "threw: " + answer.substr(1);
  } else {
    r.failure = fmt::format("ended before it returned ({})", describe_wait_status(e.status));
  }
  return r;
}

}  // namespace caliber
