// Device sides of the integrity primitives (docs/integrity.md): the checksum of
// src/integrity/buffer_digest.h computed on the device, the count of non-finite elements, and the
// marker kernel the census launches around a call. Internal to the cuda backend.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "caliber/dtype.h"

namespace caliber::cuda {

// Scratch for one 64-bit result, owned by the backend.
class IntegrityScratch {
 public:
  IntegrityScratch() = default;
  ~IntegrityScratch();
  IntegrityScratch(const IntegrityScratch&) = delete;
  IntegrityScratch& operator=(const IntegrityScratch&) = delete;
  unsigned long long* get();  // allocated on first use

 private:
  unsigned long long* device_ = nullptr;
};

// The checksum of [data, data + bytes), equal to integrity::checksum_bytes on the same bytes.
// Enqueued on `stream`, then synchronized.
std::uint64_t device_checksum(const void* data, std::size_t bytes, cudaStream_t stream, IntegrityScratch& scratch,
                              int multiprocessors);
// NaN or infinite elements of `dtype` among `elements`.
std::uint64_t device_count_nonfinite(const void* data, std::size_t elements, DType dtype, cudaStream_t stream,
                                     IntegrityScratch& scratch, int multiprocessors);
// A one-thread kernel that does nothing but leave a record: the census launches one before and
// one after the call on the measured stream.
void launch_census_marker(cudaStream_t stream);

}  // namespace caliber::cuda
