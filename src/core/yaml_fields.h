// Strict access to YAML mappings (yaml-cpp), with errors naming file, line (from the parser's
// marks) and field; and YAML -> JSON conversion for schema validation.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

namespace caliber {

// A baseline matrix has ~50 nodes and 4 levels; these bounds leave room for any hand-written
// file and none for an alias bomb.
inline constexpr std::size_t kMaxYamlNodes = 100000;
inline constexpr int kMaxYamlDepth = 64;

// Parses YAML text; a syntax error becomes InputError with its line, and so does a document
// whose aliases expand beyond kMaxYamlNodes nodes or that nests deeper than kMaxYamlDepth.
YAML::Node parse_yaml_document(const std::string& text, const std::string& file);

class YamlFields {
 public:
  // `node` must be a mapping (InputError otherwise). Duplicate keys are refused.
  YamlFields(const YAML::Node& node, std::string file, std::string path);

  bool has(const std::string& key) const;
  long line() const;                            // line of the mapping itself (1-based)
  long line_of(const std::string& key) const;   // line of the key's value, or of the mapping
  long key_line(const std::string& key) const;  // line of the key itself, or of the mapping
  std::vector<std::string> keys() const;        // in document order
  YAML::Node get(const std::string& key) const;  // present
  std::string str(const std::string& key) const;
  std::optional<std::string> opt_str(const std::string& key) const;  // absent or null -> nullopt
  bool boolean(const std::string& key) const;
  std::int64_t integer(const std::string& key) const;
  YamlFields mapping(const std::string& key) const;
  void refuse_unknown(const std::vector<std::string>& known) const;

  std::string field_name(const std::string& key) const;
  [[noreturn]] void fail(const std::string& key, const std::string& what) const;
  const std::string& file() const { return file_; }

 private:
  YAML::Node node_;
  std::string file_;
  std::string path_;
};

// A YAML document as JSON (scalars typed as YAML 1.2 core schema: null, true/false, integers,
// floats; quoted scalars stay strings), plus the 1-based line of every node by JSON pointer
// ("/providers/cudnn/enabled").
nlohmann::json yaml_to_json(const YAML::Node& node, std::map<std::string, long>& lines,
                            const std::string& pointer = "");

}  // namespace caliber
