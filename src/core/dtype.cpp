#include "caliber/dtype.h"

#include <fmt/format.h>

#include "caliber/errors.h"

namespace caliber {

std::string_view to_string(DType d) {
  switch (d) {
    case DType::fp32: return "fp32";
    case DType::bf16: return "bf16";
    case DType::fp16: return "fp16";
  }
  return "?";
}

DType parse_dtype(std::string_view s) {
  for (DType d : all_dtypes()) {
    if (to_string(d) == s) return d;
  }
  throw UsageError(fmt::format("unknown dtype '{}' (expected fp32|bf16|fp16)", s));
}

std::size_t dtype_size_bytes(DType d) { return d == DType::fp32 ? 4 : 2; }

const std::vector<DType>& all_dtypes() {
  static const std::vector<DType> all = {DType::fp32, DType::bf16, DType::fp16};
  return all;
}

}  // namespace caliber
