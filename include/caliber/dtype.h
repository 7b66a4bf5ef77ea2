// Element types: a shape's dtype (DType: what shape ledgers, baseline matrices and results name),
// and the element type of one tensor of an op (ElementType: a described op's tensors may name
// their own, docs/user-ops.md, "Tensor dtypes").
#pragma once

#include <cstddef>
#include <optional>
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

// The element type of one tensor. The first three are the shape dtypes'; the others only a
// described op's tensors name. fp8: the OCP 8-bit formats (e4m3 "fn": no infinity, max 448;
// e5m2: IEEE-like, max 57344).
enum class ElementType {
  fp32,
  bf16,
  fp16,
  fp64,
  fp8_e4m3,
  fp8_e5m2,
  int8,
  uint8,
  int32,
  int64,
  boolean,  // one byte, 0 or 1 ("bool")
};

std::string_view to_string(ElementType e);
// Unknown names throw UsageError listing the accepted values.
ElementType parse_element_type(std::string_view s);
std::size_t element_size_bytes(ElementType e);
const std::vector<ElementType>& all_element_types();
// The tensor element type of a shape dtype, and back (nullopt: not a shape dtype).
ElementType element_of(DType d);
std::optional<DType> shape_dtype_of(ElementType e);
// Integers and bool: values compared exactly, no NaN, no infinity.
bool is_integer(ElementType e);

}  // namespace caliber
