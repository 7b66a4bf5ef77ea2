#include "backends/cuda/cuda_integrity_kernels.cuh"

#include "backends/cuda/cuda_check.cuh"
#include "core/buffer_digest.h"

namespace caliber::cuda {
namespace {

constexpr int kThreads = 256;

__device__ std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// Sum over 8-byte words of mix(word ^ index * golden), as integrity::checksum_term; the tail
// (bytes % 8) is zero-padded into one more word.
__global__ void checksum_kernel(const unsigned char* data, std::size_t bytes, unsigned long long* out) {
  const std::size_t words = bytes / 8;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  std::uint64_t sum = 0;
  const std::size_t tid = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  const bool aligned = (reinterpret_cast<std::uintptr_t>(data) & 7) == 0;
  for (std::size_t i = tid; i < words; i += stride) {
    std::uint64_t w = 0;
    if (aligned) {
      w = reinterpret_cast<const std::uint64_t*>(data)[i];
    } else {
      for (int b = 0; b < 8; ++b) w |= static_cast<std::uint64_t>(data[8 * i + b]) << (8 * b);
    }
    sum += mix(w ^ (i * 0x9e3779b97f4a7c15ull));
  }
  if (tid == 0 && bytes % 8 != 0) {
    std::uint64_t w = 0;
    for (std::size_t b = 0; b < bytes % 8; ++b) w |= static_cast<std::uint64_t>(data[8 * words + b]) << (8 * b);
    sum += mix(w ^ (words * 0x9e3779b97f4a7c15ull));
  }
  // Warp reduction, then one atomic per warp (addition modulo 2^64 is associative).
  for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset);
  if ((threadIdx.x & 31) == 0 && sum != 0) atomicAdd(out, static_cast<unsigned long long>(sum));
}

__global__ void nonfinite_kernel(const unsigned char* data, std::size_t elements, int element_bytes,
                                 unsigned int mask, unsigned long long* out) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  unsigned long long bad = 0;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < elements; i += stride) {
    unsigned int bits;
    if (element_bytes == 4) {
      bits = reinterpret_cast<const unsigned int*>(data)[i];
    } else {
      bits = reinterpret_cast<const unsigned short*>(data)[i];
    }
    bad += (bits & mask) == mask;
  }
  for (int offset = 16; offset > 0; offset /= 2) bad += __shfl_down_sync(0xffffffffu, bad, offset);
  if ((threadIdx.x & 31) == 0 && bad != 0) atomicAdd(out, bad);
}

__global__ void census_marker_kernel() {}

int blocks_for(std::size_t items, int multiprocessors) {
  const std::size_t want = (items + kThreads - 1) / kThreads;
  const std::size_t cap = static_cast<std::size_t>(multiprocessors > 0 ? multiprocessors : 1) * 8;
  return static_cast<int>(want < 1 ? 1 : (want < cap ? want : cap));
}

std::uint64_t read_back(unsigned long long* result, cudaStream_t stream) {
  unsigned long long value = 0;
  CALIBER_CUDA_CHECK(cudaMemcpyAsync(&value, result, sizeof value, cudaMemcpyDeviceToHost, stream));
  CALIBER_CUDA_CHECK(cudaStreamSynchronize(stream));
  return value;
}

}  // namespace

IntegrityScratch::~IntegrityScratch() {
  if (device_) cudaFree(device_);
}

unsigned long long* IntegrityScratch::get() {
  if (!device_) CALIBER_CUDA_CHECK(cudaMalloc(&device_, sizeof(unsigned long long)));
  return device_;
}

std::uint64_t device_checksum(const void* data, std::size_t bytes, cudaStream_t stream, IntegrityScratch& scratch,
                              int multiprocessors) {
  unsigned long long* out = scratch.get();
  CALIBER_CUDA_CHECK(cudaMemsetAsync(out, 0, sizeof *out, stream));
  if (bytes > 0) {
    checksum_kernel<<<blocks_for(bytes / 8 + 1, multiprocessors), kThreads, 0, stream>>>(
        static_cast<const unsigned char*>(data), bytes, out);
    CALIBER_CUDA_CHECK_LAUNCH();
  }
  return integrity::checksum_finish(read_back(out, stream), bytes);
}

std::uint64_t device_count_nonfinite(const void* data, std::size_t elements, DType dtype, cudaStream_t stream,
                                     IntegrityScratch& scratch, int multiprocessors) {
  unsigned long long* out = scratch.get();
  CALIBER_CUDA_CHECK(cudaMemsetAsync(out, 0, sizeof *out, stream));
  const unsigned int mask = dtype == DType::fp32 ? 0x7f800000u : dtype == DType::bf16 ? 0x7f80u : 0x7c00u;
  const int element_bytes = dtype == DType::fp32 ? 4 : 2;
  if (elements > 0) {
    nonfinite_kernel<<<blocks_for(elements, multiprocessors), kThreads, 0, stream>>>(
        static_cast<const unsigned char*>(data), elements, element_bytes, mask, out);
    CALIBER_CUDA_CHECK_LAUNCH();
  }
  return read_back(out, stream);
}

void launch_census_marker(cudaStream_t stream) {
  census_marker_kernel<<<1, 1, 0, stream>>>();
  CALIBER_CUDA_CHECK_LAUNCH();
}

}  // namespace caliber::cuda
