#include "io/validate_file.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>
#include <tuple>
#include <set>

#include <fmt/format.h>
// GCC 12 reports a false -Wrestrict inside std::string::replace as inlined into valijson's JSON
// pointer code (GCC bug 105651); it is not caliber's code and not a real overlap.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wrestrict"
#endif
#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validation_results.hpp>
#include <valijson/validator.hpp>

#include "matrix/baseline_matrix.h"
#include "ops/op_description.h"
#include "results/benchmark_results.h"
#include "caliber/errors.h"
#include "ledger/shape_ledger.h"
#include "core/json_fields.h"
#include "core/json_text.h"
#include "core/jsonl.h"
#include "core/yaml_fields.h"
#include "io/embedded_schemas.h"
#include "io/benchmark_results_json.h"
#include "io/benchmark_results_csv.h"
#include "io/shape_ledger_json.h"
#include "io/baseline_matrix_yaml.h"

namespace caliber::validation {
namespace {

using nlohmann::json;

// A compiled schema, parsed once per process.
class CompiledSchema {
 public:
  explicit CompiledSchema(std::string_view name) {
    for (const EmbeddedSchema& s : embedded_schemas()) {
      if (s.name == name) {
        document_ = parse_json_text(s.text, std::string(name));
        valijson::SchemaParser parser;
        valijson::adapters::NlohmannJsonAdapter adapter(document_);
        parser.populateSchema(adapter, schema_);
        return;
      }
    }
    throw Error(fmt::format("schema {} is not embedded in this build", name));
  }

  // Schema errors of one value: (dotted field, JSON pointer, message), the innermost first.
  std::vector<std::tuple<std::string, std::string, std::string>> check(const json& value) const {
    valijson::Validator validator;
    valijson::ValidationResults results;
    valijson::adapters::NlohmannJsonAdapter adapter(value);
    std::vector<std::tuple<std::string, std::string, std::string>> out;
    if (validator.validate(schema_, adapter, &results)) return out;
    std::set<std::string> seen;
    valijson::ValidationResults::Error e;
    while (results.popError(e)) {
      std::string field, pointer;
      for (const std::string& c : e.context) {
        if (c == "<root>") continue;
        std::string part = c;
        if (part.size() >= 2 && part.front() == '[' && part.back() == ']') part = part.substr(1, part.size() - 2);
        const bool index = !part.empty() && part.find_first_not_of("0123456789") == std::string::npos &&
                           c.front() == '[';
        if (index && !field.empty() && e.context.size() > 1) {
          field += "[" + part + "]";
        } else {
          field += (field.empty() ? "" : ".") + part;
        }
        pointer += "/" + part;
      }
      std::string message = e.description;
      // "Missing required property 'x'." names a field of the object at the context: name it.
      const std::string missing = "Missing required property '";
      if (message.rfind(missing, 0) == 0) {
        const std::string name = message.substr(missing.size(), message.find('\'', missing.size()) - missing.size());
        field += (field.empty() ? "" : ".") + name;
        pointer += "/" + name;
        message = "missing (required)";
      } else if (message.find("enum") != std::string::npos || message.find("'const'") != std::string::npos ||
                 message.find("type constraint") != std::string::npos) {
        try {
          std::string got = value.at(json::json_pointer(pointer)).dump();
          if (got.size() > 60) got = got.substr(0, 57) + "...";
          message += " (got " + got + ")";
        } catch (const std::exception&) {
          // no value at that pointer (e.g. a conditional branch): the message stands alone
        }
      }
      const std::string key = field + "\n" + message;
      if (seen.insert(key).second) out.emplace_back(field, pointer, message);
    }
    // valijson follows each specific failure with the enclosing ones ("Failed to validate
    // against ..." for the property, the allOf, the conditional); they add nothing once a
    // specific one is reported.
    std::vector<std::tuple<std::string, std::string, std::string>> specific;
    for (const auto& item : out) {
      if (std::get<2>(item).rfind("Failed to validate", 0) != 0) specific.push_back(item);
    }
    return specific.empty() ? out : specific;
  }

 private:
  json document_;
  valijson::Schema schema_;
};

const CompiledSchema& schema_for(FileKind k) {
  static std::map<FileKind, std::unique_ptr<CompiledSchema>> cache;
  auto& slot = cache[k];
  if (!slot) slot = std::make_unique<CompiledSchema>(schema_name(k));
  return *slot;
}

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

class Collector {
 public:
  Collector(std::string file, std::size_t max) : file_(std::move(file)), max_(max) {}
  void add(long line, std::string field, std::string message) {
    if (outcome.problems.size() < max_) outcome.problems.push_back({file_, line, std::move(field), std::move(message)});
  }
  void add(const InputError& e) { add(e.line(), e.field(), strip_location(e)); }
  bool full() const { return outcome.problems.size() >= max_; }
  Outcome outcome;

 private:
  // InputError's message repeats file, line and field; keep only what follows them.
  static std::string strip_location(const InputError& e) {
    std::string what = e.what();
    const std::string marker = e.field().empty() ? ": " : fmt::format("field '{}': ", e.field());
    const auto at = what.find(marker);
    return at == std::string::npos ? what : what.substr(at + marker.size());
  }
  std::string file_;
  std::size_t max_;
};

// Schema first (it names every violation), then the strict reader (ids, args, cross-field rules).
void validate_jsonl(const std::string& path, FileKind kind, Collector& c) {
  bool records_ok = true;
  for_each_jsonl_line(
      path,
      [&](std::string_view, const json& value, long line) {
        ++c.outcome.records;
        if (c.full()) return;
        const auto errors = schema_for(kind).check(value);
        for (const auto& [field, pointer, message] : errors) c.add(line, field, message);
        if (!errors.empty()) {
          records_ok = false;
          return;
        }
        try {
          if (kind == FileKind::shape_ledger) {
            shape_row_from_json(value, path, line);
          } else {
            benchmark_result_from_json(value, path, line);
          }
        } catch (const InputError& e) {
          c.add(e);
          records_ok = false;
        }
      },
      [&](const InputError& e) {
        ++c.outcome.records;
        c.add(e);
        records_ok = false;
      });
  // Whole-file rules (duplicate ids or cells, one run, at least one shape), once every record is
  // valid on its own: the reader caliber itself uses.
  if (records_ok && !c.full()) {
    try {
      if (kind == FileKind::shape_ledger) {
        read_shape_ledger(path);
      } else {
        // One run, one row per cell: checked row by row, no row kept.
        for_each_benchmark_result(path, [](std::string_view, const BenchmarkResultRow&, long) {});
      }
    } catch (const InputError& e) {
      c.add(e);
    }
  }
}

void validate_matrix(const std::string& path, Collector& c) {
  const std::string text = read_text_file(path);
  YAML::Node doc;
  try {
    doc = parse_yaml_document(text, path);
  } catch (const InputError& e) {
    c.add(e);
    return;
  }
  c.outcome.records = 1;
  std::map<std::string, long> lines;
  const json value = yaml_to_json(doc, lines);
  const auto errors = schema_for(FileKind::baseline_matrix).check(value);
  for (const auto& [field, pointer, message] : errors) {
    // The line of the deepest node that exists.
    std::string p = pointer;
    long line = 0;
    while (true) {
      const auto it = lines.find(p);
      if (it != lines.end() && it->second > 0) {
        line = it->second;
        break;
      }
      if (p.empty()) break;
      p = p.substr(0, p.rfind('/'));
    }
    c.add(line, field, message);
  }
  if (!errors.empty()) return;
  try {
    parse_baseline_matrix(text, path);
  } catch (const InputError& e) {
    c.add(e);
  }
}

void validate_csv(const std::string& path, Collector& c) {
  std::vector<json> rows;
  std::vector<long> lines;
  try {
    rows = parse_benchmark_results_csv(read_text_file(path), path, &lines);
  } catch (const InputError& e) {
    c.add(e);
    return;
  }
  c.outcome.records = rows.size();
  for (std::size_t i = 0; i < rows.size() && !c.full(); ++i) {
    for (const auto& [field, pointer, message] : schema_for(FileKind::benchmark_results_csv).check(rows[i])) {
      c.add(lines[i], field, message);
    }
  }
}

}  // namespace

std::string_view to_string(FileKind k) {
  switch (k) {
    case FileKind::shape_ledger: return "shape_ledger";
    case FileKind::baseline_matrix: return "baseline_matrix";
    case FileKind::benchmark_results_jsonl: return "benchmark_results_jsonl";
    case FileKind::benchmark_results_csv: return "benchmark_results_csv";
    case FileKind::op_description: return "op_description";
  }
  return "?";
}

FileKind parse_file_kind(std::string_view s) {
  for (FileKind k : {FileKind::shape_ledger, FileKind::baseline_matrix, FileKind::benchmark_results_jsonl,
                     FileKind::benchmark_results_csv, FileKind::op_description}) {
    if (to_string(k) == s) return k;
  }
  throw UsageError(fmt::format("unknown kind '{}' (expected shape_ledger|baseline_matrix|benchmark_results_jsonl|"
                               "benchmark_results_csv|op_description)",
                               s));
}

std::optional<FileKind> infer_file_kind(const std::string& path) {
  const std::string name = std::filesystem::path(path).filename().string();
  if (name.find("shape_ledger") != std::string::npos && ends_with(name, ".jsonl")) return FileKind::shape_ledger;
  if (name.find("baseline_matrix") != std::string::npos && (ends_with(name, ".yaml") || ends_with(name, ".yml"))) {
    return FileKind::baseline_matrix;
  }
  if (name.find("benchmark_results") != std::string::npos && ends_with(name, ".jsonl")) {
    return FileKind::benchmark_results_jsonl;
  }
  if (name.find("benchmark_results") != std::string::npos && ends_with(name, ".csv")) {
    return FileKind::benchmark_results_csv;
  }
  if (ends_with(name, ".op.yaml") || ends_with(name, ".op.yml")) return FileKind::op_description;
  return std::nullopt;
}

std::string_view schema_name(FileKind k) {
  switch (k) {
    case FileKind::shape_ledger: return "shape_ledger.v1.schema.json";
    case FileKind::baseline_matrix: return "baseline_matrix.v1.schema.json";
    case FileKind::benchmark_results_jsonl: return "benchmark_result.v1.schema.json";
    case FileKind::benchmark_results_csv: return "benchmark_results_csv.v1.schema.json";
    case FileKind::op_description: return "the op description reader, docs/user-ops.md";
  }
  return "";
}

std::string Problem::text() const {
  std::string where = file;
  if (line > 0) where += fmt::format(":{}", line);
  if (!field.empty()) return fmt::format("{}: field '{}': {}", where, field, message);
  return fmt::format("{}: {}", where, message);
}

Outcome validate_file(const std::string& path, FileKind kind, std::size_t max_problems) {
  Collector c(path, max_problems);
  try {
    switch (kind) {
      case FileKind::shape_ledger:
      case FileKind::benchmark_results_jsonl: validate_jsonl(path, kind, c); break;
      case FileKind::baseline_matrix: validate_matrix(path, c); break;
      case FileKind::benchmark_results_csv: validate_csv(path, c); break;
      case FileKind::op_description:
        ops::read_op_description(path);  // refuses with the description's file, line and field
        c.outcome.records = 1;
        break;
    }
  } catch (const InputError& e) {
    c.add(e);  // an unreadable file
  }
  return c.outcome;
}

}  // namespace caliber::validation
