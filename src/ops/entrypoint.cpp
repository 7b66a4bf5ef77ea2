// How a provider is reached: "builtin:NAME", a Python file's provider or a plugin library's
// symbol, and where plugin libraries and Python files are found.
#include "ops/entrypoint.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string_view>

#include <fmt/format.h>

#include "caliber/errors.h"
#include "core/one_line.h"

namespace caliber {

namespace fs = std::filesystem;

namespace {

// A symbol's longest name: far above any real one, and a bound on what a matrix can make caliber
// look up.
constexpr std::size_t kMaxSymbolBytes = 256;

// [A-Za-z_][A-Za-z0-9_]*, at most kMaxSymbolBytes long.
bool is_symbol_name(std::string_view s) {
  const auto letter = [](char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; };
  if (s.empty() || s.size() > kMaxSymbolBytes || !letter(s.front())) return false;
  return std::all_of(s.begin(), s.end(), [&](char c) { return letter(c) || (c >= '0' && c <= '9'); });
}

constexpr std::string_view kOwnPluginPrefix = "@plugins/";

// A library named in caliber's own plugin directory stays in it: no "..", no absolute part, no
// empty name (the library is loaded, and its constructors run, before anything else is checked).
std::optional<std::string> own_plugin_name_problem(const std::string& library) {
  if (!library.starts_with(kOwnPluginPrefix)) return std::nullopt;
  const fs::path name(library.substr(kOwnPluginPrefix.size()));
  const bool leaves = std::any_of(name.begin(), name.end(), [](const fs::path& part) { return part == ".."; });
  if (name.empty() || name.is_absolute() || leaves || !name.has_filename()) {
    return fmt::format("'{}' is not a file inside caliber's plugin directory ({} names a library there, "
                       "without '..')",
                       quoted_text(library), kOwnPluginPrefix);
  }
  return std::nullopt;
}

}  // namespace

Entrypoint Entrypoint::parse(const std::string& text) {
  Entrypoint e;
  e.text = text;
  const std::string builtin_prefix = "builtin:";
  if (text.rfind(builtin_prefix, 0) == 0) {
    e.kind = Kind::builtin;
    e.builtin = text.substr(builtin_prefix.size());
    if (e.builtin.empty()) throw UsageError(fmt::format("'{}': builtin: needs a provider name", text));
    return e;
  }
  const std::string python_prefix = "python:";
  const bool python = text.rfind(python_prefix, 0) == 0;
  const std::string rest = python ? text.substr(python_prefix.size()) : text;
  const std::size_t colon = rest.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == rest.size()) {
    throw UsageError(fmt::format("'{}': expected {}", quoted_text(text),
                                 python ? "python:path/to/file.py:NAME"
                                        : "builtin:NAME, python:path/to/file.py:NAME or path/to/lib.so:symbol"));
  }
  e.kind = python ? Kind::python : Kind::plugin;
  e.library = rest.substr(0, colon);
  e.symbol = rest.substr(colon + 1);
  if (!is_symbol_name(e.symbol)) {
    throw UsageError(fmt::format("'{}': '{}' is not a {} name (letters, digits and '_', at most {} characters)",
                                 quoted_text(text), quoted_text(e.symbol), python ? "Python" : "C symbol",
                                 kMaxSymbolBytes));
  }
  if (const auto why = own_plugin_name_problem(e.library)) {
    throw UsageError(fmt::format("'{}': {}", quoted_text(text), *why));
  }
  if (python && !e.library.ends_with(".py")) {
    throw UsageError(fmt::format("'{}': '{}' is not a Python file (expected a .py path)", quoted_text(text), quoted_text(e.library)));
  }
  return e;
}

std::string plugin_directory() {
  if (const char* env = std::getenv("CALIBER_PLUGIN_DIR"); env && *env) return env;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return "plugins";
  const fs::path beside = exe.parent_path() / "plugins";
  if (fs::is_directory(beside, ec)) return beside.string();
#ifdef CALIBER_INSTALL_PLUGINDIR
  return (exe.parent_path().parent_path() / CALIBER_INSTALL_PLUGINDIR).string();
#else
  return (exe.parent_path().parent_path() / "lib" / "caliber" / "plugins").string();
#endif
}

std::string resolved_library(const Entrypoint& e, const std::string& matrix_file) {
  if (e.library.starts_with(kOwnPluginPrefix)) {
    return (fs::path(plugin_directory()) / e.library.substr(kOwnPluginPrefix.size())).string();
  }
  const fs::path p(e.library);
  if (p.is_absolute()) return p.string();
  const fs::path resolved = (fs::path(matrix_file).parent_path() / p).lexically_normal();
  // A name without a directory ("libx.so" beside a matrix given as "m.yaml" or "./m.yaml") would
  // send dlopen to the system's library search path instead of the matrix's folder.
  if (!resolved.has_parent_path()) return (fs::path(".") / resolved).string();
  return resolved.string();
}

}  // namespace caliber
