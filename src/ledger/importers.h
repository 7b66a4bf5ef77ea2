// The ledger importers behind `caliber ledger manual|synthetic|diagnostic|models`: each builds
// rows of its own source kind, and upsert() merges them into a ledger without touching the rows
// of any other kind. docs/ledger.md documents each importer and the upsert rule.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ledger/shape_ledger.h"
#include "ledger/model_shapes.h"
#include "ops/op_catalog.h"

namespace caliber::ledger {

// What every imported row shares.
struct RowTemplate {
  ops::OpType op = ops::OpType::rmsnorm;        // a shipped op, when `described` is null
  const ops::DescribedOp* described = nullptr;  // the op's description (an op of your own's, or a shipped one's)
  // The op: `described`, else the shipped op of `op` (its built-in description).
  const ops::DescribedOp& op_of() const { return described ? *described : ops::known_op(ops::to_string(op)); }
  std::string op_name() const { return op_of().description().name; }
  std::string kernel_name;  // defaults to the op's name
  std::string gpu = "any";
  std::string arch = "any";
  std::vector<std::string> baselines_available;
};

// A complete row (shape_id computed) from its parts.
ShapeRow make_row(const RowTemplate& t, DType dtype, const nlohmann::json& args, Stage stage,
                  std::optional<std::string> model, ShapeSource source, std::string notes);

// The boundary probes its description names (`probes:`; the shipped ops' in ops/*.op.yaml,
// docs/ledger.md says why they are there), one row per probe and dtype, the probe's note as the
// row's notes. A description without probes is a UsageError.
std::vector<ShapeRow> synthetic_rows(const RowTemplate& t, const std::vector<DType>& dtypes);

struct ModelImport {
  std::vector<std::string> models;  // empty: every model of the file
  std::vector<std::int64_t> prefill_tokens;
  std::vector<std::int64_t> decode_tokens;
  std::vector<std::int64_t> tp;
  std::int64_t decode_context = 4096;
  std::vector<DType> dtypes;
  std::int64_t max_elements = std::int64_t{1} << 28;  // largest tensor a derived shape may have
  std::string origin;                                  // the model-shapes file, for source.origin
};

// The shapes of an op for the chosen models, stages, token counts and tp degrees. Identical shapes
// of one model and stage (from several tensors or tp degrees) become one row whose notes list
// them. `notices` receives one line per combination that produced nothing, and why.
std::vector<ShapeRow> model_rows(const RowTemplate& t, const std::vector<ModelConfig>& models, const ModelImport& m,
                                 std::vector<std::string>& notices);

struct UpsertReport {
  std::size_t added = 0;      // new ids
  std::size_t updated = 0;    // same id, new content
  std::size_t unchanged = 0;  // same id, same content
  std::size_t removed = 0;    // rows of this kind and op the import no longer produces
  std::size_t kept = 0;       // rows of other kinds or ops, untouched
  std::vector<std::string> conflicts;  // ids already owned by another kind: left to their owner
};

// Merges `fresh` (rows of one source kind and op) into `ledger`.
//  replace_set = true (synthetic, diagnostic, models): the import owns the set of its (kind, op)
//    rows: rows it no longer produces are removed.
//  replace_set = false (manual): rows accumulate; a row with the same id is updated.
// A fresh row whose id belongs to a row of another kind is not imported (a conflict). The result
// is ordered by kind (model_config and other imported kinds, manual, synthetic, diagnostic), then
// by first appearance, so re-running any importer leaves the file byte-identical.
UpsertReport upsert(std::vector<ShapeRow>& ledger, SourceKind kind, const std::string& op,
                    const std::vector<ShapeRow>& fresh, bool replace_set);

}  // namespace caliber::ledger
