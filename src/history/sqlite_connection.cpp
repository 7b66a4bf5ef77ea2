// The SQLite history database: one file, no server. Write-ahead logging lets readers go on while
// one writer writes; a second writer waits for the lock (the busy timeout) instead of failing, so
// two `caliber history add` at once both land. Prepared statements are kept per SQL text: adding
// a run of thousands of rows prepares each statement once.
#include <sqlite3.h>

#include <functional>
#include <map>

#include <fmt/format.h>

#include "caliber/errors.h"
#include "history/sql_connection.h"

namespace caliber::history {
namespace {

constexpr int kBusyTimeoutMs = 120'000;

class SqliteConnection final : public SqlConnection {
 public:
  explicit SqliteConnection(std::string path) : path_(std::move(path)) {
    const int rc = sqlite3_open_v2(path_.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
    if (rc != SQLITE_OK) {
      const std::string why = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
      sqlite3_close(db_);
      throw InputError(path_, 0, "", "cannot open the history database: " + why);
    }
    sqlite3_busy_timeout(db_, kBusyTimeoutMs);
    sqlite3_extended_result_codes(db_, 1);
    try {
      // Reading the first page is what tells a file that is not a database from one that is.
      for_each_row("PRAGMA journal_mode=WAL", {}, [](const SqlRow&) {});
      // A larger page cache (64 MiB): a run's points land in every series' part of the index.
      execute("PRAGMA foreign_keys=ON; PRAGMA synchronous=NORMAL; PRAGMA cache_size=-65536");
    } catch (...) {
      close();  // a constructor that throws runs no destructor
      throw;
    }
  }
  ~SqliteConnection() override { close(); }

  SqlDialect dialect() const override { return SqlDialect::sqlite; }
  const std::string& location() const override { return path_; }

  void execute(std::string_view sql) override {
    char* message = nullptr;
    const int rc = sqlite3_exec(db_, std::string(sql).c_str(), nullptr, nullptr, &message);
    if (rc != SQLITE_OK) {
      const std::string why = message ? message : sqlite3_errstr(rc);
      sqlite3_free(message);
      fail(why);
    }
  }

  void for_each_row(std::string_view sql, const std::vector<SqlValue>& params,
                    const std::function<void(const SqlRow&)>& take) override {
    sqlite3_stmt* stmt = prepared(sql);
    sqlite3_reset(stmt);
    sqlite3_clear_bindings(stmt);
    bind(stmt, params);
    SqlRow row;
    for (;;) {
      const int rc = sqlite3_step(stmt);
      if (rc == SQLITE_DONE) break;
      if (rc != SQLITE_ROW) {
        const std::string why = sqlite3_errmsg(db_);
        sqlite3_reset(stmt);
        fail(why);
      }
      row_of(stmt, row);
      try {
        take(row);
      } catch (...) {
        sqlite3_reset(stmt);
        throw;
      }
    }
    sqlite3_reset(stmt);
  }

  void begin_write() override { execute("BEGIN IMMEDIATE"); }
  void commit() override { execute("COMMIT"); }
  void rollback() noexcept override { sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr); }

 private:
  void close() noexcept {
    for (auto& [sql, stmt] : statements_) sqlite3_finalize(stmt);
    statements_.clear();
    sqlite3_close(db_);
    db_ = nullptr;
  }

  [[noreturn]] void fail(const std::string& why) const {
    throw InputError(path_, 0, "", "history database: " + why);
  }

  sqlite3_stmt* prepared(std::string_view sql) {
    auto it = statements_.find(std::string(sql));
    if (it != statements_.end()) return it->second;
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &stmt, nullptr) != SQLITE_OK) {
      fail(sqlite3_errmsg(db_));
    }
    statements_.emplace(std::string(sql), stmt);
    return stmt;
  }

  void bind(sqlite3_stmt* stmt, const std::vector<SqlValue>& params) {
    if (static_cast<int>(params.size()) != sqlite3_bind_parameter_count(stmt)) {
      fail(fmt::format("{} parameters given for {}", params.size(), sqlite3_bind_parameter_count(stmt)));
    }
    for (std::size_t i = 0; i < params.size(); ++i) {
      const int at = static_cast<int>(i) + 1;
      const SqlValue& v = params[i];
      int rc = SQLITE_OK;
      if (const auto* n = std::get_if<std::int64_t>(&v)) rc = sqlite3_bind_int64(stmt, at, *n);
      else if (const auto* d = std::get_if<double>(&v)) rc = sqlite3_bind_double(stmt, at, *d);
      else if (const auto* s = std::get_if<std::string>(&v)) {
        rc = sqlite3_bind_text(stmt, at, s->data(), static_cast<int>(s->size()), SQLITE_TRANSIENT);
      } else rc = sqlite3_bind_null(stmt, at);
      if (rc != SQLITE_OK) fail(sqlite3_errmsg(db_));
    }
  }

  static void row_of(sqlite3_stmt* stmt, SqlRow& row) {
    const int columns = sqlite3_column_count(stmt);
    row.resize(static_cast<std::size_t>(columns));
    for (int c = 0; c < columns; ++c) {
      auto& cell = row[static_cast<std::size_t>(c)];
      switch (sqlite3_column_type(stmt, c)) {
        case SQLITE_NULL: cell.reset(); break;
        case SQLITE_FLOAT: cell = fmt::format("{}", sqlite3_column_double(stmt, c)); break;
        case SQLITE_INTEGER: cell = std::to_string(sqlite3_column_int64(stmt, c)); break;
        default: {
          const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt, c));
          cell = std::string(text, static_cast<std::size_t>(sqlite3_column_bytes(stmt, c)));
        }
      }
    }
  }

  std::string path_;
  sqlite3* db_ = nullptr;
  std::map<std::string, sqlite3_stmt*, std::less<>> statements_;
};

}  // namespace

std::unique_ptr<SqlConnection> open_sqlite_connection(const std::string& path) {
  return std::make_unique<SqliteConnection>(path);
}

}  // namespace caliber::history
