// The shape ledger's rows: the shapes that matter, each with its stable id (docs/ledger.md
// documents every field and enum, the importers that write them, and the stable shape id). The
// file (shape_ledger.jsonl) is read and written by io/shape_ledger_json.h.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "caliber/dtype.h"

namespace caliber {

inline constexpr int kShapeLedgerSchemaVersion = 1;

// Where in a workload a shape occurs.
enum class Stage { prefill, decode, mixed, synthetic, diagnostic, model_config };

// Who put a row into the ledger. Each importer owns one kind and never touches another's rows.
// caliber's importers write manual, synthetic, diagnostic and model_config; the other kinds are
// accepted so ledgers made by other tools read unchanged.
enum class SourceKind {
  aiter_model_shapes,
  sglang_trace,
  atom_workload,
  manual,
  synthetic,
  diagnostic,
  model_config,
};

std::string_view to_string(Stage s);
std::string_view to_string(SourceKind k);
// Unknown names throw UsageError listing the accepted values.
Stage parse_stage(std::string_view s);
SourceKind parse_source_kind(std::string_view s);

struct ShapeSource {
  SourceKind kind = SourceKind::manual;
  std::string origin;  // where the row came from: a file path, "command line", "caliber synthetic"
  std::string detail;  // importer-specific: "tokens=4096 tp=1,8 tensors=gate_up_proj"; may be empty
  friend bool operator==(const ShapeSource&, const ShapeSource&) = default;
};

// Production weights; null until a serving trace (or the user) provides them.
struct ShapeWeight {
  std::optional<std::int64_t> occurrences;
  std::optional<double> traffic_weight;
  std::optional<double> baseline_time_weight;
  friend bool operator==(const ShapeWeight&, const ShapeWeight&) = default;
};

struct ShapeRow {
  std::string shape_id;                 // stable_shape_id(*this)
  std::string op_type;                  // rmsnorm | layernorm | softmax | gemm
  std::string kernel_name;              // the kernel as the baseline matrix names it
  std::optional<std::string> model;     // e.g. "llama-3-8b"; null for shapes not from a model
  Stage stage = Stage::mixed;
  std::string arch;                     // target architecture, e.g. "sm_90", or "any"
  std::string gpu;                      // target GPU, e.g. "NVIDIA H200", or "any"
  DType dtype = DType::fp32;
  std::string layout = "row_major";
  nlohmann::json args = nlohmann::json::object();  // the op's arguments (docs/ops.md)
  ShapeSource source;
  ShapeWeight weight;
  std::vector<std::string> baselines_available;  // provider names known to cover this shape
  std::string notes;

  long line = 0;  // line it was read from; 0 for rows built in memory (not serialized)

  // Equality of everything serialized (line excluded).
  bool same_content(const ShapeRow& other) const;
};

// The identity of a row: the fields that decide which problem it is and where it occurs.
// {"args", "dtype", "kernel_name", "layout", "model", "op_type", "stage"} — source, weights,
// target gpu/arch, baselines and notes are not part of it, so re-importing a shape (or importing
// it for another GPU) gives the same id.
nlohmann::json shape_identity(const ShapeRow& row);
// The canonical serialization hashed for the id: shape_identity(row) as compact JSON with keys
// sorted at every level, no whitespace, integers in decimal, other numbers in the shortest form
// that reads back to the same double (nlohmann::json::dump()), strings UTF-8 with JSON escapes.
std::string canonical_identity(const ShapeRow& row);
// "sha1:" + the first 16 lowercase hex digits of SHA-1(canonical_identity(row)).
std::string stable_shape_id(const ShapeRow& row);
// Whether `text` has the form of a stable shape id ("sha1:" + 16 lowercase hex digits).
bool is_shape_id(std::string_view text);

}  // namespace caliber
