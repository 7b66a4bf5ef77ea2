#include "ab/cell_command.h"

#include <algorithm>

#include <fmt/format.h>

#include "caliber/errors.h"

namespace caliber {
namespace {

const std::vector<std::string>& known_placeholders() {
  static const std::vector<std::string> names = {"binary", "plugin", "plugin_path", "plugin_symbol", "matrix",
                                                 "ledger", "op",     "out",         "round",         "side",
                                                 "seed"};
  return names;
}

std::string known_list() {
  std::string out;
  for (const auto& n : known_placeholders()) out += (out.empty() ? "{" : ", {") + n + "}";
  return out;
}

std::string side_value(const std::string& name, const AbSide& s, const CellValues& v, bool* has) {
  *has = true;
  const auto colon = s.plugin.rfind(':');
  if (name == "binary") *has = !s.binary.empty();
  if (name == "plugin" || name == "plugin_path" || name == "plugin_symbol") *has = !s.plugin.empty();
  if (name == "matrix") *has = !s.matrix.empty();
  if (name == "ledger") *has = !v.ledger.empty();
  if (name == "binary") return s.binary;
  if (name == "plugin") return s.plugin;
  if (name == "plugin_path") return colon == std::string::npos ? s.plugin : s.plugin.substr(0, colon);
  if (name == "plugin_symbol") return colon == std::string::npos ? std::string() : s.plugin.substr(colon + 1);
  if (name == "matrix") return s.matrix;
  if (name == "ledger") return v.ledger;
  if (name == "op") return v.op;
  if (name == "out") return v.out;
  if (name == "round") return std::to_string(v.round);
  if (name == "side") return std::string(1, s.name);
  return std::to_string(v.seed);  // "seed"
}

}  // namespace

std::string shell_quote(const std::string& value) {
  std::string out = "'";
  for (char c : value) {
    if (c == '\'') out += "'\\''";
    else out.push_back(c);
  }
  return out + "'";
}

std::vector<std::string> cell_placeholders(const std::string& tmpl) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < tmpl.size(); ++i) {
    if (tmpl[i] != '{') continue;
    if (i > 0 && tmpl[i - 1] == '$') continue;  // ${VAR}: the shell's, not ours
    const std::size_t close = tmpl.find('}', i);
    if (close == std::string::npos) throw UsageError(fmt::format("--cell-command: unterminated '{{' at column {}", i + 1));
    const std::string name = tmpl.substr(i + 1, close - i - 1);
    const auto& known = known_placeholders();
    if (std::find(known.begin(), known.end(), name) == known.end()) {
      throw UsageError(fmt::format("--cell-command: unknown placeholder {{{}}} (known: {})", name, known_list()));
    }
    if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
    i = close;
  }
  return out;
}

std::string expand_cell_command(const std::string& tmpl, const AbSide& side, const CellValues& values) {
  cell_placeholders(tmpl);  // validates
  std::string out;
  for (std::size_t i = 0; i < tmpl.size(); ++i) {
    if (tmpl[i] != '{' || (i > 0 && tmpl[i - 1] == '$')) {
      out.push_back(tmpl[i]);
      continue;
    }
    const std::size_t close = tmpl.find('}', i);
    const std::string name = tmpl.substr(i + 1, close - i - 1);
    bool has = false;
    const std::string value = side_value(name, side, values, &has);
    if (!has) throw UsageError(fmt::format("--cell-command uses {{{}}} but side {} has no value for it", name, side.name));
    out += shell_quote(value);
    i = close;
  }
  return out;
}

void validate_cell_template(const std::string& tmpl, const AbSide& a, const AbSide& b, bool have_ledger) {
  const std::vector<std::string> used = cell_placeholders(tmpl);
  const auto uses = [&](std::initializer_list<const char*> names) {
    return std::any_of(names.begin(), names.end(),
                       [&](const char* n) { return std::find(used.begin(), used.end(), n) != used.end(); });
  };
  if (!uses({"out"})) throw UsageError("--cell-command must use {out}: each cell writes its results to its own directory");
  for (const AbSide* s : {&a, &b}) {
    const char n = static_cast<char>(s->name + ('a' - 'A'));
    if (!s->binary.empty() && !uses({"binary"})) {
      throw UsageError(fmt::format("--{}-binary is given but --cell-command has no {{binary}}: the sides would not "
                                   "differ in it", n));
    }
    if (!s->plugin.empty() && !uses({"plugin", "plugin_path", "plugin_symbol"})) {
      throw UsageError(fmt::format("--{}-plugin is given but --cell-command has no {{plugin}}: the sides would not "
                                   "differ in it", n));
    }
    if (!s->matrix.empty() && !uses({"matrix"})) {
      throw UsageError(fmt::format("--{}-matrix is given but --cell-command has no {{matrix}}", n));
    }
  }
  if (uses({"ledger"}) && !have_ledger) throw UsageError("--cell-command uses {ledger}: give --shape-ledger");
}

}  // namespace caliber
