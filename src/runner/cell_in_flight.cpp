#include "runner/cell_in_flight.h"

#include <filesystem>
#include <limits>

#include <fmt/format.h>

#include "core/atomic_file.h"
#include "caliber/errors.h"
#include "core/input_file.h"
#include "core/json_fields.h"

namespace caliber::runner {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr const char* kKind = "caliber.cell_in_flight";
constexpr std::int64_t kSchemaVersion = 1;

}  // namespace

json to_json(const CellInFlight& c) {
  return {{"schema_version", kSchemaVersion}, {"kind", kKind},           {"run_id", c.run_id},
          {"pid", c.pid},                     {"shape_id", c.shape_id},  {"provider", c.provider},
          {"started_at", c.started_at},       {"started_unix_ms", c.started_unix_ms}};
}

CellInFlight cell_in_flight_from_json(const json& j, const std::string& file) {
  if (!j.is_object()) throw InputError(file, 0, "", "expected a JSON object");
  JsonFields f(j, file, 0, "");
  require_document_header(f, kKind, kSchemaVersion);
  CellInFlight c;
  c.run_id = f.str("run_id");
  c.pid = static_cast<int>(f.integer_in("pid", 1, std::numeric_limits<int>::max()));
  c.shape_id = f.str("shape_id");
  c.provider = f.str("provider");
  c.started_at = f.str("started_at");
  c.started_unix_ms = f.non_negative("started_unix_ms");
  return c;
}

std::string cell_in_flight_path(const std::string& out_dir) {
  return (fs::path(out_dir) / kCellInFlightFileName).string();
}

void write_cell_in_flight(const std::string& out_dir, const CellInFlight& c) {
  replace_file_unsynced(cell_in_flight_path(out_dir), to_json(c).dump() + "\n");
}

std::optional<CellInFlight> read_cell_in_flight(const std::string& out_dir, std::string* why_not) {
  const std::string path = cell_in_flight_path(out_dir);
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) {
    if (why_not) *why_not = fmt::format("no {} in {}", kCellInFlightFileName, out_dir);
    return std::nullopt;
  }
  try {
    return cell_in_flight_from_json(parse_json_document(read_text_file(path), path), path);
  } catch (const Error& e) {
    if (why_not) *why_not = e.what();
    return std::nullopt;
  } catch (const json::exception& e) {
    if (why_not) *why_not = fmt::format("{}: {}", path, e.what());
    return std::nullopt;
  }
}

void clear_cell_in_flight(const std::string& out_dir) {
  std::error_code ec;
  fs::remove(cell_in_flight_path(out_dir), ec);
}

}  // namespace caliber::runner
