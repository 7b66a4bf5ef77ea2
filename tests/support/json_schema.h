// JSON Schema validation of the files caliber writes (valijson), with references between the
// schemas in schemas/ resolved to the files beside each other.
#pragma once

#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validator.hpp>

namespace caliber::testing_support {

// "https://caliber.dev/schemas/results.schema.json" -> <source>/schemas/results.schema.json.
inline const nlohmann::json* fetch_schema_document(const std::string& uri) {
  const std::string name = uri.substr(uri.rfind('/') + 1);
  std::ifstream in(std::string(CALIBER_SOURCE_DIR) + "/schemas/" + name);
  if (!in) return nullptr;
  return new nlohmann::json(nlohmann::json::parse(in));
}

inline void free_schema_document(const nlohmann::json* doc) { delete doc; }

inline void load_schema(const std::string& path, valijson::Schema& schema) {
  std::ifstream in(path);
  const nlohmann::json doc = nlohmann::json::parse(in);
  valijson::SchemaParser parser;
  valijson::adapters::NlohmannJsonAdapter adapter(doc);
  parser.populateSchema(adapter, schema, fetch_schema_document, free_schema_document);
}

inline std::vector<std::string> schema_errors(const valijson::Schema& schema, const nlohmann::json& doc) {
  valijson::Validator validator;
  valijson::ValidationResults results;
  valijson::adapters::NlohmannJsonAdapter adapter(doc);
  std::vector<std::string> out;
  if (!validator.validate(schema, adapter, &results)) {
    valijson::ValidationResults::Error e;
    while (results.popError(e)) out.push_back(e.description);
  }
  return out;
}

}  // namespace caliber::testing_support
