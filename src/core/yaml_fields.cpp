#include "core/yaml_fields.h"

#include <optional>
#include <set>
#include <sstream>
#include <unordered_set>
#include <vector>

#include <fmt/format.h>
#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/parser.h>

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

// A walk over a document as a reader sees it, aliases expanded (yaml-cpp shares an aliased node,
// so the document in memory stays small while a walk over it is exponential: "billion laughs").
struct DocumentWalk {
  const std::string& file;
  std::size_t nodes = 0;              // as read, each alias counted every time it is used
  std::unordered_set<std::size_t> at;  // where those nodes are written (distinct: as written)
};

// Tags a reader may meet: none ("?" plain, "!" quoted) and YAML's own (!!str, !!int, ...). Any
// other (!custom, !!python/object) asks a loader for something caliber's YAML does not mean.
bool is_known_tag(const std::string& tag) {
  static const std::set<std::string> core = {"tag:yaml.org,2002:str", "tag:yaml.org,2002:int",
                                             "tag:yaml.org,2002:float", "tag:yaml.org,2002:bool",
                                             "tag:yaml.org,2002:null", "tag:yaml.org,2002:map",
                                             "tag:yaml.org,2002:seq"};
  return tag.empty() || tag == "?" || tag == "!" || core.count(tag) > 0;
}

// Refuses more than kMaxYamlNodes (saying whether aliases make them), nesting deeper than
// kMaxYamlDepth, and custom tags.
void walk(const YAML::Node& node, int depth, DocumentWalk& w) {
  if (w.at.size() <= kMaxYamlNodes) w.at.insert(static_cast<std::size_t>(node.Mark().pos));
  if (++w.nodes > kMaxYamlNodes) {
    throw InputError(w.file, line_of_node(node), "",
                     // Mostly distinct places: a file this large as written (a mapping and its
                     // first key share one place); else its aliases make it so.
                     2 * w.at.size() > w.nodes
                         ? fmt::format("holds more than {} nodes, the most caliber reads from one YAML file",
                                       kMaxYamlNodes)
                         : fmt::format("its aliases expand to more than {} nodes; caliber refuses it", kMaxYamlNodes));
  }
  if (depth > kMaxYamlDepth) {
    throw InputError(w.file, line_of_node(node), "", fmt::format("nested deeper than {} levels", kMaxYamlDepth));
  }
  if (!is_known_tag(node.Tag())) {
    throw InputError(w.file, line_of_node(node), "",
                     fmt::format("custom tag '{}': caliber's YAML files hold plain values only", node.Tag()));
  }
  if (node.IsSequence()) {
    for (const YAML::Node& item : node) walk(item, depth + 1, w);
  } else if (node.IsMap()) {
    for (auto it = node.begin(); it != node.end(); ++it) {
      walk(it->first, depth + 1, w);
      walk(it->second, depth + 1, w);
    }
  }
}

// The first place a document holds something (a null, as in an empty "---" at the end, is nothing).
class FirstContent : public YAML::EventHandler {
 public:
  std::optional<long> line;
  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark& m, YAML::anchor_t) override { note(m); }
  void OnScalar(const YAML::Mark& m, const std::string&, YAML::anchor_t, const std::string&) override { note(m); }
  void OnSequenceStart(const YAML::Mark& m, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
    note(m);
  }
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark& m, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
    note(m);
  }
  void OnMapEnd() override {}

 private:
  void note(const YAML::Mark& m) {
    if (!line) line = m.line >= 0 ? m.line + 1 : 0;
  }
};

// A second document would be read by nothing: what it says would be silently ignored. Empty
// documents ("---" at the end) say nothing. At most 16 documents are looked at: yaml-cpp's
// LoadAll can go on without end on malformed input, and a file of more is refused anyway.
void refuse_second_document(const std::string& text, const std::string& file) {
  constexpr int kMaxDocuments = 16;
  std::istringstream in(text);
  YAML::Parser parser(in);
  FirstContent first;
  if (!parser.HandleNextDocument(first)) return;
  for (int i = 1; i < kMaxDocuments; ++i) {
    FirstContent next;
    if (!parser.HandleNextDocument(next)) return;
    if (next.line) {
      throw InputError(file, *next.line, "", "holds more than one YAML document ('---'); caliber reads one");
    }
  }
  throw InputError(file, 0, "", fmt::format("holds more than {} YAML documents; caliber reads one", kMaxDocuments));
}

}  // namespace

YAML::Node parse_yaml_document(const std::string& text, const std::string& file) {
  YAML::Node doc;
  try {
    doc = YAML::Load(text);
    refuse_second_document(text, file);
  } catch (const YAML::DeepRecursion& e) {
    // yaml-cpp's own guard (its message says "bad file"); the document is too deep either way.
    throw InputError(file, e.mark.line >= 0 ? e.mark.line + 1 : 0, "",
                     fmt::format("nested deeper than {} levels", kMaxYamlDepth));
  } catch (const YAML::Exception& e) {
    throw InputError(file, e.mark.line >= 0 ? e.mark.line + 1 : 0, "", "malformed YAML: " + e.msg);
  }
  DocumentWalk w{file};
  walk(doc, 0, w);
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
