#include "identity/collect_run_identity.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include <fmt/format.h>

#include "caliber/config.h"
#include "core/sha256.h"
#include "core/utc_time.h"

namespace caliber {
namespace {

namespace fs = std::filesystem;

std::string absolute(const std::string& path) {
  std::error_code ec;
  const fs::path p = fs::absolute(path, ec);
  return ec ? path : p.lexically_normal().string();
}

HashedFile hash_file(const std::string& role, const std::string& path) {
  return {role, absolute(path), sha256_file_hex(path)};
}

std::string hostname() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return {};
  return buf;
}

}  // namespace

std::string make_run_id(const std::string& created_at) {
  std::string compact;
  for (char c : created_at) {
    if (c != '-' && c != ':') compact.push_back(c);
  }
  std::random_device rd;
  return fmt::format("{}-{:08x}", compact, rd());
}

std::vector<std::string> current_command_line() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::vector<std::string> out;
  std::string arg;
  while (std::getline(in, arg, '\0')) out.push_back(arg);
  return out;
}

std::vector<NamedContract> contracts_by_schedule_and_cache(const std::vector<Contract>& contracts) {
  std::vector<NamedContract> out;
  for (const Contract& c : contracts) {
    const std::string role = fmt::format("{}/{}", to_string(c.schedule), to_string(c.cache));
    const bool seen = std::any_of(out.begin(), out.end(), [&](const NamedContract& n) { return n.role == role; });
    if (!seen) out.push_back({role, c});
  }
  return out;
}

RunIdentity collect_run_identity(const IdentityRequest& r, DeviceProbe& probe) {
  RunIdentity id;
  id.created_at = utc_timestamp_now();
  id.run_id = make_run_id(id.created_at);
  id.hostname = hostname();
  id.command = r.command.empty() ? current_command_line() : r.command;
  id.outputs = r.outputs;
  id.device = r.device;
  id.contracts = r.contracts;
  id.clocks_at_start = probe.clocks_at_start(r.device);
  id.device_processes_at_start = probe.other_compute_processes(r.device);
  id.harness.version = CALIBER_VERSION;
  id.harness.git_revision = CALIBER_GIT_REVISION;
  id.harness.build_type = CALIBER_BUILD_TYPE;
  id.harness.compiler = CALIBER_COMPILER;
  try {
    id.harness.executable_sha256 =
        sha256_file_hex(r.harness_executable.empty() ? std::string("/proc/self/exe") : r.harness_executable);
  } catch (const std::exception&) {
    id.harness.executable_sha256.clear();  // documented: empty when the binary cannot be read
  }
  for (const auto& [name, path] : r.provider_libraries) id.providers.push_back(hash_file(name, path));
  if (r.shape_ledger) id.shape_ledger = hash_file("shape_ledger", *r.shape_ledger);
  if (r.baseline_matrix) id.baseline_matrix = hash_file("baseline_matrix", *r.baseline_matrix);
  return id;
}

}  // namespace caliber
