// A `caliber __device-server` started for a test (runner/device_server.h): its stdout and stderr
// in `dir`, its socket there; stopped (SIGTERM) and reaped when the test ends.
#pragma once

#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>

#include "support/cli_run.h"

namespace caliber::testing_support {

struct DeviceServerProcess {
  std::string dir, socket;
  pid_t pid = -1;
  DeviceServerProcess(const std::string& name, const std::string& backend)
      : dir(fresh_dir(name)), socket(dir + "/s.sock") {
    pid = start_caliber({"__device-server", "--socket", socket, "--backend", backend, "--device", "0"}, dir);
    // The socket is there before the device opens; a run that connects early waits in its backlog.
    for (int i = 0; i < 5000 && !std::filesystem::exists(socket); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  }
  ~DeviceServerProcess() {
    if (pid > 0 && running()) ::kill(pid, SIGTERM);
    if (pid > 0) ::waitpid(pid, nullptr, 0);
  }
  DeviceServerProcess(const DeviceServerProcess&) = delete;
  DeviceServerProcess& operator=(const DeviceServerProcess&) = delete;
  // False once it has exited (a zombie counts as exited; it is reaped by the destructor).
  bool running() const {
    siginfo_t info{};
    return ::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == 0;
  }
  // Waits up to `seconds` for it to exit; true when it did.
  bool exits_within(double seconds) const {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (running() && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    return !running();
  }
  std::string log() const { return slurp(dir + "/stderr.txt"); }
};

}  // namespace caliber::testing_support
