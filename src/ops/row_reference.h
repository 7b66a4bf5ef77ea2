// caliber's own fp64 references of the shipped ops (docs/ops.md): an output row at a time from
// the (dtype-rounded) host inputs, so a check can compare rows drawn at random without computing
// the whole output. A shipped op's description names its reference as `builtin:NAME`
// (ops/*.op.yaml); an op of your own's reference is a provider (docs/user-ops.md).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ops/host_tensor.h"
#include "ops/op_shape.h"

namespace caliber::ops {

class RowReference {
 public:
  virtual ~RowReference() = default;
  // The fp64 reference of output row `row`; `out` has n entries, `scratch` is reusable memory.
  virtual void reference_row(const OpShape& s, const std::vector<HostTensor>& inputs, std::int64_t row, double* out,
                             std::vector<double>& scratch) const = 0;
  // The reference of `count` rows into out[count * n]; the default calls reference_row per row.
  virtual void reference_rows(const OpShape& s, const std::vector<HostTensor>& inputs, const std::int64_t* rows,
                              std::size_t count, double* out) const;
  // Whether reference_rows parallelizes itself (then it is called once with every row).
  virtual bool parallel_reference() const { return false; }
  // Work of one row, in multiply-adds (sizes how many rows a check compares).
  virtual double reference_row_work(const OpShape& s) const = 0;
};

// The reference named `name` ("rmsnorm", "layernorm", "softmax", "gemm"), or null.
const RowReference* find_row_reference(std::string_view name);

}  // namespace caliber::ops
