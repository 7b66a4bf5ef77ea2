// The PostgreSQL history database, for a team: many CI machines write into one server. Through
// libpq, loaded when a postgresql:// history is opened (history/libpq_library.h): a caliber that
// never talks to a server needs no libpq. Every parameter travels as text (a double in its
// shortest exact form), and the `?` of the store's SQL become $1, $2, ... here.

#include <functional>
#include <regex>

#include <fmt/format.h>

#include "caliber/errors.h"
#include "history/libpq_library.h"
#include "history/sql_connection.h"

namespace caliber::history {
namespace {

// postgresql://user:secret@host/db -> postgresql://user@host/db: messages never carry a password.
std::string without_password(const std::string& url) {
  static const std::regex password(R"(^(postgres(?:ql)?://[^:/@?]*):[^@/?]*@)");
  return std::regex_replace(url, password, "$1@");
}

std::string numbered_parameters(std::string_view sql) {
  std::string out;
  out.reserve(sql.size() + 16);
  int n = 0;
  for (char c : sql) {
    if (c == '?') out += fmt::format("${}", ++n);
    else out += c;
  }
  return out;
}

std::string as_text(const SqlValue& v) {
  if (const auto* n = std::get_if<std::int64_t>(&v)) return std::to_string(*n);
  if (const auto* d = std::get_if<double>(&v)) return fmt::format("{}", *d);
  return std::get<std::string>(v);
}

class PostgresConnection final : public SqlConnection {
 public:
  explicit PostgresConnection(const std::string& url) : location_(without_password(url)) {
    conn_ = pq_.PQconnectdb(url.c_str());
    if (pq_.PQstatus(conn_) != CONNECTION_OK) {
      const std::string why = pq_.PQerrorMessage(conn_);
      pq_.PQfinish(conn_);
      throw InputError(location_, 0, "", "cannot connect to the history database: " + trimmed(why));
    }
    pq_.PQsetNoticeProcessor(conn_, [](void*, const char*) {}, nullptr);
  }
  ~PostgresConnection() override { pq_.PQfinish(conn_); }

  SqlDialect dialect() const override { return SqlDialect::postgresql; }
  const std::string& location() const override { return location_; }

  void execute(std::string_view sql) override {
    PGresult* res = pq_.PQexec(conn_, std::string(sql).c_str());
    check(res);
    pq_.PQclear(res);
  }

  // Single-row mode: libpq hands the rows over one at a time instead of holding the whole result.
  void for_each_row(std::string_view sql, const std::vector<SqlValue>& params,
                    const std::function<void(const SqlRow&)>& take) override {
    std::vector<std::string> texts(params.size());
    std::vector<const char*> values(params.size(), nullptr);
    for (std::size_t i = 0; i < params.size(); ++i) {
      if (std::holds_alternative<std::monostate>(params[i])) continue;
      texts[i] = as_text(params[i]);
      values[i] = texts[i].c_str();
    }
    if (!pq_.PQsendQueryParams(conn_, numbered_parameters(sql).c_str(), static_cast<int>(values.size()), nullptr,
                           values.data(), nullptr, nullptr, 0)) {
      throw InputError(location_, 0, "", "history database: " + trimmed(pq_.PQerrorMessage(conn_)));
    }
    pq_.PQsetSingleRowMode(conn_);
    std::string failure;
    SqlRow row;
    while (PGresult* res = pq_.PQgetResult(conn_)) {  // read to the end, even after a failure
      const ExecStatusType status = pq_.PQresultStatus(res);
      if (status == PGRES_SINGLE_TUPLE && failure.empty()) {
        row.assign(static_cast<std::size_t>(pq_.PQnfields(res)), std::nullopt);
        for (int c = 0; c < pq_.PQnfields(res); ++c) {
          if (!pq_.PQgetisnull(res, 0, c)) row[c] = std::string(pq_.PQgetvalue(res, 0, c), pq_.PQgetlength(res, 0, c));
        }
        try {
          take(row);
        } catch (const std::exception& e) {
          failure = e.what();
        }
      } else if (status != PGRES_TUPLES_OK && status != PGRES_COMMAND_OK && status != PGRES_SINGLE_TUPLE &&
                 failure.empty()) {
        failure = "history database: " + trimmed(pq_.PQresultErrorMessage(res));
      }
      pq_.PQclear(res);
    }
    if (!failure.empty()) throw InputError(location_, 0, "", failure);
  }

  void begin_write() override { execute("BEGIN"); }
  void commit() override { execute("COMMIT"); }
  void rollback() noexcept override { pq_.PQclear(pq_.PQexec(conn_, "ROLLBACK")); }

 private:
  static std::string trimmed(std::string s) {
    while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
    return s;
  }

  void check(PGresult* res) const {
    const ExecStatusType status = pq_.PQresultStatus(res);
    if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) return;
    const std::string why = trimmed(res ? pq_.PQresultErrorMessage(res) : pq_.PQerrorMessage(conn_));
    pq_.PQclear(res);
    throw InputError(location_, 0, "", "history database: " + why);
  }

  std::string location_;
  const LibPq& pq_ = libpq();
  PGconn* conn_ = nullptr;
};

}  // namespace

std::unique_ptr<SqlConnection> open_postgresql_connection(const std::string& url) {
  return std::make_unique<PostgresConnection>(url);
}

}  // namespace caliber::history
