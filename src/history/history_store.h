// The history: every run added, its points grouped into like-for-like series, in an SQLite file or
// a PostgreSQL database (history/sql_connection.h). Adding is one transaction per run: a killed
// add leaves nothing half-written, a run added twice is stored once, and two writers at once both
// land (docs/history.md).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "history/run_record.h"
#include "history/sql_connection.h"

namespace caliber::history {

struct AddResult {
  bool added = false;     // false: the run was already stored (by its run_key)
  std::int64_t run = 0;   // the run's id in the store
  std::size_t points = 0;
  std::size_t new_series = 0;
};

// A stored run: where its points came from.
struct StoredRun {
  std::int64_t id = 0;
  std::string date, commit, device, source, command, run_id;
  std::string identity_fields;  // JSON: the run identity's caliber fields by name
};

// A stored point; its run is in History::runs.
struct StoredPoint {
  std::int64_t run = 0;
  std::optional<double> value_us, ci_low_us, ci_high_us;
  std::int64_t samples = 0;
  std::string status, integrity, unstable;
};

struct StoredSeries {
  std::int64_t id = 0;
  SeriesRecord record;
  std::vector<StoredPoint> points;  // by run date, then by the order runs were added
};

// Which series to read: every field empty selects all.
struct SeriesFilter {
  std::string name_glob;  // fnmatch(3) on the series' name
  std::string arch;
  std::vector<std::int64_t> ids;
  std::size_t last = 0;   // keep only each series' last N points (0: all)
};

struct History {
  std::vector<StoredSeries> series;
  std::map<std::int64_t, StoredRun> runs;  // every run a point of `series` came from
  const StoredRun& run_of(const StoredPoint& p) const { return runs.at(p.run); }
};

class HistoryStore {
 public:
  // Opens (creating an SQLite file when missing) and migrates to the current schema.
  explicit HistoryStore(const std::string& location);
  explicit HistoryStore(std::unique_ptr<SqlConnection> db);

  AddResult add(const RunRecord& run);
  History read(const SeriesFilter& filter = {});
  std::size_t run_count();

 private:
  std::int64_t series_id(const SeriesRecord& s, std::size_t& new_series);
  std::map<std::string, std::int64_t> series_ids(const RunRecord& run, std::size_t& new_series);
  void read_points(History& h);
  void insert_points(std::int64_t run, const std::vector<std::pair<std::int64_t, const PointRecord*>>& points);

  std::unique_ptr<SqlConnection> db_;
  std::map<std::string, std::int64_t> known_series_;  // committed series, by key (never deleted)
};

}  // namespace caliber::history
