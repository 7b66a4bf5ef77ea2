// The shape ledger's rows: stage and source names, the identity and the stable shape id.
#include "ledger/shape_ledger.h"

#include <fmt/format.h>

#include "core/enum_names.h"
#include "core/sha1.h"

namespace caliber {
namespace {

using nlohmann::json;

constexpr NameTable<Stage, 6> kStages{{{Stage::prefill, "prefill"},
                                       {Stage::decode, "decode"},
                                       {Stage::mixed, "mixed"},
                                       {Stage::synthetic, "synthetic"},
                                       {Stage::diagnostic, "diagnostic"},
                                       {Stage::model_config, "model_config"}}};
constexpr NameTable<SourceKind, 7> kSourceKinds{{{SourceKind::aiter_model_shapes, "aiter_model_shapes"},
                                                 {SourceKind::sglang_trace, "sglang_trace"},
                                                 {SourceKind::atom_workload, "atom_workload"},
                                                 {SourceKind::manual, "manual"},
                                                 {SourceKind::synthetic, "synthetic"},
                                                 {SourceKind::diagnostic, "diagnostic"},
                                                 {SourceKind::model_config, "model_config"}}};

}  // namespace

std::string_view to_string(Stage s) { return name_of(kStages, s); }
std::string_view to_string(SourceKind k) { return name_of(kSourceKinds, k); }
Stage parse_stage(std::string_view s) { return parse_name(kStages, s, "stage"); }
SourceKind parse_source_kind(std::string_view s) { return parse_name(kSourceKinds, s, "source kind"); }

bool ShapeRow::same_content(const ShapeRow& o) const {
  // Every serialized field (the line a row was read from is not one).
  return shape_id == o.shape_id && op_type == o.op_type && kernel_name == o.kernel_name && model == o.model &&
         stage == o.stage && arch == o.arch && gpu == o.gpu && dtype == o.dtype && layout == o.layout &&
         args == o.args && source == o.source && weight == o.weight &&
         baselines_available == o.baselines_available && notes == o.notes;
}

json shape_identity(const ShapeRow& row) {
  return json{{"args", row.args},         {"dtype", to_string(row.dtype)},
              {"kernel_name", row.kernel_name}, {"layout", row.layout},
              {"model", row.model ? json(*row.model) : json(nullptr)},   {"op_type", row.op_type},
              {"stage", to_string(row.stage)}};
}

std::string canonical_identity(const ShapeRow& row) {
  // nlohmann::json objects are std::map-backed: dump() writes keys sorted at every level.
  return shape_identity(row).dump();
}

std::string stable_shape_id(const ShapeRow& row) {
  return "sha1:" + sha1_hex(canonical_identity(row)).substr(0, 16);
}

bool is_shape_id(std::string_view text) {
  constexpr std::string_view prefix = "sha1:";
  return text.size() == prefix.size() + 16 && text.substr(0, prefix.size()) == prefix &&
         text.find_first_not_of("0123456789abcdef", prefix.size()) == std::string_view::npos;
}

}  // namespace caliber
