// The cell a `caliber run` is measuring, as `--out`/cell_in_flight.json: the supervisor rewrites
// it at each `start` event of its worker (by rename, without fsync: a kill never leaves a part of
// it, and it costs tens of microseconds a cell), so that whoever sees the run end as a whole
// process group, where the run itself can write nothing (caliber batch, after its shard
// timeout's SIGKILL), knows which cell was running and since when. A row in the results file
// for the cell it names means the run was between cells. Removed when the run finishes.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace caliber::runner {

inline constexpr const char* kCellInFlightFileName = "cell_in_flight.json";

struct CellInFlight {
  std::string run_id;
  int pid = 0;  // of the caliber run that wrote it
  std::string shape_id;
  std::string provider;
  std::string started_at;      // UTC, to the second
  double started_unix_ms = 0;  // system clock, milliseconds since the epoch: when its `start` came
};

nlohmann::json to_json(const CellInFlight& c);
// InputError naming `file` and the field.
CellInFlight cell_in_flight_from_json(const nlohmann::json& j, const std::string& file);

std::string cell_in_flight_path(const std::string& out_dir);
// Replaces out_dir/cell_in_flight.json (atomic_file.h, replace_file_unsynced).
void write_cell_in_flight(const std::string& out_dir, const CellInFlight& c);
// nullopt when the file is absent or cannot be read as one, with the reason in `why_not`.
std::optional<CellInFlight> read_cell_in_flight(const std::string& out_dir, std::string* why_not = nullptr);
// Removes the file; nothing when it is absent.
void clear_cell_in_flight(const std::string& out_dir);

}  // namespace caliber::runner
