#include "campaign/device_servers.h"

#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <vector>

#include <fmt/format.h>

namespace caliber::campaign {

namespace fs = std::filesystem;

DeviceServers::DeviceServers(std::string executable, std::string backend, std::string log_dir)
    : executable_(std::move(executable)), backend_(std::move(backend)), log_dir_(std::move(log_dir)) {
  // A Unix socket path holds at most 107 bytes: the sockets live in a short private directory,
  // not in the campaign's.
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = fmt::format("{}/caliber-batch-XXXXXX", tmp && *tmp && std::string(tmp).size() < 60 ? tmp : "/tmp");
  std::vector<char> buffer(pattern.begin(), pattern.end());
  buffer.push_back('\0');
  if (::mkdtemp(buffer.data())) socket_dir_ = buffer.data();
}

DeviceServers::~DeviceServers() {
  servers_.clear();  // ChildProcess's destructor kills the group and reaps it
  if (!socket_dir_.empty()) {
    std::error_code ec;
    fs::remove_all(socket_dir_, ec);
  }
}

std::string DeviceServers::ensure(int device) {
  if (socket_dir_.empty()) return "";
  const std::string socket = fmt::format("{}/device-{}.sock", socket_dir_, device);
  auto& server = servers_[device];
  if (server && !server->poll()) return socket;
  SubprocessOptions o;
  o.argv = {executable_, "__device-server", "--socket", socket, "--backend", backend_, "--device", std::to_string(device)};
  o.stdout_path = (fs::path(log_dir_) / fmt::format("device_server_{}.log", device)).string();
  o.die_with_parent = true;
  server.reset();
  std::error_code ec;
  fs::remove(socket, ec);
  server = std::make_unique<ChildProcess>(o);
  ++started_;
  // The run connects once the socket is there (it is created before the device is opened).
  for (int i = 0; i < 500 && !fs::exists(socket, ec); ++i) {
    if (server->poll()) return "";
    ::usleep(2000);
  }
  return fs::exists(socket, ec) ? socket : "";
}

void DeviceServers::release_all() {
  for (auto& [device, server] : servers_) {
    if (server && !server->poll()) server->terminate();
  }
}

void DeviceServers::stop(int device) {
  const auto it = servers_.find(device);
  if (it != servers_.end()) servers_.erase(it);
}

}  // namespace caliber::campaign
