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

std::string_view to_string(ElementType e) {
  switch (e) {
    case ElementType::fp32: return "fp32";
    case ElementType::bf16: return "bf16";
    case ElementType::fp16: return "fp16";
    case ElementType::fp64: return "fp64";
    case ElementType::fp8_e4m3: return "fp8_e4m3";
    case ElementType::fp8_e5m2: return "fp8_e5m2";
    case ElementType::int8: return "int8";
    case ElementType::uint8: return "uint8";
    case ElementType::int32: return "int32";
    case ElementType::int64: return "int64";
    case ElementType::boolean: return "bool";
  }
  return "?";
}

const std::vector<ElementType>& all_element_types() {
  static const std::vector<ElementType> all = {
      ElementType::fp64,  ElementType::fp32,  ElementType::fp16,  ElementType::bf16,
      ElementType::fp8_e4m3, ElementType::fp8_e5m2, ElementType::int8, ElementType::uint8,
      ElementType::int32, ElementType::int64, ElementType::boolean};
  return all;
}

ElementType parse_element_type(std::string_view s) {
  std::string names;
  for (ElementType e : all_element_types()) {
    if (to_string(e) == s) return e;
    names += (names.empty() ? "" : "|") + std::string(to_string(e));
  }
  throw UsageError(fmt::format("unknown dtype '{}' (expected {})", s, names));
}

std::size_t element_size_bytes(ElementType e) {
  switch (e) {
    case ElementType::fp64:
    case ElementType::int64: return 8;
    case ElementType::fp32:
    case ElementType::int32: return 4;
    case ElementType::bf16:
    case ElementType::fp16: return 2;
    case ElementType::fp8_e4m3:
    case ElementType::fp8_e5m2:
    case ElementType::int8:
    case ElementType::uint8:
    case ElementType::boolean: return 1;
  }
  return 1;
}

ElementType element_of(DType d) {
  switch (d) {
    case DType::fp32: return ElementType::fp32;
    case DType::bf16: return ElementType::bf16;
    case DType::fp16: return ElementType::fp16;
  }
  return ElementType::fp32;
}

std::optional<DType> shape_dtype_of(ElementType e) {
  switch (e) {
    case ElementType::fp32: return DType::fp32;
    case ElementType::bf16: return DType::bf16;
    case ElementType::fp16: return DType::fp16;
    default: return std::nullopt;
  }
}

bool is_integer(ElementType e) {
  return e == ElementType::int8 || e == ElementType::uint8 || e == ElementType::int32 || e == ElementType::int64 ||
         e == ElementType::boolean;
}

}  // namespace caliber
