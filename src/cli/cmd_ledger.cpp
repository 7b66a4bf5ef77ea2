// caliber ledger manual|synthetic|diagnostic|models: build a shape ledger. Each importer owns one
// source kind and upserts its rows without touching any other kind's (docs/ledger.md).
#include <filesystem>
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "core/atomic_file.h"
#include "caliber/errors.h"
#include "ledger/shape_ledger.h"
#include "cli/cli_common.h"
#include "cli/command.h"
#include "core/number_text.h"
#include "ledger/importers.h"
#include "ledger/shape_axes.h"
#include "io/shape_ledger_json.h"

namespace caliber::cli {
namespace {

struct LedgerOptions {
  std::string op;
  std::optional<std::string> op_description;  // an op of your own (docs/user-ops.md)
  std::string ledger;
  std::string kernel;
  std::string gpu = "any";
  std::string arch = "any";
  std::optional<std::string> baselines;
  // manual / diagnostic
  std::vector<std::string> shapes;
  std::vector<std::string> axes;  // ledger manual --axis NAME=V1,V2,...
  std::string dtypes = "bf16";
  std::string stage = "mixed";
  std::optional<std::string> model;
  std::string notes;
  std::optional<std::int64_t> occurrences;
  std::optional<double> traffic_weight;
  std::optional<double> baseline_time_weight;
  // models
  std::string model_shapes;
  std::optional<std::string> models;
  std::string prefill_tokens = "512,4096";
  std::string decode_tokens = "1,32,128";
  std::string tp = "1";
  std::int64_t decode_context = 4096;
  std::int64_t max_elements = std::int64_t{1} << 28;
};

// A shipped op (the caller has found no --op-description).
const ops::DescribedOp* shipped_op_of(const LedgerOptions& o) {
  try {
    return &ops::known_op(o.op);
  } catch (const UsageError& e) {
    throw UsageError(fmt::format("--op: {}", e.what()));
  }
}

// The op of --op: --op-description's, registered, or a shipped op's.
const ops::DescribedOp* described_of(const LedgerOptions& o) {
  if (!o.op_description) return shipped_op_of(o);
  const ops::DescribedOp& d = ops::register_op_description(*o.op_description);
  if (d.description().name != o.op) {
    throw UsageError(fmt::format("--op {}: --op-description {} describes op {}", o.op, *o.op_description,
                                 d.description().name));
  }
  return &d;
}

std::vector<DType> dtypes_of(const std::string& text) {
  std::vector<DType> out;
  for (const auto& s : split_list(text, "--dtype")) {
    try {
      out.push_back(parse_dtype(s));
    } catch (const UsageError& e) {
      throw UsageError(fmt::format("--dtype: {}", e.what()));
    }
  }
  return out;
}

std::vector<std::int64_t> counts_of(const std::string& text, const char* option) {
  std::vector<std::int64_t> out;
  if (text.empty()) return out;
  for (const auto& s : split_list(text, option)) {
    const std::optional<std::int64_t> v = parse_integer(s);
    if (!v || *v < 1) throw UsageError(fmt::format("{} '{}': expected positive integers", option, text));
    out.push_back(*v);
  }
  return out;
}

ledger::RowTemplate template_of(const LedgerOptions& o) {
  ledger::RowTemplate t;
  t.described = described_of(o);
  t.op = t.described->type();  // OpType::described for an op of your own
  t.kernel_name = o.kernel.empty() ? t.op_name() : o.kernel;
  t.gpu = o.gpu;
  t.arch = o.arch;
  if (o.baselines) t.baselines_available = split_list(*o.baselines, "--baselines");
  if (t.gpu.empty() || t.arch.empty()) throw UsageError("--gpu and --arch must not be empty");
  return t;
}

// Reads the ledger (or starts an empty one), upserts, writes atomically, reports.
int import_rows(const LedgerOptions& o, SourceKind kind, const std::vector<ShapeRow>& fresh, bool replace_set,
                const std::vector<std::string>& notices) {
  require_writable_file(o.ledger, "--ledger");
  std::vector<ShapeRow> rows;
  // An empty file (touch) is a ledger to start; a non-empty one must be a valid ledger.
  std::error_code ec;
  if (std::filesystem::exists(o.ledger, ec) && std::filesystem::file_size(o.ledger, ec) > 0) {
    rows = read_shape_ledger(o.ledger);
  }
  const ledger::UpsertReport r = ledger::upsert(rows, kind, o.op, fresh, replace_set);
  if (rows.empty()) {
    throw UsageError(fmt::format("--ledger {}: the import leaves no rows, and a shape ledger lists at least one "
                                 "shape; nothing written",
                                 o.ledger));
  }
  write_shape_ledger(o.ledger, rows);
  for (const auto& n : notices) std::cerr << "caliber ledger: " << n << '\n';
  for (const auto& c : r.conflicts) std::cerr << "caliber ledger: " << c << '\n';
  std::cout << fmt::format("{}: {} {} rows of {}: {} added, {} updated, {} unchanged, {} removed; {} other rows kept{}\n",
                           o.ledger, fresh.size(), to_string(kind), o.op, r.added, r.updated, r.unchanged, r.removed,
                           r.kept,
                           r.conflicts.empty() ? "" : fmt::format("; {} left to another kind", r.conflicts.size()));
  return kExitOk;
}

ShapeWeight weight_of(const LedgerOptions& o) {
  if (o.occurrences && *o.occurrences < 0) throw UsageError("--occurrences must be >= 0");
  if (o.traffic_weight && !(*o.traffic_weight >= 0)) throw UsageError("--traffic-weight must be >= 0");
  if (o.baseline_time_weight && !(*o.baseline_time_weight >= 0)) throw UsageError("--baseline-time-weight must be >= 0");
  return {o.occurrences, o.traffic_weight, o.baseline_time_weight};
}

int run_manual(const LedgerOptions& o, bool diagnostic) {
  const ledger::RowTemplate t = template_of(o);
  if (o.shapes.empty() && o.axes.empty()) {
    throw UsageError("--shape or --axis is required (e.g. --shape m=4096,n=8192, or --axis m=1,7,4096 --axis n=8192)");
  }
  if (diagnostic && o.shapes.size() != 1) throw UsageError("caliber ledger diagnostic takes exactly one --shape");
  const Stage stage = diagnostic ? Stage::diagnostic : [&] {
    try {
      return parse_stage(o.stage);
    } catch (const UsageError& e) {
      throw UsageError(fmt::format("--stage: {}", e.what()));
    }
  }();
  const std::vector<DType> dtypes = dtypes_of(o.dtypes);
  if (diagnostic && dtypes.size() != 1) throw UsageError("caliber ledger diagnostic takes exactly one --dtype");
  std::vector<ShapeRow> fresh;
  for (const auto& text : ledger::sweep_shape_texts(o.shapes, o.axes)) {
    const nlohmann::json args = ops::parse_shape_text(t.op_name(), text, o.axes.empty() ? "--shape" : "--shape/--axis");
    for (DType d : dtypes) {
      ShapeRow r = ledger::make_row(t, d, args, stage, o.model,
                                    {diagnostic ? SourceKind::diagnostic : SourceKind::manual, "command line", ""},
                                    o.notes);
      r.weight = weight_of(o);
      fresh.push_back(std::move(r));
    }
  }
  return import_rows(o, diagnostic ? SourceKind::diagnostic : SourceKind::manual, fresh, diagnostic, {});
}

int run_synthetic(const LedgerOptions& o) {
  const ledger::RowTemplate t = template_of(o);  // an op of your own: its description's probes
  return import_rows(o, SourceKind::synthetic, ledger::synthetic_rows(t, dtypes_of(o.dtypes)), true, {});
}

int run_models(const LedgerOptions& o) {
  const ledger::RowTemplate t = template_of(o);  // an op of your own: its description's models entries
  ledger::ModelImport m;
  if (o.models) m.models = split_list(*o.models, "--models");
  m.prefill_tokens = counts_of(o.prefill_tokens, "--prefill-tokens");
  m.decode_tokens = counts_of(o.decode_tokens, "--decode-tokens");
  m.tp = counts_of(o.tp, "--tp");
  if (m.tp.empty()) throw UsageError("--tp needs at least one degree");
  if (m.prefill_tokens.empty() && m.decode_tokens.empty()) {
    throw UsageError("--prefill-tokens and --decode-tokens are both empty: nothing to derive");
  }
  if (o.decode_context < 1) throw UsageError("--decode-context must be >= 1");
  if (o.max_elements < 1) throw UsageError("--max-elements must be >= 1");
  m.decode_context = o.decode_context;
  m.max_elements = o.max_elements;
  m.dtypes = dtypes_of(o.dtypes);
  m.origin = std::filesystem::path(o.model_shapes).filename().string();
  std::vector<std::string> notices;
  const auto models = ledger::read_model_shapes(o.model_shapes);
  const auto rows = ledger::model_rows(t, models, m, notices);
  return import_rows(o, SourceKind::model_config, rows, true, notices);
}

void add_common(CLI::App* cmd, LedgerOptions& o) {
  cmd->add_option("--op", o.op, "rmsnorm | layernorm | softmax | gemm, or an op of your own")->required();
  cmd->add_option("--op-description", o.op_description,
                  "The op description of an op of your own (NAME.op.yaml, docs/user-ops.md)");
  cmd->add_option("--ledger", o.ledger, "The shape_ledger.jsonl to create or update")->required();
  cmd->add_option("--kernel", o.kernel, "kernel_name of the rows (default: the op's name)");
  cmd->add_option("--gpu", o.gpu, "Target GPU of the rows")->capture_default_str();
  cmd->add_option("--arch", o.arch, "Target architecture of the rows")->capture_default_str();
  cmd->add_option("--baselines", o.baselines, "baselines_available of the rows (comma list)");
}

const RegisterCommand registration{30, [](CLI::App& root, int& exit_code) {
  auto* ledger = root.add_subcommand("ledger", "Build a shape ledger: manual, synthetic, diagnostic or model shapes");
  ledger->require_subcommand(1);
  auto o = std::make_shared<LedgerOptions>();

  auto* manual = ledger->add_subcommand("manual", "Add shapes given on the command line (source kind manual)");
  add_common(manual, *o);
  manual->add_option("--shape", o->shapes, "m=...,n=...[,k=...][,eps=...]; repeatable");
  manual->add_option("--axis", o->axes,
                     "NAME=V1,V2,...; repeatable: the shapes are the product of the axes (the first varies slowest), "
                     "crossed with each --shape");
  manual->add_option("--dtype", o->dtypes, "fp32 | bf16 | fp16, or a comma list")->capture_default_str();
  manual->add_option("--stage", o->stage, "prefill | decode | mixed | synthetic | model_config")->capture_default_str();
  manual->add_option("--model", o->model, "Model the shapes come from");
  manual->add_option("--notes", o->notes, "Notes of the rows");
  manual->add_option("--occurrences", o->occurrences, "weight.occurrences");
  manual->add_option("--traffic-weight", o->traffic_weight, "weight.traffic_weight");
  manual->add_option("--baseline-time-weight", o->baseline_time_weight, "weight.baseline_time_weight");
  manual->callback([o, &exit_code] { exit_code = run_manual(*o, false); });

  auto* synthetic = ledger->add_subcommand("synthetic", "Replace the op's boundary-probe shapes (source kind synthetic; an op of your own: its description's probes)");
  add_common(synthetic, *o);
  synthetic->add_option("--dtype", o->dtypes, "fp32 | bf16 | fp16, or a comma list")->capture_default_str();
  synthetic->callback([o, &exit_code] { exit_code = run_synthetic(*o); });

  auto* diagnostic = ledger->add_subcommand("diagnostic", "Set the op's one diagnostic shape (source kind diagnostic)");
  add_common(diagnostic, *o);
  diagnostic->add_option("--shape", o->shapes, "m=...,n=...[,k=...][,eps=...]")->required();
  diagnostic->add_option("--dtype", o->dtypes, "fp32 | bf16 | fp16")->capture_default_str();
  diagnostic->add_option("--notes", o->notes, "Notes of the row");
  diagnostic->callback([o, &exit_code] { exit_code = run_manual(*o, true); });

  auto* models = ledger->add_subcommand("models", "Replace the op's shapes derived from model configurations "
                                                  "(source kind model_config)");
  add_common(models, *o);
  models->add_option("--model-shapes", o->model_shapes, "Model configurations (e.g. data/model_shapes.json)")
      ->required();
  models->add_option("--models", o->models, "Only these models (comma list; default: all in the file)");
  models->add_option("--prefill-tokens", o->prefill_tokens, "Prefill token counts (comma list; empty: none)")
      ->capture_default_str();
  models->add_option("--decode-tokens", o->decode_tokens, "Decode batch sizes (comma list; empty: none)")
      ->capture_default_str();
  models->add_option("--tp", o->tp, "Tensor-parallel degrees (comma list)")->capture_default_str();
  models->add_option("--decode-context", o->decode_context, "Decode: tokens in the KV cache (attention softmax)")
      ->capture_default_str();
  models->add_option("--max-elements", o->max_elements, "Leave out shapes with a tensor larger than this")
      ->capture_default_str();
  models->add_option("--dtype", o->dtypes, "fp32 | bf16 | fp16, or a comma list")->capture_default_str();
  models->callback([o, &exit_code] { exit_code = run_models(*o); });
}};

}  // namespace
}  // namespace caliber::cli
