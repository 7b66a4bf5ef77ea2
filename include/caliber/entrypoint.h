// How a provider is reached (a baseline matrix's `entrypoint`, docs/baseline-matrix.md): a
// provider compiled into caliber, or a symbol of a plugin library (docs/plugins.md).
#pragma once

#include <string>

namespace caliber {

// How a provider is reached: a provider compiled into caliber, or a plugin library's symbol.
struct Entrypoint {
  enum class Kind { builtin, plugin };
  Kind kind = Kind::builtin;
  std::string builtin;  // Kind::builtin: "caliber", "naive", "cublas", ...
  std::string library;  // Kind::plugin: the shared library, as written (see resolved_library)
  std::string symbol;   // Kind::plugin: the entry function (plugin_abi.h)
  std::string text;     // as written in the matrix

  // "builtin:NAME" or "PATH:SYMBOL" (the last ':' separates the symbol). Throws UsageError.
  static Entrypoint parse(const std::string& text);
};

// The library path of a plugin entrypoint: absolute paths as written; "@plugins/NAME" in
// caliber's own plugin directory (plugin_directory()); any other relative path against the
// directory of the matrix file.
std::string resolved_library(const Entrypoint& e, const std::string& matrix_file);

// caliber's plugin directory: $CALIBER_PLUGIN_DIR when set, else "plugins" beside the running
// executable (the build tree), else <prefix>/lib/caliber/plugins beside an installed bin/.
std::string plugin_directory();

}  // namespace caliber
