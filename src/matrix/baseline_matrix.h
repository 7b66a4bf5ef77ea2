// The baseline matrix (baseline_matrix.yaml): which providers run for an op, how each is reached,
// and why a disabled one is disabled. docs/baseline-matrix.md documents every field; the file is
// read by io/baseline_matrix_yaml.h.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "caliber/dtype.h"
#include "ops/entrypoint.h"

namespace caliber {

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

}  // namespace caliber
