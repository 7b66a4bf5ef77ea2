// The shape ledger as JSON lines: strict reading of a row and of a file, atomic writing.
#include "io/shape_ledger_json.h"

#include <set>
#include <sstream>
#include <unordered_map>

#include <fmt/format.h>

#include "caliber/errors.h"
#include "core/atomic_file.h"
#include "core/json_fields.h"
#include "core/jsonl.h"
#include "ops/op_catalog.h"
#include "ops/op_shape.h"

namespace caliber {
namespace {

using nlohmann::json;

const std::set<std::string> kRowKeys = {
    "schema_version", "shape_id", "op_type", "kernel_name", "model",  "stage",
    "arch",           "gpu",      "dtype",   "layout",      "args",   "source",
    "weight",         "baselines_available", "notes"};

std::string non_empty(const JsonFields& f, const std::string& key) {
  std::string v = f.str(key);
  if (v.empty()) f.fail(key, "must not be empty");
  return v;
}

json nullable(const std::optional<std::string>& v) { return v ? json(*v) : json(nullptr); }
template <typename T>
json nullable_number(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

}  // namespace

json to_json(const ShapeRow& r) {
  json j = json::object();
  j["schema_version"] = kShapeLedgerSchemaVersion;
  j["shape_id"] = r.shape_id;
  j["op_type"] = r.op_type;
  j["kernel_name"] = r.kernel_name;
  j["model"] = nullable(r.model);
  j["stage"] = to_string(r.stage);
  j["arch"] = r.arch;
  j["gpu"] = r.gpu;
  j["dtype"] = to_string(r.dtype);
  j["layout"] = r.layout;
  j["args"] = r.args;
  j["source"] = {{"kind", to_string(r.source.kind)}, {"origin", r.source.origin}, {"detail", r.source.detail}};
  j["weight"] = {{"occurrences", nullable_number(r.weight.occurrences)},
                 {"traffic_weight", nullable_number(r.weight.traffic_weight)},
                 {"baseline_time_weight", nullable_number(r.weight.baseline_time_weight)}};
  j["baselines_available"] = r.baselines_available;
  j["notes"] = r.notes;
  return j;
}

ShapeRow shape_row_from_json(const json& j, const std::string& file, long line) {
  JsonFields f(j, file, line, "");
  f.refuse_unknown(kRowKeys);
  const std::int64_t version = f.integer("schema_version");
  if (version != kShapeLedgerSchemaVersion) {
    f.fail("schema_version", fmt::format("unsupported schema version {} (this caliber reads {})",
                                         version, kShapeLedgerSchemaVersion));
  }
  ShapeRow r;
  r.line = line;
  r.shape_id = f.str("shape_id");
  r.op_type = f.str("op_type");
  f.parse("op_type", [](const std::string& s) {
    ops::check_known_op(s);
    return s;
  });
  r.kernel_name = non_empty(f, "kernel_name");
  if (!f.has("model")) f.fail("model", "missing (null when the shape is not from a model)");
  r.model = f.opt_str("model");
  if (r.model && r.model->empty()) f.fail("model", "must not be empty (use null)");
  r.stage = f.parse("stage", [](const std::string& s) { return parse_stage(s); });
  r.arch = non_empty(f, "arch");
  r.gpu = non_empty(f, "gpu");
  r.dtype = f.parse("dtype", [](const std::string& s) { return parse_dtype(s); });
  r.layout = f.str("layout");
  r.args = f.object("args").json();
  ops::parse_shape(r.op_type, r.dtype, r.layout, r.args, file, line, "args");

  const JsonFields src = f.object("source");
  src.refuse_unknown({"kind", "origin", "detail"});
  r.source.kind = src.parse("kind", [](const std::string& s) { return parse_source_kind(s); });
  r.source.origin = src.str("origin");
  r.source.detail = src.str("detail");

  const JsonFields w = f.object("weight");
  w.refuse_unknown({"occurrences", "traffic_weight", "baseline_time_weight"});
  for (const char* key : {"occurrences", "traffic_weight", "baseline_time_weight"}) {
    if (!w.has(key)) w.fail(key, "missing (null when unknown)");
  }
  r.weight.occurrences = w.opt_integer("occurrences");
  if (r.weight.occurrences && *r.weight.occurrences < 0) w.fail("occurrences", "must be >= 0");
  r.weight.traffic_weight = w.opt_number("traffic_weight");
  if (r.weight.traffic_weight && !(*r.weight.traffic_weight >= 0)) w.fail("traffic_weight", "must be >= 0");
  r.weight.baseline_time_weight = w.opt_number("baseline_time_weight");
  if (r.weight.baseline_time_weight && !(*r.weight.baseline_time_weight >= 0)) {
    w.fail("baseline_time_weight", "must be >= 0");
  }

  const json& baselines = f.array("baselines_available");
  for (std::size_t i = 0; i < baselines.size(); ++i) {
    if (!baselines[i].is_string() || baselines[i].get<std::string>().empty()) {
      f.fail(fmt::format("baselines_available[{}]", i), "expected a provider name");
    }
    r.baselines_available.push_back(baselines[i].get<std::string>());
  }
  r.notes = f.str("notes");

  const std::string expected = stable_shape_id(r);
  if (r.shape_id != expected) {
    f.fail("shape_id", fmt::format("'{}' does not match the row's identity fields (expected {}; "
                                   "docs/ledger.md says how ids are made)",
                                   r.shape_id, expected));
  }
  return r;
}

namespace {

void refuse_duplicates(const std::vector<ShapeRow>& rows, const std::string& file) {
  std::unordered_map<std::string, long> seen;
  for (const ShapeRow& r : rows) {
    auto [it, inserted] = seen.emplace(r.shape_id, r.line);
    if (!inserted) {
      throw InputError(file, r.line, "shape_id",
                       fmt::format("duplicate shape id {} (first on line {})", r.shape_id, it->second));
    }
  }
}

}  // namespace

namespace {

// caliber run refuses a ledger without shapes; so does every reader, validate included.
std::vector<ShapeRow> checked_ledger(std::vector<ShapeRow> rows, const std::string& file) {
  if (rows.empty()) throw InputError(file, 0, "", "no rows: a shape ledger lists at least one shape");
  refuse_duplicates(rows, file);
  return rows;
}

}  // namespace

std::vector<ShapeRow> parse_shape_ledger(const std::string& text, const std::string& file) {
  std::vector<ShapeRow> rows;
  for_each_jsonl_row(text, file, [&](const json& value, long line) {
    rows.push_back(shape_row_from_json(value, file, line));
  });
  return checked_ledger(std::move(rows), file);
}

std::vector<ShapeRow> read_shape_ledger(const std::string& file) {
  std::vector<ShapeRow> rows;
  for_each_jsonl_line(file, [&](std::string_view, const json& value, long line) {
    rows.push_back(shape_row_from_json(value, file, line));
  });
  return checked_ledger(std::move(rows), file);
}

std::string shape_ledger_text(const std::vector<ShapeRow>& rows, const std::string& file) {
  std::ostringstream out;
  long line = 0;
  std::vector<ShapeRow> numbered = rows;
  for (ShapeRow& r : numbered) {
    r.line = ++line;
    const std::string expected = stable_shape_id(r);
    if (r.shape_id != expected) {
      throw InputError(file, r.line, "shape_id",
                       fmt::format("'{}' does not match the row's identity (expected {})", r.shape_id, expected));
    }
  }
  refuse_duplicates(numbered, file);
  for (const ShapeRow& r : rows) out << to_json(r).dump() << '\n';
  return out.str();
}

void write_shape_ledger(const std::string& file, const std::vector<ShapeRow>& rows) {
  const std::string text = shape_ledger_text(rows, file);
  write_file_atomically(file, [&](std::ostream& out) { out << text; });
}

}  // namespace caliber
