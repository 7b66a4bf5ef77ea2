// The baseline matrix's lookups (the file: io/baseline_matrix_yaml.h).
#include "matrix/baseline_matrix.h"

#include <algorithm>

namespace caliber {

const MatrixProvider* BaselineMatrix::find(const std::string& name) const {
  for (const auto& p : providers) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

bool BaselineMatrix::covers(DType d) const {
  return std::find(dtypes.begin(), dtypes.end(), d) != dtypes.end();
}

}  // namespace caliber
