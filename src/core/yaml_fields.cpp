#include "core/yaml_fields.h"

#include <set>

#include <fmt/format.h>
#include <yaml-cpp/depthguard.h>

#include "caliber/errors.h"
#include "core/number_text.h"

namespace caliber {
namespace {

long line_of_node(const YAML::Node& n) {
  const YAML::Mark m = n.Mark();
  return m.line >= 0 ? m.line + 1 : 0;
}

const char* type_name(const YAML::Node& n) {
  switch (n.Type()) {
    case YAML::NodeType::Null: return "null";
    case YAML::NodeType::Scalar: return "a scalar";
    case YAML::NodeType::Sequence: return "a list";
    case YAML::NodeType::Map: return "a mapping";
    case YAML::NodeType::Undefined: return "nothing";
  }
  return "?";
}

// Plain (unquoted) scalars carry the non-specific tag "?"; quoted ones "!".
bool is_plain(const YAML::Node& n) { return n.Tag() == "?" || n.Tag().empty(); }

}  // namespace

namespace {

// Counts the nodes of `node` as a reader sees them, aliases expanded (yaml-cpp shares an aliased
// node, so the document in memory stays small while a walk over it is exponential: "billion
// laughs"). Refuses more than kMaxYamlNodes, or nesting deeper than kMaxYamlDepth.
void bound_expansion(const YAML::Node& node, int depth, std::size_t& nodes, const std::string& file) {
  if (++nodes > kMaxYamlNodes) {
    throw InputError(file, line_of_node(node), "",
                     fmt::format("expands to more than {} nodes (aliases of aliases?); caliber refuses it",
                                 kMaxYamlNodes));
  }
  if (depth > kMaxYamlDepth) {
    throw InputError(file, line_of_node(node), "", fmt::format("nested deeper than {} levels", kMaxYamlDepth));
  }
  if (node.IsSequence()) {
    for (const YAML::Node& item : node) bound_expansion(item, depth + 1, nodes, file);
  } else if (node.IsMap()) {
    for (auto it = node.begin(); it != node.end(); ++it) {
      bound_expansion(it->first, depth + 1, nodes, file);
      bound_expansion(it->second, depth + 1, nodes, file);
    }
  }
}

}  // namespace

YAML::Node parse_yaml_document(const std::string& text, const std::string& file) {
  YAML::Node doc;
  try {
    doc = YAML::Load(text);
  } catch (const YAML::DeepRecursion& e) {
    // yaml-cpp's own guard (its message says "bad file"); the document is too deep either way.
    throw InputError(file, e.mark.line >= 0 ? e.mark.line + 1 : 0, "",
                     fmt::format("nested deeper than {} levels", kMaxYamlDepth));
  } catch (const YAML::Exception& e) {
    throw InputError(file, e.mark.line >= 0 ? e.mark.line + 1 : 0, "", "malformed YAML: " + e.msg);
  }
  std::size_t nodes = 0;
  bound_expansion(doc, 0, nodes, file);
  return doc;
}

YamlFields::YamlFields(const YAML::Node& node, std::string file, std::string path)
    : node_(node), file_(std::move(file)), path_(std::move(path)) {
  if (!node_.IsMap()) {
    throw InputError(file_, line_of_node(node_), path_.empty() ? "(root)" : path_,
                     fmt::format("expected a mapping, got {}", type_name(node_)));
  }
  std::set<std::string> seen;
  for (auto it = node_.begin(); it != node_.end(); ++it) {
    if (!it->first.IsScalar()) {
      throw InputError(file_, line_of_node(it->first), path_, "mapping keys must be plain names");
    }
    const std::string key = it->first.Scalar();
    if (!seen.insert(key).second) {
      throw InputError(file_, line_of_node(it->first), field_name(key), "duplicate key");
    }
  }
}

std::string YamlFields::field_name(const std::string& key) const {
  return path_.empty() ? key : path_ + "." + key;
}

void YamlFields::fail(const std::string& key, const std::string& what) const {
  throw InputError(file_, line_of(key), field_name(key), what);
}

bool YamlFields::has(const std::string& key) const {
  for (auto it = node_.begin(); it != node_.end(); ++it) {
    if (it->first.Scalar() == key) return true;
  }
  return false;
}

long YamlFields::line() const { return line_of_node(node_); }

long YamlFields::line_of(const std::string& key) const {
  for (auto it = node_.begin(); it != node_.end(); ++it) {
    if (it->first.Scalar() == key) {
      const long l = line_of_node(it->second);
      return l > 0 ? l : line_of_node(it->first);
    }
  }
  return line();
}

long YamlFields::key_line(const std::string& key) const {
  for (auto it = node_.begin(); it != node_.end(); ++it) {
    if (it->first.Scalar() == key) return line_of_node(it->first);
  }
  return line();
}

std::vector<std::string> YamlFields::keys() const {
  std::vector<std::string> out;
  for (auto it = node_.begin(); it != node_.end(); ++it) out.push_back(it->first.Scalar());
  return out;
}

YAML::Node YamlFields::get(const std::string& key) const {
  for (auto it = node_.begin(); it != node_.end(); ++it) {
    if (it->first.Scalar() == key) return it->second;
  }
  throw InputError(file_, line(), field_name(key), "missing");
}

std::string YamlFields::str(const std::string& key) const {
  const YAML::Node v = get(key);
  if (!v.IsScalar()) fail(key, fmt::format("expected a string, got {}", type_name(v)));
  return v.Scalar();
}

std::optional<std::string> YamlFields::opt_str(const std::string& key) const {
  if (!has(key) || get(key).IsNull()) return std::nullopt;
  return str(key);
}

bool YamlFields::boolean(const std::string& key) const {
  const YAML::Node v = get(key);
  if (v.IsScalar() && is_plain(v)) {
    if (v.Scalar() == "true") return true;
    if (v.Scalar() == "false") return false;
  }
  fail(key, fmt::format("expected true or false, got {}", v.IsScalar() ? "'" + v.Scalar() + "'" : type_name(v)));
}

std::int64_t YamlFields::integer(const std::string& key) const {
  const YAML::Node v = get(key);
  if (v.IsScalar() && is_plain(v)) {
    if (const auto out = parse_integer(v.Scalar())) return *out;
  }
  fail(key, fmt::format("expected an integer, got {}", v.IsScalar() ? "'" + v.Scalar() + "'" : type_name(v)));
}

YamlFields YamlFields::mapping(const std::string& key) const {
  const YAML::Node v = get(key);
  if (!v.IsMap()) fail(key, fmt::format("expected a mapping, got {}", type_name(v)));
  return YamlFields(v, file_, field_name(key));
}

void YamlFields::refuse_unknown(const std::vector<std::string>& known) const {
  for (const std::string& key : keys()) {
    if (std::find(known.begin(), known.end(), key) == known.end()) {
      std::string list;
      for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
      fail(key, fmt::format("unknown field (expected one of: {})", list));
    }
  }
}

namespace {

std::string escape_pointer(const std::string& key) {
  std::string out;
  for (char c : key) {
    if (c == '~') out += "~0";
    else if (c == '/') out += "~1";
    else out += c;
  }
  return out;
}

nlohmann::json typed_scalar(const YAML::Node& n) {
  const std::string& s = n.Scalar();
  if (!is_plain(n)) return s;
  if (s == "null" || s == "~" || s == "Null" || s == "NULL") return nullptr;
  if (s == "true" || s == "True" || s == "TRUE") return true;
  if (s == "false" || s == "False" || s == "FALSE") return false;
  if (const auto i = parse_integer(s)) return *i;
  if (const auto d = parse_decimal(s)) return *d;  // finite only: 1e400 and nan stay text
  return s;
}

}  // namespace

nlohmann::json yaml_to_json(const YAML::Node& node, std::map<std::string, long>& lines,
                            const std::string& pointer) {
  lines[pointer] = line_of_node(node);
  switch (node.Type()) {
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined: return nullptr;
    case YAML::NodeType::Scalar: return typed_scalar(node);
    case YAML::NodeType::Sequence: {
      nlohmann::json a = nlohmann::json::array();
      std::size_t i = 0;
      for (const YAML::Node& item : node) {
        a.push_back(yaml_to_json(item, lines, pointer + "/" + std::to_string(i++)));
      }
      return a;
    }
    case YAML::NodeType::Map: {
      nlohmann::json o = nlohmann::json::object();
      for (auto it = node.begin(); it != node.end(); ++it) {
        const std::string key = it->first.Scalar();
        o[key] = yaml_to_json(it->second, lines, pointer + "/" + escape_pointer(key));
        if (lines[pointer + "/" + escape_pointer(key)] == 0) {
          lines[pointer + "/" + escape_pointer(key)] = line_of_node(it->first);
        }
      }
      return o;
    }
  }
  return nullptr;
}

}  // namespace caliber
