// baseline_matrix.yaml, read strictly:
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

#include <string>

#include "matrix/baseline_matrix.h"

namespace caliber {

inline constexpr int kBaselineMatrixSchemaVersion = 1;

BaselineMatrix parse_baseline_matrix(const std::string& text, const std::string& file);
BaselineMatrix read_baseline_matrix(const std::string& file);

}  // namespace caliber
