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
  const ops::DescribedOp& op = t.op_of();
  const ops::OpDescription& d = op.description();
  if (d.probes.empty()) {
    throw UsageError(fmt::format("{} names no probes: caliber ledger synthetic makes an op's rows from its "
                                 "description's probes (docs/user-ops.md, field probes); or add its shapes with "
                                 "caliber ledger manual",
                                 d.file));
  }
  for (DType dtype : dtypes) {
    for (std::size_t i = 0; i < d.probes.size(); ++i) {
      const ops::OpProbe& p = d.probes[i];
      ops::OpShape values;  // the probe's args as a ledger row writes them
      values.described = &op;
      values.values.insert(p.args.begin(), p.args.end());
      const json args = ops::args_to_json(values);
      // Its extents checked here, naming the probe in the description.
      op.parse_shape(dtype, std::string(ops::kRowMajor), args, d.file, p.line, fmt::format("probes[{}].args", i));
      out.push_back(make_row(t, dtype, args, Stage::synthetic, std::nullopt,
                             {SourceKind::synthetic, "caliber ledger synthetic",
                              "probe of " + std::filesystem::path(d.file).filename().string()},
                             p.note));
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
  const ops::DescribedOp& op = t.op_of();
  if (op.description().models.empty()) {
    throw UsageError(fmt::format("{} names no models entries: caliber ledger models derives an op's rows from its "
                                 "description's models (docs/user-ops.md, field models); or add its shapes with "
                                 "caliber ledger manual",
                                 op.description().file));
  }
  for (const ModelConfig& c : models) {
    if (!m.models.empty() && std::find(m.models.begin(), m.models.end(), c.name) == m.models.end()) continue;
    for (Stage stage : {Stage::prefill, Stage::decode}) {
      const auto& token_counts = stage == Stage::prefill ? m.prefill_tokens : m.decode_tokens;
      for (std::int64_t tokens : token_counts) {
        for (std::int64_t tp : m.tp) {
          Workload w{stage, tokens, tp, m.decode_context};
          std::optional<std::string> skipped;
          std::vector<std::string> left_out;
          const auto shapes = derive_shapes(c, op, w, skipped, left_out);
          if (skipped) {
            note_unique(notices, fmt::format("{} {} tp={}: no {} shapes: {}", c.name, to_string(stage), tp,
                                             t.op_name(), *skipped));
            continue;
          }
          for (const std::string& why : left_out) {
            note_unique(notices, fmt::format("{} {} tokens={} tp={}: left out {}", c.name, to_string(stage), tokens, tp,
                                             why));
          }
          for (const DerivedShape& s : shapes) {
            // Its largest tensor, in elements.
            const ops::OpShape shape =
                op.parse_shape(DType::fp32, std::string(ops::kRowMajor), s.args, op.description().file, 0, "models");
            std::int64_t biggest = 0;
            for (const auto& list : {op.inputs(shape), op.outputs(shape)}) {
              for (const ops::TensorSpec& spec : list) biggest = std::max(biggest, spec.elements());
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
