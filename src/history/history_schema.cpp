// The schema's versions and the migration that applies them (history/history_schema.h).
#include "history/history_schema.h"

#include <fmt/format.h>

#include "caliber/errors.h"

namespace caliber::history {
namespace {

// Version 1: runs, the like-for-like series, and one point per (run, series). Points are keyed
// by run first: a run's points are appended together, not spread over every series' part of an
// index (a million points: 17 s to add keyed by series first); a read orders them in memory.
constexpr const char* kVersion1 = R"sql(
CREATE TABLE runs (
  id {id},
  run_key TEXT NOT NULL UNIQUE,
  run_id TEXT NOT NULL,
  format TEXT NOT NULL,
  source TEXT NOT NULL,
  commit_rev TEXT NOT NULL,
  commit_source TEXT NOT NULL,
  run_date TEXT NOT NULL,
  added_at TEXT NOT NULL,
  device TEXT NOT NULL,
  arch TEXT NOT NULL,
  hostname TEXT NOT NULL,
  command TEXT NOT NULL,
  identity_key TEXT NOT NULL,
  identity_fields TEXT NOT NULL
);
CREATE TABLE series (
  id {id},
  series_key TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  params TEXT NOT NULL,
  arch TEXT NOT NULL,
  contract TEXT NOT NULL,
  identity_key TEXT NOT NULL,
  label TEXT NOT NULL
);
CREATE TABLE points (
  series BIGINT NOT NULL REFERENCES series(id),
  run BIGINT NOT NULL REFERENCES runs(id),
  value_us {real},
  ci_low_us {real},
  ci_high_us {real},
  samples BIGINT NOT NULL,
  status TEXT NOT NULL,
  integrity TEXT NOT NULL,
  unstable TEXT NOT NULL,
  PRIMARY KEY (run, series)
);
CREATE INDEX runs_by_date ON runs(run_date, id);
)sql";

std::string for_dialect(std::string sql, SqlDialect dialect) {
  const bool pg = dialect == SqlDialect::postgresql;
  auto replace_all = [&sql](std::string_view from, std::string_view to) {
    for (std::size_t at = sql.find(from); at != std::string::npos; at = sql.find(from, at + to.size())) {
      sql.replace(at, from.size(), to);
    }
  };
  replace_all("{id}", pg ? "BIGSERIAL PRIMARY KEY" : "INTEGER PRIMARY KEY");
  replace_all("{real}", pg ? "DOUBLE PRECISION" : "REAL");
  return sql;
}

constexpr const char* kVersionTable = "caliber_history_schema";

}  // namespace

const std::vector<Migration>& history_migrations() {
  static const std::vector<Migration> migrations = {
      {1, "runs, series and points", kVersion1},
  };
  return migrations;
}

int history_schema_version(SqlConnection& db) {
  const char* exists = db.dialect() == SqlDialect::sqlite
                           ? "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?"
                           : "SELECT 1 FROM information_schema.tables WHERE table_name = ? "
                             "AND table_schema = current_schema()";
  if (db.query(exists, {std::string(kVersionTable)}).empty()) return 0;
  const auto rows = db.query(fmt::format("SELECT version FROM {}", kVersionTable));
  if (rows.size() != 1 || !rows[0][0]) {
    throw InputError(db.location(), 0, kVersionTable, "the schema version is not recorded exactly once");
  }
  return std::stoi(*rows[0][0]);
}

int migrate_history(SqlConnection& db, const std::vector<Migration>& migrations) {
  const int newest = migrations.empty() ? 0 : migrations.back().to_version;
  auto refuse_newer = [&](int version) {
    if (version <= newest) return;
    throw InputError(db.location(), 0, kVersionTable,
                     fmt::format("schema version {} is newer than this caliber's ({}): use a newer caliber",
                                 version, newest));
  };
  const int found = history_schema_version(db);  // a current database is not locked to be read
  refuse_newer(found);
  if (found == newest) return found;
  Transaction tx(db);
  // One migrator at a time; the others find the schema current once it commits.
  if (db.dialect() == SqlDialect::postgresql) db.query("SELECT pg_advisory_xact_lock(725314)");
  const int version = history_schema_version(db);
  refuse_newer(version);
  if (version == newest) return version;  // another opener migrated it: nothing to write
  if (version == 0) {
    db.execute(fmt::format("CREATE TABLE {} (version BIGINT NOT NULL)", kVersionTable));
    db.query(fmt::format("INSERT INTO {} (version) VALUES (0)", kVersionTable));
  }
  for (const Migration& m : migrations) {
    if (m.to_version <= version) continue;
    db.execute(for_dialect(m.sql, db.dialect()));
  }
  db.query(fmt::format("UPDATE {} SET version = ?", kVersionTable), {std::int64_t{newest}});
  tx.commit();
  return newest;
}

}  // namespace caliber::history
