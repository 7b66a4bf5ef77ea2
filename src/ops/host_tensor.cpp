#include "ops/host_tensor.h"

#include <new>

#include <fmt/format.h>

#include "caliber/errors.h"
#include "core/parallel_for.h"
#include "core/dtype_convert.h"
#include "ops/uniform_draw.h"

namespace caliber::ops {

std::uint64_t mix64(std::uint64_t x) { return splitmix64(x); }

HostTensor::HostTensor(std::string name, DType dtype, std::int64_t rows, std::int64_t cols)
    : name_(std::move(name)), dtype_(dtype), rows_(rows), cols_(cols) {
  try {
    data_.reset(new unsigned char[bytes() == 0 ? 1 : bytes()]);
  } catch (const std::bad_alloc&) {
    throw OutOfMemoryError(fmt::format("host allocation of {} bytes for tensor {} failed", bytes(), name_));
  }
}

double HostTensor::get(std::size_t i) const {
  switch (dtype_) {
    case DType::fp32: return reinterpret_cast<const float*>(data_.get())[i];
    case DType::bf16: return bf16_to_float(reinterpret_cast<const std::uint16_t*>(data_.get())[i]);
    case DType::fp16: return fp16_to_float(reinterpret_cast<const std::uint16_t*>(data_.get())[i]);
  }
  return 0;
}

void HostTensor::set(std::size_t i, float v) {
  switch (dtype_) {
    case DType::fp32: reinterpret_cast<float*>(data_.get())[i] = v; break;
    case DType::bf16: reinterpret_cast<std::uint16_t*>(data_.get())[i] = float_to_bf16(v); break;
    case DType::fp16: reinterpret_cast<std::uint16_t*>(data_.get())[i] = float_to_fp16(v); break;
  }
}

void HostTensor::load_row_range(std::int64_t row, std::int64_t col, std::int64_t count, double* out) const {
  const std::size_t base = static_cast<std::size_t>(row) * static_cast<std::size_t>(cols_) + static_cast<std::size_t>(col);
  switch (dtype_) {
    case DType::fp32: {
      const float* p = reinterpret_cast<const float*>(data_.get()) + base;
      for (std::int64_t j = 0; j < count; ++j) out[j] = p[j];
      break;
    }
    case DType::bf16: {
      const std::uint16_t* p = reinterpret_cast<const std::uint16_t*>(data_.get()) + base;
      for (std::int64_t j = 0; j < count; ++j) out[j] = bf16_to_float(p[j]);
      break;
    }
    case DType::fp16: {
      const std::uint16_t* p = reinterpret_cast<const std::uint16_t*>(data_.get()) + base;
      for (std::int64_t j = 0; j < count; ++j) out[j] = fp16_to_float(p[j]);
      break;
    }
  }
}

void fill_uniform(HostTensor& t, std::uint64_t seed, float lo, float hi) {
  constexpr auto kChunk = static_cast<std::int64_t>(kUniformChunk);
  const auto n = static_cast<std::int64_t>(t.elements());
  const std::int64_t chunks = (n + kChunk - 1) / kChunk;
  const double scale = uniform_scale(lo, hi);
  parallel_for(chunks, 4, [&](std::int64_t c0, std::int64_t c1) {
    for (std::int64_t c = c0; c < c1; ++c) {
      std::uint64_t state = uniform_chunk_state(seed, static_cast<std::uint64_t>(c));
      const std::int64_t end = std::min(n, (c + 1) * kChunk);
      for (std::int64_t i = c * kChunk; i < end; ++i) {
        state += kGoldenGamma;
        t.set(static_cast<std::size_t>(i), uniform_value(state, scale, lo));
      }
    }
  });
}

}  // namespace caliber::ops
