// The baseline matrix (baseline_matrix.yaml): which providers run for an op, how each is reached,
// and why a disabled one is disabled. docs/baseline-matrix.md documents every field.
//
//   schema_version: 1
//   kernel: rmsnorm               # the ledger's kernel_name
//   op_type: rmsnorm
//   op_description: add_rmsnorm.op.yaml   # only for an op of your own (docs/user-ops.md)
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
#include "caliber/entrypoint.h"

namespace caliber {

inline constexpr int kBaselineMatrixSchemaVersion = 1;

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
  // An op of your own: its description (docs/user-ops.md), resolved against the matrix's
  // directory. Reading the matrix registers it, so ledgers of the op read afterwards.
  std::optional<std::string> op_description;
  std::vector<DType> dtypes;
  std::string reference_provider;
  std::string layout_contract;
  std::vector<MatrixProvider> providers;  // in file order

  const MatrixProvider* find(const std::string& name) const;
  bool covers(DType d) const;
};

BaselineMatrix parse_baseline_matrix(const std::string& text, const std::string& file);
BaselineMatrix read_baseline_matrix(const std::string& file);

}  // namespace caliber
