#include "ledger/importers.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <unordered_map>

#include <fmt/format.h>

#include "caliber/errors.h"

namespace caliber::ledger {
namespace {

using nlohmann::json;

constexpr double kDefaultEps = 1e-6;

json norm_args(ops::OpType op, std::int64_t m, std::int64_t n) {
  if (op == ops::OpType::softmax) return json{{"m", m}, {"n", n}};
  return json{{"eps", kDefaultEps}, {"m", m}, {"n", n}};
}

struct Probe {
  json args;
  std::string why;
};

std::vector<Probe> row_op_probes(ops::OpType op) {
  std::vector<Probe> p;
  auto add = [&](std::int64_t m, std::int64_t n, std::string why) { p.push_back({norm_args(op, m, n), std::move(why)}); };
  for (std::int64_t n : {1, 7, 8, 9, 33}) {
    add(4096, n, "very short rows: fewer elements than one 16-byte vector or one warp");
  }
  for (std::int64_t n : {127, 128, 129, 1023, 1024, 1025, 4095, 4096, 4097, 8192}) {
    const char* why = n % 8 == 0 ? "power of two / multiple of the 16-byte vector" : "power of two +/- 1: not a multiple of the 16-byte vector";
    add(1, n, std::string("one row (decode-like), ") + why);
    add(2048, n, std::string("2048 rows, ") + why);
  }
  for (std::int64_t n : {16384, 65536, 262144}) {
    add(1, n, "one very long row: a single row cannot fill the device");
    add(256, n, "long rows beyond what a block holds in registers");
  }
  add(1048576, 64, "huge row count with short rows");
  add(262144, 256, "huge row count");
  add(3, 5, "tiny: a handful of elements");
  return p;
}

std::vector<Probe> gemm_probes() {
  std::vector<Probe> p;
  auto add = [&](std::int64_t m, std::int64_t n, std::int64_t k, std::string why) {
    p.push_back({json{{"k", k}, {"m", m}, {"n", n}}, std::move(why)});
  };
  for (std::int64_t s : {256, 1024, 2048, 4096, 8192}) add(s, s, s, "square, power of two");
  add(4097, 4096, 4096, "m = power of two + 1: a partial row tile");
  add(4096, 4104, 4096, "n a multiple of 8 but not of the 128-column tile");
  add(4096, 4096, 4104, "k a multiple of 8 but not of the 32-deep k tile");
  add(1025, 1025, 1024, "n not a multiple of 8 (16-byte rows impossible)");
  add(1024, 1024, 1023, "k not a multiple of 8 (16-byte rows impossible)");
  for (std::int64_t m : {1, 8, 32}) {
    add(m, 4096, 4096, "skinny m (decode-like): a GEMV-shaped problem");
    add(m, 14336, 4096, "skinny m with a wide n");
  }
  add(65536, 128, 128, "tall and narrow");
  add(256, 256, 65536, "long k with a small output (split-k territory)");
  add(1, 1, 1, "tiny");
  add(7, 9, 8, "tiny, odd");
  return p;
}

int kind_rank(SourceKind k) {
  switch (k) {
    case SourceKind::model_config:
    case SourceKind::aiter_model_shapes:
    case SourceKind::sglang_trace:
    case SourceKind::atom_workload: return 0;
    case SourceKind::manual: return 1;
    case SourceKind::synthetic: return 2;
    case SourceKind::diagnostic: return 3;
  }
  return 4;
}

std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : sep) + s;
  return out;
}

}  // namespace

ShapeRow make_row(const RowTemplate& t, DType dtype, const json& args, Stage stage, std::optional<std::string> model,
                  ShapeSource source, std::string notes) {
  ShapeRow r;
  r.op_type = t.op_name();
  r.kernel_name = t.kernel_name.empty() ? r.op_type : t.kernel_name;
  r.model = std::move(model);
  r.stage = stage;
  r.arch = t.arch;
  r.gpu = t.gpu;
  r.dtype = dtype;
  r.layout = std::string(ops::kRowMajor);
  r.args = args;
  r.source = std::move(source);
  r.baselines_available = t.baselines_available;
  r.notes = std::move(notes);
  // The same checks as reading a ledger.
  ops::parse_shape(r.op_type, dtype, r.layout, r.args, "(import)", 0, "args");
  r.shape_id = stable_shape_id(r);
  return r;
}

std::vector<ShapeRow> synthetic_rows(const RowTemplate& t, const std::vector<DType>& dtypes) {
  std::vector<ShapeRow> out;
  if (t.described) {  // the probes its description names
    const ops::OpDescription& d = t.described->description();
    if (d.probes.empty()) {
      throw UsageError(fmt::format("{} names no probes: caliber ledger synthetic makes an op of your own's rows from "
                                   "its description's probes (docs/user-ops.md, field probes); or add its "
                                   "shapes with caliber ledger manual",
                                   d.file));
    }
    for (DType dtype : dtypes) {
      for (std::size_t i = 0; i < d.probes.size(); ++i) {
        const ops::OpProbe& p = d.probes[i];
        ops::OpShape values;  // the probe's args as a ledger row writes them
        values.op = ops::OpType::described;
        values.described = t.described;
        values.values.insert(p.args.begin(), p.args.end());
        const json args = ops::args_to_json(values);
        // Its extents checked here, naming the probe in the description.
        t.described->parse_shape(dtype, std::string(ops::kRowMajor), args, d.file, p.line,
                                 fmt::format("probes[{}].args", i));
        out.push_back(make_row(t, dtype, args, Stage::synthetic, std::nullopt,
                               {SourceKind::synthetic, "caliber ledger synthetic", "probe of " +
                                std::filesystem::path(d.file).filename().string()},
                               p.note));
      }
    }
    return out;
  }
  const std::vector<Probe> probes = t.op == ops::OpType::gemm ? gemm_probes() : row_op_probes(t.op);
  for (DType d : dtypes) {
    for (const Probe& p : probes) {
      out.push_back(make_row(t, d, p.args, Stage::synthetic, std::nullopt,
                             {SourceKind::synthetic, "caliber ledger synthetic", "boundary probe"}, p.why));
    }
  }
  return out;
}

std::vector<ShapeRow> model_rows(const RowTemplate& t, const std::vector<ModelConfig>& models, const ModelImport& m,
                                 std::vector<std::string>& notices) {
  struct Merged {
    ShapeRow row;
    std::vector<std::string> tensors, tps, tokens;
  };
  std::vector<Merged> merged;
  std::unordered_map<std::string, std::size_t> by_id;
  auto note_unique = [](std::vector<std::string>& v, const std::string& s) {
    if (std::find(v.begin(), v.end(), s) == v.end()) v.push_back(s);
  };
  for (const std::string& name : m.models) {
    if (std::none_of(models.begin(), models.end(), [&](const ModelConfig& c) { return c.name == name; })) {
      std::string known;
      for (const auto& c : models) known += (known.empty() ? "" : ", ") + c.name;
      throw UsageError(fmt::format("--models: unknown model '{}' (the file has {})", name, known));
    }
  }
  for (const ModelConfig& c : models) {
    if (!m.models.empty() && std::find(m.models.begin(), m.models.end(), c.name) == m.models.end()) continue;
    for (Stage stage : {Stage::prefill, Stage::decode}) {
      const auto& token_counts = stage == Stage::prefill ? m.prefill_tokens : m.decode_tokens;
      for (std::int64_t tokens : token_counts) {
        for (std::int64_t tp : m.tp) {
          Workload w{stage, tokens, tp, m.decode_context};
          std::optional<std::string> skipped;
          const auto shapes = derive_shapes(c, t.op, w, skipped);
          if (skipped) {
            note_unique(notices, fmt::format("{} {} tp={}: no {} shapes: {}", c.name, to_string(stage), tp,
                                             ops::to_string(t.op), *skipped));
            continue;
          }
          for (const DerivedShape& s : shapes) {
            std::int64_t biggest = 0;
            const std::int64_t mm = s.args.at("m"), nn = s.args.at("n");
            biggest = mm * nn;
            if (s.args.contains("k")) {
              const std::int64_t kk = s.args.at("k");
              biggest = std::max({mm * kk, kk * nn, mm * nn});
            }
            if (biggest > m.max_elements) {
              note_unique(notices, fmt::format("{} {} tokens={} tp={} {} ({}): a tensor of {} elements exceeds "
                                               "--max-elements {}",
                                               c.name, to_string(stage), tokens, tp, s.tensor, s.args.dump(), biggest,
                                               m.max_elements));
              continue;
            }
            for (DType d : m.dtypes) {
              ShapeRow row = make_row(t, d, s.args, stage, c.name, {SourceKind::model_config, m.origin, ""}, "");
              auto [it, inserted] = by_id.emplace(row.shape_id, merged.size());
              if (inserted) merged.push_back({std::move(row), {}, {}, {}});
              Merged& mg = merged[it->second];
              note_unique(mg.tensors, s.tensor);
              note_unique(mg.tps, std::to_string(tp));
              note_unique(mg.tokens, std::to_string(tokens));
            }
          }
        }
      }
    }
  }
  std::vector<ShapeRow> out;
  for (Merged& mg : merged) {
    mg.row.source.detail = fmt::format("tokens={} tp={}", join(mg.tokens, ","), join(mg.tps, ","));
    mg.row.notes = join(mg.tensors, "; ");
    out.push_back(std::move(mg.row));
  }
  return out;
}

UpsertReport upsert(std::vector<ShapeRow>& ledger, SourceKind kind, const std::string& op_name, const std::vector<ShapeRow>& fresh,
                    bool replace_set) {
  UpsertReport report;
  auto owned = [&](const ShapeRow& r) { return r.source.kind == kind && r.op_type == op_name; };
  std::unordered_map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < ledger.size(); ++i) index[ledger[i].shape_id] = i;

  std::vector<bool> keep(ledger.size(), true);
  std::vector<ShapeRow> appended;
  std::unordered_map<std::string, bool> produced;
  for (const ShapeRow& f : fresh) {
    if (produced.count(f.shape_id)) continue;  // an import never holds one id twice
    produced[f.shape_id] = true;
    const auto it = index.find(f.shape_id);
    if (it == index.end()) {
      appended.push_back(f);
      ++report.added;
      continue;
    }
    ShapeRow& existing = ledger[it->second];
    if (!owned(existing)) {
      report.conflicts.push_back(fmt::format("{} is already in the ledger as a {} row (line {}); left to it",
                                             f.shape_id, to_string(existing.source.kind), existing.line));
      continue;
    }
    if (existing.same_content(f)) {
      ++report.unchanged;
    } else {
      existing = f;
      ++report.updated;
    }
  }
  for (std::size_t i = 0; i < ledger.size(); ++i) {
    if (!owned(ledger[i])) {
      ++report.kept;
    } else if (replace_set && !produced.count(ledger[i].shape_id)) {
      keep[i] = false;
      ++report.removed;
    }
  }
  std::vector<ShapeRow> result;
  for (std::size_t i = 0; i < ledger.size(); ++i) {
    if (keep[i]) result.push_back(std::move(ledger[i]));
  }
  for (ShapeRow& r : appended) result.push_back(std::move(r));
  std::stable_sort(result.begin(), result.end(), [](const ShapeRow& a, const ShapeRow& b) {
    return kind_rank(a.source.kind) < kind_rank(b.source.kind);
  });
  ledger = std::move(result);
  return report;
}

}  // namespace caliber::ledger
