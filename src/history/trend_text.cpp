// Trends as text and JSON (history/trend_render.h).
#include <ostream>

#include <fmt/format.h>

#include "history/trend_render.h"

namespace caliber::history {
namespace {

std::string us(double v) { return fmt::format("{:.4g} us", v); }

std::string interval_text(const StoredPoint& p) {
  if (!p.ci_low_us || !p.ci_high_us) return "";
  return fmt::format(" [{:.4g}, {:.4g}]", *p.ci_low_us, *p.ci_high_us);
}

std::string short_commit(const std::string& c) { return c.size() > 12 ? c.substr(0, 12) : c; }

void write_change(std::ostream& out, const SeriesTrend& t, const TrendChange& c, const History& h) {
  const StoredRun& before = h.run_of(t.series->points[c.before]);
  const StoredRun& after = h.run_of(t.series->points[c.after]);
  out << fmt::format("  change at point {} ({}): {} {:+.1f}% ({} -> {}), p = {:.3g}\n", c.point.index + 1,
                     after.date, c.direction, 100 * c.point.relative, us(c.point.before), us(c.point.after),
                     c.point.p_value);
  out << fmt::format("    commits {}..{} (last before, first after)\n", short_commit(before.commit),
                     short_commit(after.commit));
  out << "    reproduce before: " << c.reproduce_before << "\n";
  out << "    reproduce after:  " << c.reproduce_after << "\n";
}

nlohmann::json optional_json(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); }

nlohmann::json point_json(const StoredPoint& p, const History& h) {
  const StoredRun& r = h.run_of(p);
  return {{"run", p.run},          {"run_id", r.run_id},       {"date", r.date},
          {"commit", r.commit},    {"device", r.device},       {"value_us", optional_json(p.value_us)},
          {"ci_low_us", optional_json(p.ci_low_us)},           {"ci_high_us", optional_json(p.ci_high_us)},
          {"samples", p.samples},  {"status", p.status},       {"integrity", p.integrity},
          {"unstable", p.unstable}};
}

nlohmann::json change_json(const SeriesTrend& t, const TrendChange& c, const History& h) {
  const StoredRun& before = h.run_of(t.series->points[c.before]);
  const StoredRun& after = h.run_of(t.series->points[c.after]);
  return {{"index", c.after},
          {"direction", c.direction},
          {"relative_pct", 100 * c.point.relative},
          {"before_us", c.point.before},
          {"after_us", c.point.after},
          {"p_value", c.point.p_value},
          {"statistic", c.point.statistic},
          {"commits", {{"last_before", before.commit}, {"first_after", after.commit}}},
          {"dates", {{"last_before", before.date}, {"first_after", after.date}}},
          {"reproduce", {{"before", c.reproduce_before}, {"after", c.reproduce_after}}}};
}

}  // namespace

void write_trend_text(std::ostream& out, const Trends& trends, const History& h) {
  out << "change points: " << method_text(trends.settings) << "\n";
  for (const SeriesTrend& t : trends.series) {
    const StoredSeries& s = *t.series;
    out << fmt::format("\nseries {}: {} {}\n", s.id, s.record.label, s.record.arch);
    if (!t.new_series_because.empty()) out << "  new series: " << t.new_series_because << "\n";
    if (s.points.empty()) continue;
    const StoredPoint& last = s.points.back();
    out << fmt::format("  {} points ({} measured), {} .. {}; last {}{} at {}\n", s.points.size(), t.values.size(),
                       h.run_of(s.points.front()).date, h.run_of(last).date,
                       last.value_us ? us(*last.value_us) : last.status, interval_text(last),
                       short_commit(h.run_of(last).commit));
    if (t.changes.empty()) out << "  no change point\n";
    for (const TrendChange& c : t.changes) write_change(out, t, c, h);
  }
}

nlohmann::json trend_json(const Trends& trends, const History& h) {
  nlohmann::json series = nlohmann::json::array();
  for (const SeriesTrend& t : trends.series) {
    const StoredSeries& s = *t.series;
    nlohmann::json points = nlohmann::json::array(), changes = nlohmann::json::array();
    for (const StoredPoint& p : s.points) points.push_back(point_json(p, h));
    for (const TrendChange& c : t.changes) changes.push_back(change_json(t, c, h));
    series.push_back({{"id", s.id}, {"name", s.record.name}, {"params", nlohmann::json::parse(s.record.params)},
                      {"arch", s.record.arch}, {"contract", nlohmann::json::parse(s.record.contract)},
                      {"identity_key", s.record.identity_key}, {"label", s.record.label},
                      {"new_series_because", t.new_series_because}, {"points", points}, {"changes", changes}});
  }
  return {{"kind", "caliber.history.trend"},
          {"schema_version", 1},
          {"method", method_text(trends.settings)},
          {"alpha", trends.settings.alpha},
          {"permutations", trends.settings.permutations},
          {"min_segment", trends.settings.min_segment},
          {"series", series}};
}

}  // namespace caliber::history
