#include "core/created_directories.h"

#include <filesystem>
#include <mutex>
#include <vector>

#include <fmt/format.h>

#include "caliber/errors.h"

namespace caliber {

namespace fs = std::filesystem;

namespace {

std::mutex& created_mutex() {
  static std::mutex m;
  return m;
}

// In the order made: parents before their children.
std::vector<fs::path>& created() {
  static std::vector<fs::path> dirs;
  return dirs;
}

}  // namespace

void create_output_directories(const std::string& directory) {
  std::error_code ec;
  create_output_directories(directory, ec);
  if (ec) throw fs::filesystem_error("cannot create the directory", directory, ec);
}

void create_output_directories(const std::string& directory, const std::string& option) {
  std::error_code ec;
  create_output_directories(directory, ec);
  if (ec) throw UsageError(fmt::format("{} {}: cannot create it: {}", option, directory, ec.message()));
}

void create_output_directories(const std::string& directory, std::error_code& ec) {
  std::vector<fs::path> missing;
  for (fs::path p = fs::absolute(directory, ec).lexically_normal(); !p.empty() && !fs::exists(p, ec);
       p = p.parent_path()) {
    missing.insert(missing.begin(), p);
    if (p == p.parent_path()) break;
  }
  ec.clear();
  fs::create_directories(directory, ec);
  const std::lock_guard<std::mutex> lock(created_mutex());
  for (const fs::path& p : missing) {
    std::error_code exists;
    if (fs::is_directory(p, exists)) created().push_back(p);
  }
}

void remove_empty_created_directories() {
  const std::lock_guard<std::mutex> lock(created_mutex());
  for (auto it = created().rbegin(); it != created().rend(); ++it) {
    std::error_code ec;
    if (fs::is_directory(*it, ec) && fs::is_empty(*it, ec)) fs::remove(*it, ec);
  }
  created().clear();
}

}  // namespace caliber
