// Scattered rows of a device tensor copied to the host in one transfer: the rows are gathered
// into a contiguous device buffer by a kernel, copied once, and put back at their offsets on the
// host (Backend::copy_rows_to_host), instead of one synchronous copy per run of rows (a check
// of a few hundred rows drawn at random out of millions). Internal to the cuda backend.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace caliber::cuda {

class RowGather {
 public:
  RowGather() = default;
  ~RowGather();
  RowGather(const RowGather&) = delete;
  RowGather& operator=(const RowGather&) = delete;

  // rows: sorted and distinct. Synchronizes `stream` before it returns.
  void copy_rows_to_host(void* host_dst, const void* device_src, std::size_t row_bytes,
                         const std::vector<std::int64_t>& rows, cudaStream_t stream);

 private:
  void reserve(std::size_t staging_bytes, std::size_t row_count);

  unsigned char* staging_ = nullptr;  // gathered rows, device
  std::size_t staging_bytes_ = 0;
  std::int64_t* rows_ = nullptr;  // row indices, device
  std::size_t row_capacity_ = 0;
  std::vector<unsigned char> host_;  // the gathered rows, host
};

}  // namespace caliber::cuda
