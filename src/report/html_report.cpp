// report.html: one self-contained page (inline CSS and SVG, no script, no network: a Content
// Security Policy forbids every fetch). Charts (report/html_charts.h): kernel-only speedup per
// shape, a roofline against the device's measured ceilings, latency distributions per provider;
// then the coverage grid and the classification; each with its contract beside it.
// docs/reports.md explains why the charts are SVG written by caliber.
#include <ostream>

#include <fmt/format.h>

#include "report/benchmark_report.h"
#include "caliber/config.h"
#include "report/html_charts.h"
#include "report/report_text.h"

namespace caliber {
namespace {

namespace rt = report_text;
using rt::html;
using html_charts::aside;
using html_charts::all_cells;
using html_charts::contract_lines;
using html_charts::status_text;

const char* kStyle = R"(
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:24px;color:#1a1a1a;max-width:1500px}
h1{font-size:22px;margin-bottom:4px}h2{font-size:18px;margin-top:32px;border-bottom:1px solid #ddd}
h3{font-size:14px;margin:0 0 6px 0}
.decision{font-size:16px;padding:8px 12px;border-left:4px solid #0072B2;background:#f3f7fb}
.meta{font-size:13px;color:#333}
figure.chart{display:flex;gap:16px;align-items:flex-start;margin:12px 0;flex-wrap:wrap}
figure.chart .plot{overflow-x:auto;max-width:1100px}
aside.contract{font-size:12px;overflow-wrap:anywhere;background:#fafafa;border:1px solid #ddd;padding:8px 10px;max-width:360px;min-width:240px}
aside.contract ul{margin:0;padding-left:16px}
.chart-svg{font-size:11px;background:#fff}
.chart-svg .axis{stroke:#333;stroke-width:1}.chart-svg .grid{stroke:#e5e5e5;stroke-width:1}
.chart-svg .tick{fill:#333}.chart-svg .axis-label{fill:#111;font-size:12px}
.chart-svg .parity{stroke:#444;stroke-dasharray:4 3}.chart-svg .roof{fill:none;stroke:#D55E00;stroke-width:2}
.chart-svg .roof-label{fill:#D55E00}.chart-svg .box{fill-opacity:0.25;stroke-width:1.5}
.chart-svg .sample{fill-opacity:0.45}.chart-svg .point{fill-opacity:0.85}.chart-svg .best{fill:none!important;stroke-width:2}
.chart-svg .note{fill:#a00}
ul.legend{list-style:none;padding:0;margin:6px 0;font-size:12px;display:flex;gap:14px;flex-wrap:wrap}
ul.legend span.swatch{display:inline-block;width:10px;height:10px;margin-right:4px;border-radius:2px}
table{border-collapse:collapse;font-size:12px;margin:8px 0}
th,td{border:1px solid #ddd;padding:3px 6px;text-align:left;vertical-align:top}
th{background:#f3f3f3}
td.status-ok{background:#d9f2e3}td.status-ok-unstable{background:#fff1c2}td.status-incorrect{background:#f9d0d0}
td.status-failed,td.status-oom,td.status-faster_than_physical{background:#f4b6b6}
td small.integrity,td small.config{display:block;color:#555}td.status-unsupported{background:#e6e6e6}
td.status-skipped{background:#eeeeee}td.status-not_configured{background:#dde3ee}td.status-missing{background:#ffffff;color:#a00}
)";

std::string status_class(const std::string& text) {
  return text == "ok (unstable)" ? "status-ok-unstable" : "status-" + text;
}

// The config a provider chose (docs/runner.md, "Configs recorded and replayed"), under the cell's
// status: "config panels of 128 columns (replayed from run R)", its description (else its key)
// shown, the key and the description on hover. Empty for a provider that chooses none.
std::string config_line(const BenchmarkResultRow& row) {
  if (!row.config) return "";
  const ProviderConfig& c = *row.config;
  const std::string pinning =
      c.pinning == ConfigPinning::replayed ? "replayed from run " + c.source : std::string(to_string(c.pinning));
  const std::string hover = c.description.empty() ? "key " + c.key : fmt::format("key {}: {}", c.key, c.description);
  return fmt::format("<small class=\"config\" title=\"{}\">config {} ({})</small>", html(hover),
                     html(c.description.empty() ? c.key : c.description), html(pinning));
}

void coverage_grid(std::ostream& out, const BenchmarkReport& r) {
  const ComparisonSet& set = r.comparison;
  out << "<figure class=\"chart\" id=\"coverage-grid\"><div class=\"plot\"><table class=\"coverage\"><tr><th>#</th>"
         "<th>shape</th><th>model</th><th>stage</th><th>dtype args</th>";
  out << "<th>" << html(set.candidate) << " (candidate)</th>";
  for (const auto& b : set.baselines) out << "<th>" << html(set.provider_label(b)) << "</th>";
  for (const auto& n : set.not_baselines) out << "<th>" << html(set.provider_label(n.provider)) << "</th>";
  out << "</tr>\n";
  // The status, below it what was verified (docs/integrity.md) and the config the provider chose.
  auto cell = [&](const ProviderCell& c) {
    const std::string text = status_text(c);
    std::string why = c.usable() ? "" : c.exclusion;
    std::string integrity;
    if (c.row) {
      integrity = std::string(to_string(c.row->integrity.verdict()));
      const std::string failure = c.row->integrity.first_failure();
      if (!failure.empty() && why.find(failure) == std::string::npos) why += (why.empty() ? "" : "; ") + failure;
    }
    return fmt::format("<td class=\"{}\"{}>{}{}{}</td>", status_class(text), why.empty() ? "" : " title=\"" + html(why) + "\"",
                       html(text), integrity.empty() ? "" : "<small class=\"integrity\">" + html(integrity) + "</small>",
                       c.row ? config_line(*c.row) : std::string());
  };
  for (std::size_t i = 0; i < set.shapes.size(); ++i) {
    const auto& s = set.shapes[i];
    out << fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>", i + 1,
                       html(s.shape.shape_id), html(s.shape.model.value_or("-")), to_string(s.shape.stage),
                       html(s.label()));
    for (const ProviderCell* c : s.cells()) out << cell(*c);
    out << "</tr>\n";
  }
  out << "</table></div>\n";
  std::string ids;
  for (const auto& id : set.run_ids) ids += (ids.empty() ? "" : ", ") + id;
  std::vector<std::string> extra = {
      "runs: " + ids,
      "hover a cell for why it is not used in speedups; under each status: its integrity verdict "
      "(docs/integrity.md) and, for a provider that chooses one, its config (recorded, replayed or chosen "
      "afresh: docs/runner.md)"};
  const auto eager = contract_lines(set, all_cells(set), false);
  for (const auto& e : eager) extra.push_back("eager " + e);
  out << aside(r, contract_lines(set, all_cells(set), true), "kernel-only", extra);
  out << "</figure>\n";
}

void perturbation_table(std::ostream& out, const BenchmarkReport& r) {
  out << "<table id=\"perturbation-table\"><tr><th>shape</th><th>dtype args</th><th>provider</th><th>measurement</th><th>cupti us</th>"
         "<th>events us (tracing off)</th><th>perturbation</th><th>applied</th><th>why</th></tr>\n";
  for (const PerturbationLine& l : r.perturbation) {
    const InstrumentPerturbation& p = l.perturbation;
    out << fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
                       html(l.shape_id), html(l.shape), html(l.provider), l.measurement,
                       p.measured ? rt::us(p.cupti_median_us) : "-", p.measured ? rt::us(p.event_median_us) : "-",
                       p.measured ? fmt::format("{:+.3f} us ({:+.2f}%)", p.delta_us, p.delta_pct) : "-",
                       p.applied ? "yes" : "no", html(p.reason));
  }
  out << "</table>\n";
}

void classification_table(std::ostream& out, const BenchmarkReport& r) {
  const ComparisonSet& set = r.comparison;
  out << "<table id=\"classification-table\"><tr><th>#</th><th>shape</th><th>dtype args</th><th>stage</th><th>hot</th>"
         "<th>speedup vs best</th><th>class</th><th>rule</th><th>evidence</th><th>likely fix</th><th>eager verdict</th>"
         "<th>profile</th></tr>\n";
  for (std::size_t i = 0; i < set.shapes.size(); ++i) {
    const auto& s = set.shapes[i];
    const ShapeReport& sr = r.shapes[i];
    const Classification& c = sr.classification;
    out << fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
                       "<td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
                       i + 1, html(s.shape.shape_id), html(s.label()), to_string(s.shape.stage), s.hot ? "yes" : "no",
                       rt::speedup(s.speedup_vs_best), to_string(c.category), c.rule, html(c.evidence), html(c.likely_fix),
                       sr.eager_verdict.empty() ? "-" : sr.eager_verdict,
                       sr.profile ? html(sr.profile->summary_line()) : (s.profiler_candidate() ? "candidate, not run" : "-"));
  }
  out << "</table>\n";
}

}  // namespace

void write_html_report(std::ostream& out, const BenchmarkReport& r) {
  const ComparisonSet& set = r.comparison;
  const std::string kernel_list = set.kernel_names();
  const std::string title = fmt::format("caliber report: {}, candidate {}", kernel_list, set.candidate);
  out << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
         "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      << "<title>" << html(title) << "</title>\n<style>" << kStyle << "</style></head>\n<body>\n";
  out << "<h1>" << html(title) << "</h1>\n";
  out << fmt::format("<p class=\"decision\" id=\"decision\">Decision: <b>{}</b> (rule {}): {}.</p>\n",
                     to_string(r.decision.verdict), r.decision.rule, html(r.decision.reason));
  if (!r.decision.guardrails.empty()) {
    out << "<ul>";
    for (const auto& g : r.decision.guardrails) out << "<li>Guardrail: " << html(g) << "</li>";
    out << "</ul>\n";
  }
  out << "<ul class=\"meta\">";
  out << "<li>shape ledger: " << html(r.sources.shape_ledger) << "; results: " << html(r.sources.results) << "</li>";
  out << "<li>device: " << (r.device ? html(rt::device(*r.device)) : "unknown") << "</li>";
  out << "<li>ceilings: "
      << (r.ceilings ? html(fmt::format("{} (measured {})", r.sources.ceilings, r.ceilings->measured_at))
                     : html(r.ceilings_note))
      << "</li>";
  if (!set.opaque_baselines.empty()) {
    std::string list;
    for (const auto& o : set.opaque_baselines) list += (list.empty() ? "" : ", ") + o;
    out << "<li>opaque baselines (implementation not visible): " << html(list) << "</li>";
  }
  for (const NotBaseline& n : set.not_baselines) {
    out << "<li>not a baseline: " << html(n.provider) << ", " << html(n.reason) << "</li>";
  }
  out << "<li>the decision is taken on hot (model-derived) shapes only; rules in docs/reports.md</li></ul>\n";
  out << "<p class=\"meta\">Charts: <a href=\"#speedup\">speedup</a> | <a href=\"#roofline\">roofline</a> | "
         "<a href=\"#latency\">latency distributions</a> | <a href=\"#coverage\">coverage</a> | "
         "<a href=\"#classification\">classification</a></p>\n";

  out << "<section id=\"speedup\"><h2>Kernel-only speedup per shape</h2>\n";
  html_charts::speedup_chart(out, r);
  out << "</section>\n<section id=\"roofline\"><h2>Roofline</h2>\n";
  html_charts::roofline_chart(out, r);
  out << "</section>\n<section id=\"latency\"><h2>Latency distributions per provider (kernel-only)</h2>\n";
  for (std::size_t i = 0; i < set.shapes.size(); ++i) html_charts::latency_chart(out, r, i);
  out << "</section>\n<section id=\"coverage\"><h2>Coverage</h2>\n";
  coverage_grid(out, r);
  out << "</section>\n<section id=\"classification\"><h2>Classification</h2>\n";
  classification_table(out, r);
  if (!r.perturbation.empty()) {
    out << "</section>\n<section id=\"perturbation\"><h2>Instrument perturbation (cupti against events, tracing "
           "off)</h2>\n";
    perturbation_table(out, r);
  }
  out << "</section>\n<footer class=\"meta\">caliber " << CALIBER_VERSION << "</footer>\n</body></html>\n";
}

}  // namespace caliber
