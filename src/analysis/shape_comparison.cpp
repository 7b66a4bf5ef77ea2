// Speedups of the candidate against each baseline and the best one, per ledger shape.
#include "analysis/shape_comparison.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>

#include "caliber/errors.h"

namespace caliber {
namespace {

std::string lowercase(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

std::string arg_text(const nlohmann::json& v) {
  if (v.is_string()) return v.get<std::string>();
  return v.dump();
}

}  // namespace

std::optional<double> ProviderCell::kernel_only_us() const {
  // A row timed eagerly because its kernel-only measurement failed (capture_failure) reports its
  // eager median as median_us: another quantity, never compared with a kernel-only one.
  if (!usable() || !row->kernel_only) return std::nullopt;
  return row->median_us;
}

std::optional<double> ProviderCell::eager_us() const {
  if (!usable() || !row->eager_median_us || !(*row->eager_median_us > 0)) return std::nullopt;
  return row->eager_median_us;
}

std::string args_label(const nlohmann::json& args) {
  std::string out;
  auto add = [&](const std::string& key, const nlohmann::json& value) {
    out += (out.empty() ? "" : " ") + key + "=" + arg_text(value);
  };
  if (!args.is_object()) return out;
  for (const char* key : {"m", "n", "k"}) {
    if (args.contains(key)) add(key, args.at(key));
  }
  for (const auto& [key, value] : args.items()) {
    if (key != "m" && key != "n" && key != "k" && key != "eps") add(key, value);
  }
  return out;
}

std::string shape_label_of_text(const std::string& dtype, const std::string& args_text) {
  return args_text.empty() ? dtype : dtype + " " + args_text;
}

std::string shape_label(const std::string& dtype, const nlohmann::json& args) {
  return shape_label_of_text(dtype, args_label(args));
}

std::string ShapeComparison::args_label() const { return caliber::args_label(shape.args); }

std::string ShapeComparison::label() const { return shape_label(std::string(to_string(shape.dtype)), shape.args); }

std::string ComparisonSet::kernel_names() const {
  std::set<std::string> names;
  for (const auto& s : shapes) names.insert(s.shape.kernel_name);
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

bool ComparisonSet::is_opaque(const std::string& provider) const {
  return std::find(opaque_baselines.begin(), opaque_baselines.end(), provider) != opaque_baselines.end();
}

bool ComparisonSet::is_not_baseline(const std::string& provider) const {
  return std::any_of(not_baselines.begin(), not_baselines.end(),
                     [&](const NotBaseline& n) { return n.provider == provider; });
}

std::string ComparisonSet::provider_label(const std::string& provider) const {
  if (is_not_baseline(provider)) return provider + " (not a baseline)";
  return is_opaque(provider) ? provider + " (opaque)" : provider;
}

std::vector<const ProviderCell*> ShapeComparison::cells() const {
  std::vector<const ProviderCell*> out = {&candidate};
  for (const ProviderCell& b : baselines) out.push_back(&b);
  for (const ProviderCell& n : not_baselines) out.push_back(&n);
  return out;
}

bool is_hot_shape(const ShapeRow& s) {
  return s.model.has_value() && s.stage != Stage::synthetic && s.stage != Stage::diagnostic &&
         s.source.kind != SourceKind::synthetic && s.source.kind != SourceKind::diagnostic;
}

bool is_opaque_detail(const std::string& detail) { return lowercase(detail).find("opaque") != std::string::npos; }

std::string row_reason(const BenchmarkResultRow& r) {
  std::string why = r.status_reason.value_or("");
  if (r.correctness_error && !r.correctness_error->empty() && why.find(*r.correctness_error) == std::string::npos) {
    why += (why.empty() ? "" : "; ") + *r.correctness_error;
  }
  return why;
}

std::string exclusion_reason(const BenchmarkResultRow& r) {
  if (r.benchmark_status != BenchmarkStatus::ok) {
    std::string why(to_string(r.benchmark_status));
    if (const std::string reason = row_reason(r); !reason.empty()) why += ": " + reason;
    return why;
  }
  if (r.correct != true) return "not verified correct";
  if (!r.median_us || !(*r.median_us > 0)) return "no positive kernel-only median";
  if (!r.stable) return "stability not recorded";
  if (!*r.stable) return "unstable: " + row_instability_reason(r);
  return "";
}

bool is_wrong_row(const BenchmarkResultRow& r) {
  return r.benchmark_status == BenchmarkStatus::incorrect || r.benchmark_status == BenchmarkStatus::faster_than_physical ||
         (r.benchmark_status == BenchmarkStatus::ok && r.correct == false);
}

bool ran_the_call(const BenchmarkResultRow& r) {
  return r.benchmark_status == BenchmarkStatus::ok || r.benchmark_status == BenchmarkStatus::incorrect ||
         r.benchmark_status == BenchmarkStatus::faster_than_physical;
}

namespace {

using CellRows = std::map<std::pair<std::string, std::string>, BenchmarkResultRow*>;  // (shape, provider)

// The last row (file order) of each (shape, provider) cell; in `set`, the runs, the baselines in
// order of appearance and the cells a later row superseded. InputError for a row whose shape is
// not in the ledger; UsageError when no row is the candidate's.
CellRows index_cells(ComparisonSet& set, const std::map<std::string, const ShapeRow*>& shapes,
                     std::vector<BenchmarkResultRow>& results, const std::string& candidate,
                     const std::string& results_file, const std::vector<long>& row_lines) {
  CellRows cells;
  bool candidate_seen = false;
  for (std::size_t i = 0; i < results.size(); ++i) {
    BenchmarkResultRow& r = results[i];
    if (!shapes.count(r.shape_id)) {
      throw InputError(results_file, i < row_lines.size() ? row_lines[i] : 0, "shape_id",
                       fmt::format("shape {} is not in the shape ledger (report a run with the ledger it ran)",
                                   r.shape_id));
    }
    if (std::find(set.run_ids.begin(), set.run_ids.end(), r.run_id) == set.run_ids.end()) {
      set.run_ids.push_back(r.run_id);
    }
    if (r.provider == candidate) {
      candidate_seen = true;
    } else if (std::find(set.baselines.begin(), set.baselines.end(), r.provider) == set.baselines.end()) {
      set.baselines.push_back(r.provider);
    }
    auto [it, inserted] = cells.emplace(std::make_pair(r.shape_id, r.provider), &r);
    if (!inserted) {
      const std::string cell = r.shape_id + " " + r.provider;
      if (std::find(set.superseded_cells.begin(), set.superseded_cells.end(), cell) == set.superseded_cells.end()) {
        set.superseded_cells.push_back(cell);
      }
      it->second = &r;
    }
  }
  if (!candidate_seen) {
    std::string providers;
    for (const auto& b : set.baselines) providers += (providers.empty() ? "" : ", ") + b;
    throw UsageError(fmt::format("--candidate {}: no row of the results has this provider (providers: {})",
                                 candidate, providers.empty() ? "none" : providers));
  }
  return cells;
}

// The cell of `provider` for a shape: its row is moved out of the results (a ledger has each shape
// once, so each row is taken once), and the results are held once, not twice.
ProviderCell cell_of(const CellRows& cells, const std::string& shape_id, const std::string& provider) {
  ProviderCell c;
  c.provider = provider;
  auto it = cells.find({shape_id, provider});
  if (it == cells.end()) {
    c.exclusion = "missing (no row in the results)";
  } else {
    c.row = std::move(*it->second);
    c.exclusion = exclusion_reason(*c.row);
  }
  return c;
}

// The baselines that are wrong wherever they ran leave the baselines for set.not_baselines; those
// wrong on some shapes are counted in set.partly_wrong (docs/reports.md, "Baselines").
void separate_wrong_providers(ComparisonSet& set, const CellRows& cells) {
  std::vector<std::string> kept;
  for (const std::string& b : set.baselines) {
    std::size_t ran = 0, wrong = 0;
    for (const auto& [key, row] : cells) {
      if (key.second != b || !ran_the_call(*row)) continue;
      ++ran;
      wrong += is_wrong_row(*row);
    }
    if (ran > 0 && wrong == ran) {
      set.not_baselines.push_back({b, fmt::format("incorrect on every shape it ran ({} of {})", wrong, ran)});
      continue;
    }
    if (wrong > 0) set.partly_wrong.push_back({b, wrong, ran});
    kept.push_back(b);
  }
  set.baselines = std::move(kept);
}

// One ledger shape: the candidate's cell, each baseline's with the candidate's speedup against
// it, and the best baseline, kernel-only and eager.
ShapeComparison compare_shape(const ComparisonSet& set, const CellRows& cells, const ShapeRow& s) {
  ShapeComparison sc;
  sc.shape = s;
  sc.hot = is_hot_shape(s);
  sc.candidate = cell_of(cells, s.shape_id, set.candidate);
  const std::optional<double> cand = sc.candidate.kernel_only_us();
  const std::optional<double> cand_eager = sc.candidate.eager_us();
  std::optional<double> best_eager_us;
  for (const std::string& b : set.baselines) {
    ProviderCell c = cell_of(cells, s.shape_id, b);
    const std::optional<double> t = c.kernel_only_us();
    sc.speedup_vs.push_back(t && cand ? std::optional<double>(*t / *cand) : std::nullopt);
    if (t && (!sc.best_baseline_us || *t < *sc.best_baseline_us)) {
      sc.best_baseline_us = t;
      sc.best_baseline = b;
    }
    const std::optional<double> e = c.eager_us();
    if (e && (!best_eager_us || *e < *best_eager_us)) {
      best_eager_us = e;
      sc.best_eager_baseline = b;
    }
    sc.baselines.push_back(std::move(c));
  }
  for (const NotBaseline& n : set.not_baselines) sc.not_baselines.push_back(cell_of(cells, s.shape_id, n.provider));
  if (cand && sc.best_baseline_us) sc.speedup_vs_best = *sc.best_baseline_us / *cand;
  if (cand_eager && best_eager_us) sc.eager_speedup_vs_best = *best_eager_us / *cand_eager;
  return sc;
}

}  // namespace

ComparisonSet compare_shapes(const std::vector<ShapeRow>& ledger, std::vector<BenchmarkResultRow> results,
                             const std::string& candidate, const std::string& results_file,
                             const std::vector<long>& row_lines) {
  ComparisonSet set;
  set.candidate = candidate;
  std::map<std::string, const ShapeRow*> shapes;
  for (const ShapeRow& s : ledger) shapes[s.shape_id] = &s;
  const CellRows cells = index_cells(set, shapes, results, candidate, results_file, row_lines);
  separate_wrong_providers(set, cells);
  for (const auto& [key, row] : cells) {
    if (key.second != candidate && !set.is_not_baseline(key.second) && is_opaque_detail(row->provider_detail) &&
        !set.is_opaque(key.second)) {
      set.opaque_baselines.push_back(key.second);
    }
  }
  std::sort(set.opaque_baselines.begin(), set.opaque_baselines.end());
  for (const ShapeRow& s : ledger) set.shapes.push_back(compare_shape(set, cells, s));
  return set;
}

std::optional<double> geometric_mean(const std::vector<double>& values) {
  if (values.empty()) return std::nullopt;
  double sum = 0;
  for (double v : values) sum += std::log(v);
  return std::exp(sum / static_cast<double>(values.size()));
}

WeightedGeomean weighted_geometric_mean(const std::vector<const ShapeRow*>& shapes, const std::vector<double>& values) {
  WeightedGeomean out;
  using Getter = std::optional<double> (*)(const ShapeWeight&);
  const std::vector<std::pair<const char*, Getter>> fields = {
      {"baseline_time_weight", [](const ShapeWeight& w) { return w.baseline_time_weight; }},
      {"traffic_weight", [](const ShapeWeight& w) { return w.traffic_weight; }},
      {"occurrences",
       [](const ShapeWeight& w) {
         return w.occurrences ? std::optional<double>(static_cast<double>(*w.occurrences)) : std::nullopt;
       }},
  };
  if (shapes.empty()) {
    out.not_available = "n/a: no shapes";
    return out;
  }
  for (const auto& [name, get] : fields) {
    bool all = true;
    for (const ShapeRow* s : shapes) all = all && get(s->weight).has_value();
    if (!all) continue;
    double sum_w = 0, sum = 0;
    for (std::size_t i = 0; i < shapes.size(); ++i) {
      const double w = *get(shapes[i]->weight);
      sum_w += w;
      sum += w * std::log(values[i]);
    }
    out.weight_field = name;
    if (!(sum_w > 0)) {
      out.not_available = fmt::format("n/a: {} sums to 0", name);
      return out;
    }
    out.value = std::exp(sum / sum_w);
    return out;
  }
  std::size_t weighted = 0;
  for (const ShapeRow* s : shapes) {
    const ShapeWeight& w = s->weight;
    if (w.baseline_time_weight || w.traffic_weight || w.occurrences) ++weighted;
  }
  out.not_available = weighted == 0 ? "n/a: no weights"
                                    : fmt::format("n/a: weights on {} of {} shapes", weighted, shapes.size());
  return out;
}

}  // namespace caliber
