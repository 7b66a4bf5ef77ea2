// A tensor in host memory in its element type (fp32, bf16 or fp16 bits), row-major [rows, cols].
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
  // Allocates without initializing (inputs are overwritten by the random fill). Throws
  // OutOfMemoryError when the host cannot hold it.
  HostTensor(std::string name, DType dtype, std::int64_t rows, std::int64_t cols);

  const std::string& name() const { return name_; }
  DType dtype() const { return dtype_; }
  std::int64_t rows() const { return rows_; }
  std::int64_t cols() const { return cols_; }
  std::size_t elements() const { return static_cast<std::size_t>(rows_) * static_cast<std::size_t>(cols_); }
  std::size_t bytes() const { return elements() * dtype_size_bytes(dtype_); }
  void* data() { return data_.get(); }
  const void* data() const { return data_.get(); }

  double get(std::size_t i) const;
  // Stores v rounded to the element type (round to nearest even).
  void set(std::size_t i, float v);
  // Element values of row `row` as doubles (exact: every element type converts exactly).
  void load_row(std::int64_t row, double* out) const { load_row_range(row, 0, cols_, out); }
  // Columns [col, col + count) of row `row` as doubles.
  void load_row_range(std::int64_t row, std::int64_t col, std::int64_t count, double* out) const;

 private:
  std::string name_;
  DType dtype_ = DType::fp32;
  std::int64_t rows_ = 0, cols_ = 0;
  std::unique_ptr<unsigned char[]> data_;
};

// Fills `t` with uniform random values in [lo, hi), rounded to its element type. Deterministic
// for a given seed whatever the thread count (chunks of 65536 elements, each with its own
// SplitMix64 stream keyed by (seed, chunk)).
void fill_uniform(HostTensor& t, std::uint64_t seed, float lo, float hi);

// SplitMix64's finalizer: a well-mixed 64-bit hash, used to derive seeds.
std::uint64_t mix64(std::uint64_t x);

}  // namespace caliber::ops
