// The baseline matrix (baseline_matrix.yaml): which providers run for an op, how each is reached,
// and why a disabled one is disabled. docs/baseline-matrix.md documents every field.
//
//   schema_version: 1
//   kernel: rmsnorm               # the ledger's kernel_name
//   op_type: rmsnorm
//   dtype: [fp32, bf16, fp16]     # one dtype or a list
//   reference_provider: naive     # the baseline of record (the fp64 golden comes from the op)
//   layout_contract: row_major    # the layout every provider must honour
//   providers:
//     caliber: {enabled: true, entrypoint: "builtin:caliber", provider: caliber}
//     mine:    {enabled: true, entrypoint: "plugins/libmine.so:my_rmsnorm", provider: plugin}
//     cudnn:   {enabled: false, provider: cudnn, skip_reason: "..."}
//
// The reader is strict: unknown keys, wrong types, unknown dtypes or ops, duplicate provider
// names, a disabled provider without skip_reason or an enabled one without entrypoint are
// InputErrors naming file, line (from the YAML parser's marks) and field.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "caliber/dtype.h"

namespace caliber {

inline constexpr int kBaselineMatrixSchemaVersion = 1;

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

struct MatrixProvider {
  std::string name;                       // the key; results rows carry it as `provider`
  bool enabled = false;
  std::optional<Entrypoint> entrypoint;   // required when enabled
  std::string provider;                   // who implements it: caliber, cublas, openblas, plugin, ...
  std::optional<std::string> skip_reason; // required when disabled
  std::optional<std::string> notes;
  long line = 0;                          // line of the provider's key in the matrix
};

struct BaselineMatrix {
  std::string file;  // where it was read from; plugin paths resolve against its directory
  std::string kernel;
  std::string op_type;
  std::vector<DType> dtypes;
  std::string reference_provider;
  std::string layout_contract;
  std::vector<MatrixProvider> providers;  // in file order

  const MatrixProvider* find(const std::string& name) const;
  bool covers(DType d) const;
};

BaselineMatrix parse_baseline_matrix(const std::string& text, const std::string& file);
BaselineMatrix read_baseline_matrix(const std::string& file);

// The library path of a plugin entrypoint: absolute paths as written; "@plugins/NAME" in
// caliber's own plugin directory (plugin_directory()); any other relative path against the
// directory of the matrix file.
std::string resolved_library(const Entrypoint& e, const std::string& matrix_file);

// caliber's plugin directory: $CALIBER_PLUGIN_DIR when set, else "plugins" beside the running
// executable (the build tree), else <prefix>/lib/caliber/plugins beside an installed bin/.
std::string plugin_directory();

}  // namespace caliber
