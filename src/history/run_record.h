// One run as the history stores it: where it came from (commit, date, device, the command that
// made it), its run identity's caliber fields, and one point per measured row, each tagged with
// the series it belongs to. Built from any input `caliber compare` reads (compare/importers.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "compare/compare_row.h"

namespace caliber::history {

// What makes points like for like: a point joins a series only when every one of these is equal
// (docs/history.md, "Series"). `key` is the SHA-256 of all of them.
struct SeriesRecord {
  std::string key;
  std::string name;          // op, benchmark or kernel
  std::string params;        // canonical JSON: shape id and provider for caliber run rows
  std::string arch;
  std::string contract;      // canonical JSON of every contract field (compare/compare_row.h)
  std::string identity_key;  // the run identity's caliber fields, hashed; "none" when unrecorded
  std::string label;         // "gemm shape_id=… provider=… [device_time/cupti/graph/cold]"
};

struct PointRecord {
  SeriesRecord series;
  std::optional<double> value_us;                  // ok rows only
  std::optional<double> ci_low_us, ci_high_us;     // the median's 95% interval, from raw samples
  std::int64_t samples = 0;
  std::string status;     // compare::RowStatus
  std::string integrity;  // the integrity verdict; empty when the format records none
  std::string unstable;   // why the number is not stable; empty when stable or unrecorded
};

struct RunRecord {
  std::string run_key;        // SHA-256 of the results file: adding a run twice stores it once
  std::string run_id;         // the identity's run id; empty for other tools' files
  std::string format;         // compare::InputFormat
  std::string source;         // the path it was added from
  std::string commit;         // of the code measured
  std::string commit_source;  // "--commit", "git HEAD of /dir", "unknown"
  std::string date;           // when it ran: UTC ISO 8601
  std::string device, arch, hostname;
  std::string command;        // the command line that produced it (the identity's), or ""
  std::string identity_key;
  std::string identity_fields;  // JSON object: every caliber field of the identity, by name
  std::vector<PointRecord> points;
};

struct RunSource {
  std::string input;                  // a results file or a run directory
  std::optional<std::string> commit;  // default: `git rev-parse HEAD` of the working directory
  std::optional<std::string> date;    // default: the identity's created_at, else the file's mtime
};

// Reads the input (InputError for a malformed one, as `caliber compare` refuses it) and its run
// identity, and makes the record.
RunRecord read_run_record(const RunSource& source);

// The series of one row under a run identity key (exposed for tests).
SeriesRecord series_of(const compare::CompareRow& row, const std::string& identity_key);

}  // namespace caliber::history
