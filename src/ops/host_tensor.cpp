#include "ops/host_tensor.h"

#include <new>

#include <fmt/format.h>

#include "caliber/errors.h"
#include "ops/element_codec.h"
#include "ops/uniform_draw.h"

namespace caliber::ops {

std::uint64_t mix64(std::uint64_t x) { return splitmix64(x); }

HostTensor::HostTensor(std::string name, ElementType element, std::int64_t rows, std::int64_t cols)
    : name_(std::move(name)), element_(element), rows_(rows), cols_(cols) {
  try {
    data_.reset(new unsigned char[bytes() == 0 ? 1 : bytes()]);
  } catch (const std::bad_alloc&) {
    throw OutOfMemoryError(fmt::format("host allocation of {} bytes for tensor {} failed", bytes(), name_));
  }
}

double HostTensor::get(std::size_t i) const { return load_element(data_.get(), element_, i); }

void HostTensor::set(std::size_t i, double v) { store_element(data_.get(), element_, i, v); }

void HostTensor::load_row_range(std::int64_t row, std::int64_t col, std::int64_t count, double* out) const {
  const std::size_t base = static_cast<std::size_t>(row) * static_cast<std::size_t>(cols_) + static_cast<std::size_t>(col);
  switch (element_) {
    case ElementType::fp32: {
      const float* p = reinterpret_cast<const float*>(data_.get()) + base;
      for (std::int64_t j = 0; j < count; ++j) out[j] = p[j];
      break;
    }
    case ElementType::bf16: {
      const std::uint16_t* p = reinterpret_cast<const std::uint16_t*>(data_.get()) + base;
      for (std::int64_t j = 0; j < count; ++j) out[j] = bf16_to_float(p[j]);
      break;
    }
    case ElementType::fp16: {
      const std::uint16_t* p = reinterpret_cast<const std::uint16_t*>(data_.get()) + base;
      for (std::int64_t j = 0; j < count; ++j) out[j] = fp16_to_float(p[j]);
      break;
    }
    default:
      for (std::int64_t j = 0; j < count; ++j) out[j] = get(base + static_cast<std::size_t>(j));
      break;
  }
}

}  // namespace caliber::ops
