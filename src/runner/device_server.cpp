#include "runner/device_server.h"

#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "caliber/contract.h"
#include "caliber/errors.h"
#include "core/json_fields.h"
#include "core/one_line.h"
#include "core/parallel_for.h"
#include "runner/worker.h"
#include "runner/worker_main.h"
#include "runner/worker_token.h"

namespace caliber::runner {
namespace {

// The connection being served: where the crash handler says which signal ended the server.
volatile sig_atomic_t g_connection = -1;
// The crash line of that connection up to its signal number. It carries the run's channel token
// (runner/worker_token.h): the measured code runs in this process and can write on the
// connection too, and the run takes a server line only with the token.
char g_crash_prefix[128] = R"({"event":"crashed","signal":)";
volatile sig_atomic_t g_crash_prefix_length = 28;

void write_all(int fd, const char* data, std::size_t size) {
  while (size > 0) {
    const ssize_t n = ::write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    data += n;
    size -= static_cast<std::size_t>(n);
  }
}

// Async-signal-safe: the connection's crash line (armed with its token) and the signal number,
// then the default action.
void on_crash(int signo) {
  const int fd = g_connection;
  if (fd >= 0) {
    char line[160];
    std::size_t n = static_cast<std::size_t>(g_crash_prefix_length);
    std::memcpy(line, g_crash_prefix, n);
    char digits[8];
    int k = 0;
    for (int v = signo; v > 0 && k < 7; v /= 10) digits[k++] = static_cast<char>('0' + v % 10);
    while (k > 0) line[n++] = digits[--k];
    line[n++] = '}';
    line[n++] = '\n';
    write_all(fd, line, n);
  }
  ::signal(signo, SIG_DFL);
  ::raise(signo);
}

// Before the connection's run is served (not in the handler): its crash line with its token.
void arm_crash_line(const std::string& token) {
  const std::string prefix = fmt::format(R"({{"event":"crashed","token":"{}","signal":)", token);
  if (prefix.size() >= sizeof g_crash_prefix) throw UsageError("the run's channel token is too long");
  g_crash_prefix_length = 0;
  std::memcpy(g_crash_prefix, prefix.data(), prefix.size());
  g_crash_prefix_length = static_cast<sig_atomic_t>(prefix.size());
}

void send_line(int fd, const nlohmann::json& event) {
  const std::string line = event.dump() + "\n";
  write_all(fd, line.data(), line.size());
}

// Lines from a connection; false at its end.
class ConnectionLines {
 public:
  explicit ConnectionLines(int fd) : fd_(fd) {}
  bool next(std::string& line) {
    while (true) {
      const auto nl = buffer_.find('\n');
      if (nl != std::string::npos) {
        line = buffer_.substr(0, nl);
        buffer_.erase(0, nl + 1);
        return true;
      }
      char chunk[65536];
      const ssize_t n = ::read(fd_, chunk, sizeof chunk);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      buffer_.append(chunk, static_cast<std::size_t>(n));
    }
  }

 private:
  int fd_;
  std::string buffer_;
};

// The run's channel token, the line after the server's "served" (the run sends it first of all);
// serve_run then takes it instead of reading a line.
std::string take_run_token(ConnectionLines& lines) {
  std::string line;
  if (!lines.next(line)) throw UsageError("the run sent no channel token");
  const std::optional<std::string> token = token_from_line(line);
  if (!token) throw UsageError("the run's first line after its request is not its channel token");
  preset_worker_token(*token);
  arm_crash_line(*token);
  return *token;
}

// This process's threads: id -> name (/proc/self/task).
std::map<std::string, std::string> threads_now() {
  std::map<std::string, std::string> out;
  std::error_code ec;
  for (auto it = std::filesystem::directory_iterator("/proc/self/task", ec); !ec && it != std::filesystem::directory_iterator();
       it.increment(ec)) {
    std::ifstream comm(it->path() / "comm");
    std::string name;
    std::getline(comm, name);
    out[it->path().filename().string()] = name;
  }
  return out;
}

// The threads of `after` that `before` did not have, as "name (id)": what a run may have left.
std::string new_threads(const std::map<std::string, std::string>& before, const std::map<std::string, std::string>& after) {
  std::string out;
  for (const auto& [id, name] : after) {
    if (!before.count(id)) out += fmt::format("{}{} ({})", out.empty() ? "" : ", ", name, id);
  }
  return out;
}

int listen_on(const std::string& path) {
  sockaddr_un addr{};
  if (path.empty() || path.size() >= sizeof addr.sun_path) {
    throw UsageError(fmt::format("--socket {}: a Unix socket path is 1 to {} characters", path, sizeof addr.sun_path - 1));
  }
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw Error(fmt::format("socket: {}", std::strerror(errno)));
  ::unlink(path.c_str());
  if (::bind(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0 || ::listen(fd, 4) != 0) {
    const int e = errno;
    ::close(fd);
    throw Error(fmt::format("--socket {}: {}", path, std::strerror(e)));
  }
  return fd;
}

}  // namespace

int run_device_server(const DeviceServerOptions& o) {
  ::signal(SIGPIPE, SIG_IGN);
  RunOptions base;
  base.backend = o.backend;
  base.device = o.device;
  std::unique_ptr<WorkerDevice> device;
  int listener = -1;
  try {
    const BackendKind kind = o.backend == "auto" ? default_backend_kind() : parse_backend(o.backend);
    // Listening first: a run that connects while the device opens waits in the backlog.
    listener = listen_on(o.socket);
    device = open_worker_device(base, kind);
  } catch (const std::exception& e) {
    std::cerr << "caliber device server: error: " << one_line(e.what()) << '\n';
    if (listener >= 0) ::unlink(o.socket.c_str());
    return 1;
  }
  // The threads caliber keeps for the process's life exist before the first run: its host thread
  // pool, and CUPTI's (attached and detached once). A thread a run leaves behind is then the run's.
  parallel_for(parallel_threads(), 1, [](std::int64_t, std::int64_t) {});
  try {
    device->backend->keep_activity_tracing_on().reset();
  } catch (const ContractError&) {
    // no activity tracing on this backend (or CUPTI is unavailable): no thread of its own either
  }
  for (int s : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) ::signal(s, on_crash);
  std::cerr << fmt::format("caliber device server: pid {}: {} device {} ({}) open, serving runs on {}\n", ::getpid(),
                           o.backend, o.device, device->backend->device().name, o.socket);
  for (int served = 1;; ++served) {
    const int c = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
    if (c < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      std::cerr << "caliber device server: error: accept: " << std::strerror(errno) << '\n';
      return 1;
    }
    g_connection = c;
    const std::map<std::string, std::string> threads_before = threads_now();
    ConnectionLines lines(c);
    std::string first, token;
    int code = 0;
    try {
      if (!lines.next(first)) throw UsageError("the run sent nothing");
      const nlohmann::json request = parse_json_document(first, "(device server request)");
      if (request.value("retire", false)) {
        // A run that cannot be served here needs the device to itself.
        std::cerr << "caliber device server: run " << served << " asked it to exit (it is not served here)\n";
        g_connection = -1;
        ::close(c);
        ::unlink(o.socket.c_str());
        return 0;
      }
      RunOptions options = parse_worker_options(request.at("arguments").get<std::vector<std::string>>());
      options.events_fd = c;
      send_line(c, {{"event", "served"}, {"pid", ::getpid()}});
      token = take_run_token(lines);
      code = serve_run(options, device.get(), [&lines](std::string& line) { return lines.next(line); });
    } catch (const std::exception& e) {
      // Anything thrown past the worker leaves its state unknown: this server ends after saying so.
      send_line(c, {{"event", "fatal"}, {"exit_code", 1}, {"message", e.what()}, {"token", token}});
      g_connection = -1;
      ::close(c);
      std::cerr << "caliber device server: run " << served << ": error: " << one_line(e.what()) << "; exiting\n";
      ::unlink(o.socket.c_str());
      return 1;
    }
    send_line(c, {{"event", "job_done"}, {"exit_code", code}, {"token", token}});
    g_connection = -1;
    ::close(c);
    const std::map<std::string, std::string> threads_after = threads_now();
    std::cerr << fmt::format("caliber device server: run {} done (exit code {}), threads {} -> {}\n", served, code,
                             threads_before.size(), threads_after.size());
    // More threads than before the run: code the run loaded still runs, and must not run beside the
    // next run's measurements. (Counted, not compared by id: CUPTI replaces its own threads each
    // time it attaches again, measured on the H200.)
    if (threads_after.size() > threads_before.size()) {
      const std::string left = new_threads(threads_before, threads_after);
      std::cerr << "caliber device server: the run left threads running (" << left
                << "); exiting (the next run starts a fresh server)\n";
      ::unlink(o.socket.c_str());
      return 0;
    }
  }
}

}  // namespace caliber::runner
