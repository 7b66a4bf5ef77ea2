#include "io/file_kind_from_content.h"

#include <filesystem>
#include <fstream>
#include <string_view>

#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

namespace caliber::validation {
namespace {

bool has_extension(const std::string& name, std::string_view ext) {
  return name.size() > ext.size() && name.compare(name.size() - ext.size(), ext.size(), ext) == 0;
}

// The first line that is not blank; nothing when there is none.
std::optional<std::string> first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.find_first_not_of(" \t\r") != std::string::npos) return line;
  }
  return std::nullopt;
}

std::optional<FileKind> jsonl_kind(const std::string& path) {
  const auto line = first_line(path);
  if (!line) return std::nullopt;
  const nlohmann::json row = nlohmann::json::parse(*line, nullptr, /*allow_exceptions=*/false);
  if (!row.is_object()) return std::nullopt;
  if (row.contains("provider") || row.contains("benchmark_status")) return FileKind::benchmark_results_jsonl;
  if (row.contains("shape_id") && row.contains("args")) return FileKind::shape_ledger;
  return std::nullopt;
}

std::optional<FileKind> yaml_kind(const std::string& path) {
  YAML::Node doc;
  try {
    doc = YAML::LoadFile(path);
  } catch (const YAML::Exception&) {
    return std::nullopt;
  }
  if (!doc.IsMap()) return std::nullopt;
  if (doc["providers"]) return FileKind::baseline_matrix;
  if (doc["op"] && (doc["inputs"] || doc["outputs"])) return FileKind::op_description;
  return std::nullopt;
}

std::optional<FileKind> csv_kind(const std::string& path) {
  const auto header = first_line(path);
  if (header && header->find("benchmark_status") != std::string::npos) return FileKind::benchmark_results_csv;
  return std::nullopt;
}

}  // namespace

std::optional<FileKind> file_kind_from_content(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return std::nullopt;
  const std::string name = std::filesystem::path(path).filename().string();
  if (has_extension(name, ".jsonl")) return jsonl_kind(path);
  if (has_extension(name, ".yaml") || has_extension(name, ".yml")) return yaml_kind(path);
  if (has_extension(name, ".csv")) return csv_kind(path);
  return std::nullopt;
}

}  // namespace caliber::validation
