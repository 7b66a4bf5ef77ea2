// Element access for host providers: rows of fp32/bf16/fp16 tensors as float, and back.
#pragma once

#include <cstddef>
#include <cstdint>

#include "caliber/dtype.h"
#include "core/dtype_convert.h"

namespace caliber::providers::host {

inline float load_element(const void* p, DType d, std::size_t i) {
  switch (d) {
    case DType::fp32: return static_cast<const float*>(p)[i];
    case DType::bf16: return ops::bf16_to_float(static_cast<const std::uint16_t*>(p)[i]);
    case DType::fp16: return ops::fp16_to_float(static_cast<const std::uint16_t*>(p)[i]);
  }
  return 0;
}

inline void store_element(void* p, DType d, std::size_t i, float v) {
  switch (d) {
    case DType::fp32: static_cast<float*>(p)[i] = v; break;
    case DType::bf16: static_cast<std::uint16_t*>(p)[i] = ops::float_to_bf16(v); break;
    case DType::fp16: static_cast<std::uint16_t*>(p)[i] = ops::float_to_fp16(v); break;
  }
}

// dst[0..count) = elements [offset, offset + count) of p, as float.
inline void load_floats(const void* p, DType d, std::size_t offset, std::size_t count, float* dst) {
  switch (d) {
    case DType::fp32: {
      const float* s = static_cast<const float*>(p) + offset;
      for (std::size_t i = 0; i < count; ++i) dst[i] = s[i];
      break;
    }
    case DType::bf16: {
      const std::uint16_t* s = static_cast<const std::uint16_t*>(p) + offset;
      for (std::size_t i = 0; i < count; ++i) dst[i] = ops::bits_float(static_cast<std::uint32_t>(s[i]) << 16);
      break;
    }
    case DType::fp16: {
      const std::uint16_t* s = static_cast<const std::uint16_t*>(p) + offset;
      for (std::size_t i = 0; i < count; ++i) dst[i] = ops::fp16_to_float(s[i]);
      break;
    }
  }
}

// Elements [offset, offset + count) of p = src rounded to the element type.
inline void store_floats(void* p, DType d, std::size_t offset, std::size_t count, const float* src) {
  switch (d) {
    case DType::fp32: {
      float* o = static_cast<float*>(p) + offset;
      for (std::size_t i = 0; i < count; ++i) o[i] = src[i];
      break;
    }
    case DType::bf16: {
      std::uint16_t* o = static_cast<std::uint16_t*>(p) + offset;
      for (std::size_t i = 0; i < count; ++i) o[i] = ops::float_to_bf16(src[i]);
      break;
    }
    case DType::fp16: {
      std::uint16_t* o = static_cast<std::uint16_t*>(p) + offset;
      for (std::size_t i = 0; i < count; ++i) o[i] = ops::float_to_fp16(src[i]);
      break;
    }
  }
}

}  // namespace caliber::providers::host
