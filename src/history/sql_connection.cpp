// Which database a history location names, and the helpers every connection shares.
#include "history/sql_connection.h"

namespace caliber::history {

std::vector<SqlRow> SqlConnection::query(std::string_view sql, const std::vector<SqlValue>& params) {
  std::vector<SqlRow> rows;
  for_each_row(sql, params, [&rows](const SqlRow& r) { rows.push_back(r); });
  return rows;
}

bool is_postgresql_url(std::string_view location) {
  return location.starts_with("postgresql://") || location.starts_with("postgres://");
}

std::unique_ptr<SqlConnection> open_sql_connection(const std::string& location) {
  if (is_postgresql_url(location)) return open_postgresql_connection(location);
  return open_sqlite_connection(location);
}

std::string text_or(const std::optional<std::string>& column, std::string fallback) {
  return column ? *column : std::move(fallback);
}

}  // namespace caliber::history
