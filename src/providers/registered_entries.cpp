// Plugin entries registered by the process (providers/registered_entries.h).
#include "providers/registered_entries.h"

#include <filesystem>
#include <map>
#include <mutex>
#include <utility>

namespace caliber::providers {

namespace {

std::mutex& entries_mutex() {
  static std::mutex m;
  return m;
}

std::map<std::pair<std::string, std::string>, void*>& entries() {
  static std::map<std::pair<std::string, std::string>, void*> e;
  return e;
}

std::string canonical_file(const std::string& file) {
  std::error_code ec;
  const std::filesystem::path p = std::filesystem::weakly_canonical(file, ec);
  return ec ? std::filesystem::path(file).lexically_normal().string() : p.string();
}

}  // namespace

void register_provider_entry(const std::string& file, const std::string& name, void* entry) {
  const std::lock_guard lock(entries_mutex());
  entries()[{canonical_file(file), name}] = entry;
}

void* registered_provider_entry(const std::string& file, const std::string& name) {
  const std::lock_guard lock(entries_mutex());
  const auto it = entries().find({canonical_file(file), name});
  return it == entries().end() ? nullptr : it->second;
}

bool is_python_provider_file(const std::string& path) { return path.ends_with(".py"); }

}  // namespace caliber::providers
