// The ops caliber ships by type, and the arguments of one problem (a ledger row's op_type, dtype,
// layout and args) once parsed (by its op: ops/op_catalog.h). docs/ops.md documents every op's
// arguments.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "caliber/dtype.h"

namespace caliber::ops {

enum class OpType {
  rmsnorm,    // y = x / sqrt(mean(x^2) + eps) * weight, per row of x[m, n]
  layernorm,  // y = (x - mean) / sqrt(var + eps) * weight + bias, per row of x[m, n]
  softmax,    // y = exp(x - max) / sum(exp(x - max)), over the last dimension of x[m, n]
  gemm,       // C[m, n] = A[m, k] B[k, n], fp32 accumulation
  described,  // an op of your own, defined by its description (docs/user-ops.md)
};

class DescribedOp;

std::string_view to_string(OpType op);
// The shipped ops only (every op is found by name: ops/op_catalog.h). Unknown names throw
// UsageError listing the accepted values.
OpType parse_op_type(std::string_view s);
// The shipped ops.
const std::vector<OpType>& all_op_types();

// The one layout every op supports today: every tensor contiguous and row-major
// (gemm: A[m, k], B[k, n] and C[m, n] all row-major).
inline constexpr std::string_view kRowMajor = "row_major";

// Largest accepted dimension and tensor element count (guards every size computation).
inline constexpr std::int64_t kMaxDim = (std::int64_t{1} << 31) - 1;
inline constexpr std::int64_t kMaxElements = std::int64_t{1} << 40;

struct OpShape {
  OpType op = OpType::rmsnorm;
  DType dtype = DType::fp32;
  std::string layout{kRowMajor};
  std::int64_t m = 0;  // rows (gemm: rows of A and C)
  std::int64_t n = 0;  // columns (gemm: columns of B and C)
  std::int64_t k = 0;  // gemm: the reduction dimension; 0 otherwise
  double eps = 0;      // rmsnorm, layernorm; 0 otherwise
  // The op (every op is described; owned by the op catalog, alive until the process ends) and
  // the values of its args by name. m, n, k and eps are the args of those names (0 where the op
  // has none): the shipped ops' compiled providers read them.
  const DescribedOp* described = nullptr;
  std::map<std::string, double> values;

  // The op; std::logic_error for a shape made by hand (ops::parse_shape, ops::shipped_shape).
  const DescribedOp& op_description() const;
  // The op's name (its description's).
  std::string op_name() const;

  // "m=4096 n=8192 eps=1e-06", for log lines.
  std::string describe() const;
  friend bool operator==(const OpShape&, const OpShape&) = default;
};

// The args object of a shape (keys sorted, as written to ledgers).
nlohmann::json args_to_json(const OpShape& shape);

// "k=v,k=v" as a JSON object: numbers where is_number(key), integers elsewhere; a malformed item,
// a key given twice or a value of the wrong kind is a UsageError naming `option`.
nlohmann::json parse_key_values(const std::string& text, const std::string& option,
                                const std::function<bool(const std::string&)>& is_number);

}  // namespace caliber::ops
