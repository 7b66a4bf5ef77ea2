// A tensor in host memory in its element type (caliber/dtype.h, ElementType), row-major
// [rows, cols].
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "caliber/dtype.h"

namespace caliber::ops {

class HostTensor {
 public:
  HostTensor() = default;
  // Allocates without initializing (inputs are overwritten by their draw). Throws
  // OutOfMemoryError when the host cannot hold it.
  HostTensor(std::string name, ElementType element, std::int64_t rows, std::int64_t cols);
  HostTensor(std::string name, DType dtype, std::int64_t rows, std::int64_t cols)
      : HostTensor(std::move(name), element_of(dtype), rows, cols) {}

  const std::string& name() const { return name_; }
  ElementType element() const { return element_; }
  std::int64_t rows() const { return rows_; }
  std::int64_t cols() const { return cols_; }
  std::size_t elements() const { return static_cast<std::size_t>(rows_) * static_cast<std::size_t>(cols_); }
  std::size_t bytes() const { return elements() * element_size_bytes(element_); }
  void* data() { return data_.get(); }
  const void* data() const { return data_.get(); }

  // Element i as a double (exact, but for int64 beyond 2^53: ops/element_codec.h).
  double get(std::size_t i) const;
  // Stores v rounded to the element type (ops/element_codec.h).
  void set(std::size_t i, double v);
  // Element values of row `row` as doubles.
  void load_row(std::int64_t row, double* out) const { load_row_range(row, 0, cols_, out); }
  // Columns [col, col + count) of row `row` as doubles.
  void load_row_range(std::int64_t row, std::int64_t col, std::int64_t count, double* out) const;

 private:
  std::string name_;
  ElementType element_ = ElementType::fp32;
  std::int64_t rows_ = 0, cols_ = 0;
  std::unique_ptr<unsigned char[]> data_;
};

// SplitMix64's finalizer: a well-mixed 64-bit hash, used to derive seeds.
std::uint64_t mix64(std::uint64_t x);

}  // namespace caliber::ops
