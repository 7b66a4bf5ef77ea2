// benchmark_summary.md: the headline reading of a multi-shape run (docs/reports.md).
#include <algorithm>
#include <map>
#include <ostream>
#include <set>

#include <fmt/format.h>

#include "report/benchmark_report.h"
#include "report/report_text.h"
#include "core/unit_text.h"

namespace caliber {
namespace {

namespace rt = report_text;
constexpr std::size_t kTopShapes = 5;

std::string model_of(const ShapeRow& s) { return s.model.value_or("-"); }

std::string join(const std::vector<std::string>& items, const std::string& sep = ", ") {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : sep) + s;
  return out;
}

// The distinct contracts of a role ("kernel_only" or "eager") over usable and unusable rows.
std::vector<std::string> contracts_of(const ComparisonSet& set, bool kernel_only) {
  std::vector<std::string> out;
  auto add = [&](const std::optional<BenchmarkResultRow>& row) {
    if (!row) return;
    const auto& m = kernel_only ? row->kernel_only : row->eager;
    if (!m) return;
    const std::string text = fmt::format("{} {}", to_string(m->contract.backend), rt::contract(m->contract));
    if (std::find(out.begin(), out.end(), text) == out.end()) out.push_back(text);
  };
  for (const auto& s : set.shapes) {
    add(s.candidate.row);
    for (const auto& b : s.baselines) add(b.row);
  }
  return out;
}

struct Split {
  std::vector<const ShapeRow*> shapes;
  std::vector<double> speedups;
};

void geomean_row(std::vector<std::vector<std::string>>& rows, const std::string& name, const Split& split) {
  const WeightedGeomean w = weighted_geometric_mean(split.shapes, split.speedups);
  std::string weighted = w.value ? fmt::format("{} (by {})", rt::speedup(w.value), w.weight_field) : w.not_available;
  std::optional<double> lo, hi;
  if (!split.speedups.empty()) {
    lo = *std::min_element(split.speedups.begin(), split.speedups.end());
    hi = *std::max_element(split.speedups.begin(), split.speedups.end());
  }
  rows.push_back({name, std::to_string(split.speedups.size()), split.speedups.empty() ? "n/a" : rt::speedup(geometric_mean(split.speedups)),
                  weighted, rt::speedup(lo), rt::speedup(hi)});
}

// The header's baselines: those compared, those wrong somewhere, those that are no baseline, the opaque ones.
void baselines(std::ostream& out, const ComparisonSet& set) {
  std::vector<std::string> names;
  for (const auto& b : set.baselines) names.push_back(set.provider_label(b));
  out << "- Baselines: " << (names.empty() ? "none" : join(names)) << '\n';
  for (const PartlyWrong& w : set.partly_wrong) {
    out << fmt::format("- Baseline {} is incorrect on {} of the {} shapes it ran: not compared there (its rows are "
                       "under Excluded rows)\n",
                       set.provider_label(w.provider), w.wrong, w.ran);
  }
  for (const NotBaseline& n : set.not_baselines) {
    out << fmt::format("- Not a baseline: {}, {}: excluded from every comparison (its rows are in the results "
                       "table and under Excluded rows)\n",
                       n.provider, n.reason);
  }
  if (!set.opaque_baselines.empty()) {
    out << "- Opaque baselines (the implementation that ran is not visible; their provider_detail says so): "
        << join(set.opaque_baselines) << '\n';
  }
}

void header(std::ostream& out, const BenchmarkReport& r) {
  const ComparisonSet& set = r.comparison;
  std::size_t hot = 0, rows = 0;
  std::string commit, harness;
  for (const auto& s : set.shapes) {
    hot += s.hot;
    if (s.candidate.row) {
      ++rows;
      if (commit.empty()) commit = s.candidate.row->candidate_commit;
      if (harness.empty()) harness = s.candidate.row->harness_version;
    }
    for (const auto& b : s.baselines) rows += b.row.has_value();
  }
  out << fmt::format("# Benchmark summary: {}, candidate `{}`\n\n", set.kernel_names(), set.candidate);
  out << fmt::format("- Shape ledger: `{}` ({} shapes, {} hot: model-derived)\n", r.sources.shape_ledger,
                     set.shapes.size(), hot);
  out << fmt::format("- Results: `{}` (run {}; {} cells with a row)\n", r.sources.results, join(set.run_ids), rows);
  out << "- Device: " << (r.device ? rt::device(*r.device) : std::string("unknown (no measurement)")) << '\n';
  out << fmt::format("- Candidate commit: {}; harness {}\n", commit.empty() ? "-" : commit, harness.empty() ? "-" : harness);
  out << "- Metric: kernel-only median (median_us); speedup = baseline_median / candidate_median "
         "(> 1: the candidate is faster)\n";
  const auto ko = contracts_of(set, true);
  const auto eager = contracts_of(set, false);
  out << "- Kernel-only contract: " << (ko.empty() ? "-" : join(ko, "; ")) << '\n';
  out << "- Eager contract: " << (eager.empty() ? "-" : join(eager, "; ")) << '\n';
  if (r.ceilings) {
    std::vector<std::string> parts;
    // A ceiling whose own measurement was unstable is still used, and says so.
    auto value = [](const Ceiling& c) {
      return format_rate(c.rate_per_s, c.unit) + (c.measurement && !c.measurement->stable ? " (unstable)" : "");
    };
    const Ceiling& bw = r.ceilings->memory_bandwidth;
    parts.push_back(bw.available ? "memory " + value(bw) : "memory n/a (" + bw.reason + ")");
    const Ceiling& cache = r.ceilings->cache_bandwidth;
    parts.push_back(cache.available ? "cache " + value(cache) : "cache n/a: " + cache.reason);
    for (const auto& [dtype, c] : r.ceilings->matmul) {
      parts.push_back(c.available ? fmt::format("matmul {} {}", dtype, value(c))
                                  : fmt::format("matmul {} n/a ({})", dtype, c.reason));
    }
    out << fmt::format("- Ceilings: {} (`{}`, measured {})\n", join(parts), r.sources.ceilings, r.ceilings->measured_at);
  } else {
    out << "- Ceilings: " << r.ceilings_note << '\n';
  }
  baselines(out, set);
  out << '\n';
}

// The results table: every row, shape x provider.
void results(std::ostream& out, const BenchmarkReport& r) {
  out << "## Results (shape x provider)\n\n";
  write_results_table_markdown(out, r.table);
}

void decision(std::ostream& out, const BenchmarkReport& r) {
  out << "## Decision\n\n";
  if (r.decision.verdict == Verdict::no_decision) {
    // Say what the report does decide before what it cannot.
    out << "Decided per shape: the results table above, the speedups vs best and vs each baseline, the geometric "
           "means, and the class of every shape below parity (below).\n\n";
    out << fmt::format("Not decided: promotion ({}, rule {}): {}.\n\n", to_string(r.decision.verdict),
                       r.decision.rule, r.decision.reason);
    return;
  }
  out << fmt::format("**{}** (rule {}): {}.\n\n", to_string(r.decision.verdict), r.decision.rule, r.decision.reason);
  for (const auto& g : r.decision.guardrails) out << "- Guardrail: " << g << '\n';
  if (!r.decision.guardrails.empty()) out << '\n';
  out << "Taken on hot (model-derived) shapes only; synthetic and diagnostic shapes are informative and never "
         "decide. Rules: docs/reports.md.";
  if (!r.comparison.opaque_baselines.empty()) {
    out << " Best-baseline comparisons include opaque baselines: " << join(r.comparison.opaque_baselines) << '.';
  }
  out << "\n\n";
}

void speedup_vs_best(std::ostream& out, const BenchmarkReport& r) {
  const ComparisonSet& set = r.comparison;
  out << "## Speedup vs best available (kernel-only)\n\n";
  std::vector<std::vector<std::string>> rows;
  for (std::size_t i = 0; i < set.shapes.size(); ++i) {
    const ShapeComparison& s = set.shapes[i];
    rows.push_back({s.shape.shape_id, model_of(s.shape), std::string(to_string(s.shape.stage)), s.label(),
                    s.candidate.usable() ? rt::us(s.candidate.kernel_only_us()) : "excluded",
                    s.candidate.row ? std::string(to_string(s.candidate.row->integrity.verdict())) : "-",
                    s.best_baseline ? set.provider_label(*s.best_baseline) : "-", rt::us(s.best_baseline_us),
                    rt::speedup(s.speedup_vs_best), std::string(to_string(r.shapes[i].classification.category))});
  }
  rt::markdown_table(out, {"shape", "model", "stage", "dtype args", "candidate us", "integrity", "best baseline",
                           "best us", "speedup vs best", "class"},
                     rows);
  out << '\n';
}

void speedup_vs_each(std::ostream& out, const BenchmarkReport& r) {
  const ComparisonSet& set = r.comparison;
  out << "## Speedup vs each baseline (kernel-only)\n\n";
  std::vector<std::string> head = {"shape", "dtype args"};
  for (const auto& b : set.baselines) head.push_back("vs " + set.provider_label(b));
  std::vector<std::vector<std::string>> rows;
  for (const auto& s : set.shapes) {
    std::vector<std::string> row = {s.shape.shape_id, s.label()};
    for (const auto& v : s.speedup_vs) row.push_back(rt::speedup(v));
    rows.push_back(row);
  }
  rt::markdown_table(out, head, rows);
  out << '\n';
}

void geomeans(std::ostream& out, const BenchmarkReport& r) {
  const ComparisonSet& set = r.comparison;
  out << "## Geometric means (kernel-only speedup)\n\n";
  out << "Over the shapes where both sides are usable. Weighted by the ledger's weights when every such shape "
         "has one (never a made-up weight).\n\n";
  const std::vector<std::string> head = {"against", "shapes", "unweighted", "weighted", "min", "max"};
  std::vector<std::vector<std::string>> rows;
  Split best, hot;
  for (const auto& s : set.shapes) {
    if (!s.speedup_vs_best) continue;
    best.shapes.push_back(&s.shape);
    best.speedups.push_back(*s.speedup_vs_best);
    if (s.hot) {
      hot.shapes.push_back(&s.shape);
      hot.speedups.push_back(*s.speedup_vs_best);
    }
  }
  geomean_row(rows, "best available (all shapes)", best);
  geomean_row(rows, "best available (hot shapes)", hot);
  for (std::size_t b = 0; b < set.baselines.size(); ++b) {
    Split split;
    for (const auto& s : set.shapes) {
      if (!s.speedup_vs[b]) continue;
      split.shapes.push_back(&s.shape);
      split.speedups.push_back(*s.speedup_vs[b]);
    }
    geomean_row(rows, set.provider_label(set.baselines[b]), split);
  }
  rt::markdown_table(out, head, rows);
  out << '\n';
}

void splits(std::ostream& out, const BenchmarkReport& r) {
  const ComparisonSet& set = r.comparison;
  const std::vector<std::string> head = {"", "shapes", "geomean vs best", "weighted", "min", "max"};
  // Stages in the ledger's enum order; models sorted, shapes without a model last.
  std::map<int, Split> stages;
  std::map<std::string, Split> models;
  Split no_model;
  for (const auto& s : set.shapes) {
    if (!s.speedup_vs_best) continue;
    Split& st = stages[static_cast<int>(s.shape.stage)];
    st.shapes.push_back(&s.shape);
    st.speedups.push_back(*s.speedup_vs_best);
    Split& m = s.shape.model ? models[*s.shape.model] : no_model;
    m.shapes.push_back(&s.shape);
    m.speedups.push_back(*s.speedup_vs_best);
  }
  out << "## Per stage (kernel-only speedup vs best)\n\n";
  std::vector<std::vector<std::string>> rows;
  for (const auto& [stage, split] : stages) {
    geomean_row(rows, std::string(to_string(static_cast<Stage>(stage))), split);
  }
  std::vector<std::string> h = head;
  h[0] = "stage";
  rt::markdown_table(out, h, rows);
  out << "\n## Per model (kernel-only speedup vs best)\n\n";
  rows.clear();
  for (const auto& [model, split] : models) geomean_row(rows, model, split);
  if (!no_model.speedups.empty()) geomean_row(rows, "(no model)", no_model);
  h[0] = "model";
  rt::markdown_table(out, h, rows);
  out << '\n';
}

void wins_and_regressions(std::ostream& out, const BenchmarkReport& r) {
  const ComparisonSet& set = r.comparison;
  std::vector<const ShapeComparison*> wins, losses;
  for (const auto& s : set.shapes) {
    if (!s.speedup_vs_best) continue;
    if (*s.speedup_vs_best > 1) wins.push_back(&s);
    if (*s.speedup_vs_best < 1) losses.push_back(&s);
  }
  std::stable_sort(wins.begin(), wins.end(), [](auto* a, auto* b) { return *a->speedup_vs_best > *b->speedup_vs_best; });
  std::stable_sort(losses.begin(), losses.end(), [](auto* a, auto* b) { return *a->speedup_vs_best < *b->speedup_vs_best; });
  auto table = [&](const char* title, const std::vector<const ShapeComparison*>& list) {
    out << fmt::format("## {} (up to {})\n\n", title, kTopShapes);
    std::vector<std::vector<std::string>> rows;
    for (std::size_t i = 0; i < list.size() && i < kTopShapes; ++i) {
      const ShapeComparison& s = *list[i];
      rows.push_back({s.shape.shape_id, s.label(), std::string(to_string(s.shape.stage)), model_of(s.shape),
                      rt::speedup(s.speedup_vs_best), set.provider_label(*s.best_baseline)});
    }
    rt::markdown_table_or(out, {"shape", "dtype args", "stage", "model", "speedup vs best", "best baseline"}, rows, "None.");
  };
  table("Top wins", wins);
  table("Top regressions", losses);
}

void eager_view(std::ostream& out, const BenchmarkReport& r) {
  const ComparisonSet& set = r.comparison;
  out << "## Eager view (host overhead)\n\n";
  out << "Host overhead = eager median - kernel-only median of the candidate; the eager verdict is separate from "
         "the kernel-only class.\n\n";
  std::vector<std::vector<std::string>> rows;
  for (std::size_t i = 0; i < set.shapes.size(); ++i) {
    const ShapeComparison& s = set.shapes[i];
    const auto& row = s.candidate.row;
    if (!row || row->benchmark_status != BenchmarkStatus::ok || !row->eager_median_us) continue;
    rows.push_back({s.shape.shape_id, s.label(), rt::us(row->median_us), rt::us(row->eager_median_us),
                    rt::us(row->host_overhead_us), rt::percent(r.shapes[i].host_overhead_share),
                    rt::speedup(s.eager_speedup_vs_best),
                    r.shapes[i].eager_verdict.empty() ? "-" : r.shapes[i].eager_verdict});
  }
  rt::markdown_table_or(out, {"shape", "dtype args", "kernel-only us", "eager us", "host overhead us", "host share",
                              "eager speedup vs best", "eager verdict"},
                        rows, "No eager measurement of the candidate.");
}

void classified(std::ostream& out, const BenchmarkReport& r, bool hot) {
  const ComparisonSet& set = r.comparison;
  out << (hot ? "## Hot shapes below parity or without a trusted comparison\n\n"
              : "## Other shapes below parity or without a trusted comparison (synthetic or diagnostic: "
                "informative, never decide)\n\n");
  std::vector<std::vector<std::string>> rows;
  for (std::size_t i = 0; i < set.shapes.size(); ++i) {
    const ShapeComparison& s = set.shapes[i];
    const Classification& c = r.shapes[i].classification;
    if (s.hot != hot || c.category == Bottleneck::ok) continue;
    rows.push_back({s.shape.shape_id, s.label(), std::string(to_string(s.shape.stage)), rt::speedup(s.speedup_vs_best),
                    std::string(to_string(c.category)), c.rule, c.evidence, c.likely_fix});
  }
  rt::markdown_table_or(out, {"shape", "dtype args", "stage", "speedup vs best", "class", "rule", "evidence", "likely fix"},
                        rows, "None.");
}

void profiler_candidates(std::ostream& out, const BenchmarkReport& r) {
  const ComparisonSet& set = r.comparison;
  out << fmt::format("## Profiler candidates (hot, kernel-only speedup vs best < {:.2f})\n\n", kProfilerSpeedup);
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> commands;
  for (std::size_t i = 0; i < set.shapes.size(); ++i) {
    const ShapeComparison& s = set.shapes[i];
    if (!s.profiler_candidate()) continue;
    const auto& p = r.shapes[i].profile;
    rows.push_back({s.shape.shape_id, s.label(), rt::speedup(s.speedup_vs_best),
                    p ? p->summary_line() : "not run"});
    if (!p || p->status != "profiled") {
      commands.push_back(fmt::format("caliber profile --op {} --shape-id {} --provider {} --shape-ledger {} "
                                     "--baseline-matrix {} --out {}",
                                     s.shape.op_type, s.shape.shape_id, set.candidate, r.sources.shape_ledger,
                                     r.sources.baseline_matrix, r.sources.profiles));
    }
  }
  if (rows.empty()) {
    out << "None.\n\n";
    return;
  }
  rt::markdown_table(out, {"shape", "dtype args", "speedup vs best", "profile"}, rows);
  if (!commands.empty()) {
    out << "\nTo profile (or retry) a candidate cell:\n\n```\n";
    for (const auto& c : commands) out << c << '\n';
    out << "```\n";
  }
  out << '\n';
}

// Every cupti measurement: CUPTI's median against the same call under events with tracing off.
void perturbation(std::ostream& out, const BenchmarkReport& r) {
  if (r.perturbation.empty()) return;
  out << "## Instrument perturbation (cupti against events, tracing off)\n\n";
  out << "Each cupti measurement was repeated under events with CUPTI's tracing off (same schedule and cache "
         "policy). Applied: the value reported is the events' (docs/cupti.md, Perturbation).\n\n";
  std::vector<std::vector<std::string>> rows;
  for (const PerturbationLine& l : r.perturbation) {
    const InstrumentPerturbation& p = l.perturbation;
    rows.push_back({l.shape_id, l.shape, l.provider, l.measurement, p.measured ? rt::us(p.cupti_median_us) : "-",
                    p.measured ? rt::us(p.event_median_us) : "-",
                    p.measured ? fmt::format("{:+.3f} us ({:+.2f}%)", p.delta_us, p.delta_pct) : "-",
                    p.applied ? "yes" : "no", rt::markdown_cell(p.reason)});
  }
  rt::markdown_table(out, {"shape", "dtype args", "provider", "measurement", "cupti us", "events us", "perturbation", "applied", "why"},
                     rows);
  out << '\n';
}

void excluded(std::ostream& out, const BenchmarkReport& r) {
  const ComparisonSet& set = r.comparison;
  out << "## Excluded rows (listed, never averaged in)\n\n";
  std::vector<std::vector<std::string>> rows;
  auto add = [&](const ShapeComparison& s, const ProviderCell& c) {
    if (!c.row || c.usable()) return;
    rows.push_back({s.shape.shape_id, s.label(), set.provider_label(c.provider),
                    std::string(to_string(c.row->benchmark_status)),
                    c.row->correct ? (*c.row->correct ? "true" : "false") : "-",
                    std::string(to_string(c.row->integrity.verdict())), c.exclusion});
  };
  for (const auto& s : set.shapes) {
    for (const ProviderCell* c : s.cells()) add(s, *c);
  }
  rt::markdown_table_or(out, {"shape", "dtype args", "provider", "status", "correct", "integrity", "why excluded"}, rows, "None.");
  if (!set.superseded_cells.empty()) {
    out << "Cells measured by more than one run (the last row in the file is used): "
        << join(set.superseded_cells) << ".\n\n";
  }
}

}  // namespace

void write_benchmark_summary(std::ostream& out, const BenchmarkReport& r) {
  header(out, r);
  results(out, r);
  decision(out, r);
  speedup_vs_best(out, r);
  speedup_vs_each(out, r);
  geomeans(out, r);
  splits(out, r);
  wins_and_regressions(out, r);
  eager_view(out, r);
  classified(out, r, /*hot=*/true);
  profiler_candidates(out, r);
  classified(out, r, /*hot=*/false);
  perturbation(out, r);
  excluded(out, r);
  out << "Coverage of every shape x provider cell: coverage_matrix.md. Charts: report.html.\n";
}

}  // namespace caliber
