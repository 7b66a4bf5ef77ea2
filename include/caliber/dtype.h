// Element types of op tensors, as written in shape ledgers, baseline matrices and results.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

namespace caliber {

enum class DType {
  fp32,  // IEEE binary32
  bf16,  // bfloat16: binary32 with the low 16 mantissa bits dropped (8 significant bits)
  fp16,  // IEEE binary16 (11 significant bits)
};

std::string_view to_string(DType d);
// Unknown names throw UsageError listing the accepted values.
DType parse_dtype(std::string_view s);
std::size_t dtype_size_bytes(DType d);
const std::vector<DType>& all_dtypes();

}  // namespace caliber
