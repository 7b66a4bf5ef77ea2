// One connection to a history database, whatever holds it: an SQLite file (embedded, no server)
// or a PostgreSQL server (a postgresql:// URL). The store above (history/history_store.h) writes
// one SQL for both: parameters are `?` (the PostgreSQL connection numbers them), values travel as
// text, integers or doubles, and a write is a transaction (Transaction below).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace caliber::history {

using SqlValue = std::variant<std::monostate, std::int64_t, double, std::string>;
// One result row: each column as text (a double in its shortest exact form), or null.
using SqlRow = std::vector<std::optional<std::string>>;

enum class SqlDialect { sqlite, postgresql };

class SqlConnection {
 public:
  virtual ~SqlConnection() = default;
  virtual SqlDialect dialect() const = 0;
  // What the connection is to, for messages: the file, or the URL without its password.
  virtual const std::string& location() const = 0;
  // Statements without parameters or results (several, separated by ';').
  virtual void execute(std::string_view sql) = 0;
  // One statement with `?` parameters; its rows (none for a statement that returns none).
  virtual std::vector<SqlRow> query(std::string_view sql, const std::vector<SqlValue>& params = {});
  // The same, one row at a time: a query over millions of points is never held whole.
  virtual void for_each_row(std::string_view sql, const std::vector<SqlValue>& params,
                            const std::function<void(const SqlRow&)>& row) = 0;
  // A write transaction: SQLite takes the write lock at once (BEGIN IMMEDIATE), waiting for
  // another writer as long as the busy timeout allows; PostgreSQL begins one.
  virtual void begin_write() = 0;
  virtual void commit() = 0;
  virtual void rollback() noexcept = 0;
};

// Rolls back unless committed: a write that throws, or a process killed mid-write, leaves nothing.
class Transaction {
 public:
  explicit Transaction(SqlConnection& db) : db_(db) { db_.begin_write(); }
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  ~Transaction() {
    if (!done_) db_.rollback();
  }
  void commit() {
    db_.commit();
    done_ = true;
  }

 private:
  SqlConnection& db_;
  bool done_ = false;
};

// postgresql:// or postgres:// URLs (libpq's connection URIs) open a PostgreSQL connection;
// anything else is an SQLite file, created when missing. Errors are InputError naming the location.
bool is_postgresql_url(std::string_view location);
std::unique_ptr<SqlConnection> open_sql_connection(const std::string& location);
std::unique_ptr<SqlConnection> open_sqlite_connection(const std::string& path);
std::unique_ptr<SqlConnection> open_postgresql_connection(const std::string& url);

// The text of a column, or `fallback` when it is null.
std::string text_or(const std::optional<std::string>& column, std::string fallback = "");

}  // namespace caliber::history
