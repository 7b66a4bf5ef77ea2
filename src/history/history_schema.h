// The history database's schema, one for SQLite and PostgreSQL, versioned: a database records its
// version, and opening it applies every migration it lacks, in one transaction, so a database is
// always at one version. docs/history.md describes the tables.
#pragma once

#include <string>
#include <vector>

#include "history/sql_connection.h"

namespace caliber::history {

struct Migration {
  int to_version = 0;
  std::string what;  // one line, for messages
  // The statements; {id} is the dialect's auto-numbered 64-bit key, {real} its double type.
  std::string sql;
};

// caliber's migrations, oldest first: the newest schema is the last one's version.
const std::vector<Migration>& history_migrations();

// The version the database is at (0: no caliber tables yet).
int history_schema_version(SqlConnection& db);

// Brings the database to the last migration's version and returns it. Concurrent openers are
// serialized (SQLite's write lock; PostgreSQL's advisory lock), so a migration runs once. A
// database of a newer schema than `migrations` know is refused (InputError): this caliber would
// misread it.
int migrate_history(SqlConnection& db, const std::vector<Migration>& migrations = history_migrations());

}  // namespace caliber::history
