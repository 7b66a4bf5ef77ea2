// The shipped ops' fp64 row references by name, and what they share.
#include "ops/row_reference.h"

namespace caliber::ops {

const RowReference& rmsnorm_reference();
const RowReference& layernorm_reference();
const RowReference& softmax_reference();
const RowReference& gemm_reference();

const RowReference* find_row_reference(std::string_view name) {
  if (name == "rmsnorm") return &rmsnorm_reference();
  if (name == "layernorm") return &layernorm_reference();
  if (name == "softmax") return &softmax_reference();
  if (name == "gemm") return &gemm_reference();
  return nullptr;
}

void RowReference::reference_rows(const OpShape& s, const std::vector<HostTensor>& inputs, const std::int64_t* rows,
                                  std::size_t count, double* out) const {
  std::vector<double> scratch;
  for (std::size_t i = 0; i < count; ++i) {
    reference_row(s, inputs, rows[i], out + i * static_cast<std::size_t>(s.n), scratch);
  }
}

}  // namespace caliber::ops
