// Adding runs to the history and reading its series back (history/history_store.h).
#include "history/history_store.h"

#include <fnmatch.h>

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "core/utc_time.h"
#include "history/history_schema.h"

namespace caliber::history {
namespace {

constexpr std::size_t kPointsPerInsert = 400;  // 4,000 parameters a statement: under both limits
constexpr const char* kPointColumns =
    "(series, run, value_us, ci_low_us, ci_high_us, samples, status, integrity, unstable)";

SqlValue optional_value(const std::optional<double>& v) {
  return v ? SqlValue{*v} : SqlValue{};
}

std::optional<double> optional_double(const std::optional<std::string>& column) {
  if (!column) return std::nullopt;
  return std::stod(*column);
}

std::int64_t as_id(const std::optional<std::string>& column) { return std::stoll(text_or(column, "0")); }

StoredPoint stored_point(const SqlRow& r) {
  StoredPoint p;
  p.run = as_id(r[1]);
  p.value_us = optional_double(r[2]);
  p.ci_low_us = optional_double(r[3]);
  p.ci_high_us = optional_double(r[4]);
  p.samples = as_id(r[5]);
  p.status = text_or(r[6]);
  p.integrity = text_or(r[7]);
  p.unstable = text_or(r[8]);
  return p;
}

StoredRun stored_run(const SqlRow& r) {
  return {as_id(r[0]), text_or(r[1]), text_or(r[2]), text_or(r[3]),
          text_or(r[4]), text_or(r[5]), text_or(r[6]), text_or(r[7])};
}

constexpr const char* kPointQuery =
    "SELECT p.series, p.run, p.value_us, p.ci_low_us, p.ci_high_us, p.samples, p.status, p.integrity, "
    "p.unstable FROM points p";

bool selected(const StoredSeries& s, const SeriesFilter& f) {
  if (!f.name_glob.empty() && ::fnmatch(f.name_glob.c_str(), s.record.name.c_str(), 0) != 0) return false;
  if (!f.arch.empty() && s.record.arch != f.arch) return false;
  if (!f.ids.empty() && std::find(f.ids.begin(), f.ids.end(), s.id) == f.ids.end()) return false;
  return true;
}

}  // namespace

HistoryStore::HistoryStore(const std::string& location) : HistoryStore(open_sql_connection(location)) {}

HistoryStore::HistoryStore(std::unique_ptr<SqlConnection> db) : db_(std::move(db)) { migrate_history(*db_); }

std::int64_t HistoryStore::series_id(const SeriesRecord& s, std::size_t& new_series) {
  auto inserted = db_->query(
      "INSERT INTO series (series_key, name, params, arch, contract, identity_key, label) "
      "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (series_key) DO NOTHING RETURNING id",
      {s.key, s.name, s.params, s.arch, s.contract, s.identity_key, s.label});
  if (!inserted.empty()) {
    ++new_series;
    return as_id(inserted[0][0]);
  }
  return as_id(db_->query("SELECT id FROM series WHERE series_key = ?", {s.key}).at(0)[0]);
}

void HistoryStore::insert_points(std::int64_t run,
                                 const std::vector<std::pair<std::int64_t, const PointRecord*>>& points) {
  for (std::size_t at = 0; at < points.size(); at += kPointsPerInsert) {
    const std::size_t end = std::min(points.size(), at + kPointsPerInsert);
    std::string sql = fmt::format("INSERT INTO points {} VALUES ", kPointColumns);
    std::vector<SqlValue> params;
    params.reserve((end - at) * 9);
    for (std::size_t i = at; i < end; ++i) {
      const PointRecord& p = *points[i].second;
      sql += i == at ? "(?, ?, ?, ?, ?, ?, ?, ?, ?)" : ", (?, ?, ?, ?, ?, ?, ?, ?, ?)";
      params.insert(params.end(), {points[i].first, run, optional_value(p.value_us), optional_value(p.ci_low_us),
                                   optional_value(p.ci_high_us), p.samples, p.status, p.integrity, p.unstable});
    }
    db_->query(sql + " ON CONFLICT DO NOTHING", params);
  }
}

AddResult HistoryStore::add(const RunRecord& run) {
  AddResult result;
  Transaction tx(*db_);
  const auto inserted = db_->query(
      "INSERT INTO runs (run_key, run_id, format, source, commit_rev, commit_source, run_date, added_at, device, "
      "arch, hostname, command, identity_key, identity_fields) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
      "ON CONFLICT (run_key) DO NOTHING RETURNING id",
      {run.run_key, run.run_id, run.format, run.source, run.commit, run.commit_source, run.date, utc_timestamp_now(),
       run.device, run.arch, run.hostname, run.command, run.identity_key, run.identity_fields});
  if (inserted.empty()) {  // stored before: the transaction wrote nothing
    result.run = as_id(db_->query("SELECT id FROM runs WHERE run_key = ?", {run.run_key}).at(0)[0]);
    return result;
  }
  result.added = true;
  result.run = as_id(inserted[0][0]);
  const std::map<std::string, std::int64_t> ids = series_ids(run, result.new_series);
  std::vector<std::pair<std::int64_t, const PointRecord*>> points;
  for (const PointRecord& p : run.points) points.emplace_back(ids.at(p.series.key), &p);
  insert_points(result.run, points);
  tx.commit();
  known_series_.insert(ids.begin(), ids.end());  // only once committed: a rolled-back series is gone
  result.points = points.size();
  return result;
}

std::map<std::string, std::int64_t> HistoryStore::series_ids(const RunRecord& run, std::size_t& new_series) {
  std::map<std::string, std::int64_t> ids;
  std::vector<const SeriesRecord*> unknown;
  for (const PointRecord& p : run.points) {
    if (ids.count(p.series.key)) continue;
    const auto known = known_series_.find(p.series.key);
    ids[p.series.key] = known == known_series_.end() ? 0 : known->second;
    if (known == known_series_.end()) unknown.push_back(&p.series);
  }
  // The series stored already, looked up many at a time; the rest are inserted one by one.
  for (std::size_t at = 0; at < unknown.size(); at += kPointsPerInsert) {
    const std::size_t end = std::min(unknown.size(), at + kPointsPerInsert);
    std::string sql = "SELECT series_key, id FROM series WHERE series_key IN (";
    std::vector<SqlValue> keys;
    for (std::size_t i = at; i < end; ++i) {
      sql += i == at ? "?" : ", ?";
      keys.emplace_back(unknown[i]->key);
    }
    db_->for_each_row(sql + ")", keys, [&](const SqlRow& r) { ids[text_or(r[0])] = as_id(r[1]); });
  }
  for (const SeriesRecord* s : unknown) {
    if (ids[s->key] == 0) ids[s->key] = series_id(*s, new_series);
  }
  return ids;
}

std::size_t HistoryStore::run_count() {
  return static_cast<std::size_t>(as_id(db_->query("SELECT COUNT(*) FROM runs").at(0)[0]));
}

void HistoryStore::read_points(History& h) {
  std::map<std::int64_t, StoredSeries*> by_id;
  for (StoredSeries& s : h.series) by_id[s.id] = &s;
  const std::size_t total = as_id(db_->query("SELECT COUNT(*) FROM series").at(0)[0]);
  std::string where;
  std::vector<SqlValue> ids;
  if (h.series.size() * 4 < total && h.series.size() <= kPointsPerInsert) {  // a few series: only theirs
    for (const StoredSeries& s : h.series) {
      where += ids.empty() ? " WHERE p.series IN (?" : ", ?";
      ids.emplace_back(s.id);
    }
    where += ids.empty() ? " WHERE 1 = 0" : ")";
  }
  db_->for_each_row(std::string(kPointQuery) + where, ids, [&](const SqlRow& r) {
    if (auto it = by_id.find(as_id(r[0])); it != by_id.end()) it->second->points.push_back(stored_point(r));
  });
}

History HistoryStore::read(const SeriesFilter& filter) {
  History h;
  db_->for_each_row("SELECT id, series_key, name, params, arch, contract, identity_key, label FROM series ORDER BY id",
                    {}, [&](const SqlRow& r) {
                      StoredSeries s;
                      s.id = as_id(r[0]);
                      s.record = {text_or(r[1]), text_or(r[2]), text_or(r[3]), text_or(r[4]),
                                  text_or(r[5]), text_or(r[6]), text_or(r[7])};
                      if (selected(s, filter)) h.series.push_back(std::move(s));
                    });
  std::map<std::int64_t, StoredRun> all_runs;
  db_->for_each_row("SELECT id, run_date, commit_rev, device, source, command, run_id, identity_fields FROM runs", {},
                    [&](const SqlRow& r) { all_runs.emplace(as_id(r[0]), stored_run(r)); });
  read_points(h);
  for (StoredSeries& s : h.series) {
    // By run date, then by the order the runs were added.
    std::sort(s.points.begin(), s.points.end(), [&](const StoredPoint& a, const StoredPoint& b) {
      const std::string& da = all_runs.at(a.run).date;
      const std::string& db = all_runs.at(b.run).date;
      return da != db ? da < db : a.run < b.run;
    });
    if (filter.last > 0 && s.points.size() > filter.last) {
      s.points.erase(s.points.begin(), s.points.end() - static_cast<std::ptrdiff_t>(filter.last));
    }
    for (const StoredPoint& p : s.points) h.runs.emplace(p.run, all_runs.at(p.run));
  }
  return h;
}

}  // namespace caliber::history
