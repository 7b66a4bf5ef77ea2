// How a provider is reached (a baseline matrix's `entrypoint`, docs/baseline-matrix.md): a
// provider compiled into caliber, a symbol of a plugin library (docs/plugins.md), or a provider
// object of a Python file (docs/python.md, "Python providers").
#pragma once

#include <string>

namespace caliber {

// How a provider is reached: a provider compiled into caliber, a plugin library's symbol, or a
// Python provider: an object of a Python file, run by a worker that Python hosts (its calls reach
// caliber through plugin ABI entries the worker registers, docs/python.md).
struct Entrypoint {
  enum class Kind { builtin, plugin, python };
  Kind kind = Kind::builtin;
  std::string builtin;  // Kind::builtin: "caliber", "naive", "cublas", ...
  std::string library;  // Kind::plugin: the shared library; Kind::python: the .py file; as written
                        // (see resolved_library)
  std::string symbol;   // Kind::plugin: the entry function (plugin_abi.h); Kind::python: the name
                        // of the provider object in the file
  std::string text;     // as written in the matrix

  // "builtin:NAME", "python:PATH.py:NAME" or "PATH:SYMBOL" (the last ':' separates the symbol).
  // Throws UsageError.
  static Entrypoint parse(const std::string& text);
  // A plugin library or a Python file: something caliber loads, hashes and fingerprints.
  bool loaded_from_file() const { return kind != Kind::builtin; }
};

// The library (or Python file) path of a plugin or python entrypoint: absolute paths as written; "@plugins/NAME" in
// caliber's own plugin directory (plugin_directory()); any other relative path against the
// directory of the matrix file.
std::string resolved_library(const Entrypoint& e, const std::string& matrix_file);

// caliber's plugin directory: $CALIBER_PLUGIN_DIR when set, else "plugins" beside the running
// executable (the build tree), else <prefix>/lib/caliber/plugins beside an installed bin/.
std::string plugin_directory();

}  // namespace caliber
