// The row gather of row_gather.cuh: one block per row, 16-byte copies when the rows allow them.
#include "backends/cuda/row_gather.cuh"

#include <cstring>

#include "backends/cuda/cuda_check.cuh"

namespace caliber::cuda {
namespace {

__global__ void caliber_gather_rows_kernel(const unsigned char* src, unsigned char* dst, const std::int64_t* rows,
                                           std::size_t row_bytes, bool wide) {
  const std::size_t r = blockIdx.x;
  const unsigned char* from = src + static_cast<std::size_t>(rows[r]) * row_bytes;
  unsigned char* to = dst + r * row_bytes;
  if (wide) {
    const auto* f = reinterpret_cast<const uint4*>(from);
    auto* t = reinterpret_cast<uint4*>(to);
    for (std::size_t i = threadIdx.x; i < row_bytes / 16; i += blockDim.x) t[i] = f[i];
  } else {
    for (std::size_t i = threadIdx.x; i < row_bytes; i += blockDim.x) to[i] = from[i];
  }
}

}  // namespace

RowGather::~RowGather() {
  if (staging_) cudaFree(staging_);
  if (rows_) cudaFree(rows_);
}

void RowGather::reserve(std::size_t staging_bytes, std::size_t row_count) {
  if (staging_bytes > staging_bytes_) {
    if (staging_) cudaFree(staging_);
    staging_ = nullptr;
    staging_bytes_ = 0;
    CALIBER_CUDA_CHECK(cudaMalloc(&staging_, staging_bytes));
    staging_bytes_ = staging_bytes;
  }
  if (row_count > row_capacity_) {
    if (rows_) cudaFree(rows_);
    rows_ = nullptr;
    row_capacity_ = 0;
    CALIBER_CUDA_CHECK(cudaMalloc(&rows_, row_count * sizeof(std::int64_t)));
    row_capacity_ = row_count;
  }
}

void RowGather::copy_rows_to_host(void* host_dst, const void* device_src, std::size_t row_bytes,
                                  const std::vector<std::int64_t>& rows, cudaStream_t stream) {
  if (rows.empty() || row_bytes == 0) return;
  const std::size_t bytes = rows.size() * row_bytes;
  reserve(bytes, rows.size());
  CALIBER_CUDA_CHECK(
      cudaMemcpyAsync(rows_, rows.data(), rows.size() * sizeof(std::int64_t), cudaMemcpyHostToDevice, stream));
  const bool wide = row_bytes % 16 == 0 && reinterpret_cast<std::uintptr_t>(device_src) % 16 == 0;
  caliber_gather_rows_kernel<<<static_cast<unsigned>(rows.size()), 256, 0, stream>>>(
      static_cast<const unsigned char*>(device_src), staging_, rows_, row_bytes, wide);
  CALIBER_CUDA_CHECK_LAUNCH();
  host_.resize(bytes);
  CALIBER_CUDA_CHECK(cudaMemcpyAsync(host_.data(), staging_, bytes, cudaMemcpyDeviceToHost, stream));
  CALIBER_CUDA_CHECK(cudaStreamSynchronize(stream));
  auto* dst = static_cast<unsigned char*>(host_dst);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    std::memcpy(dst + static_cast<std::size_t>(rows[i]) * row_bytes, host_.data() + i * row_bytes, row_bytes);
  }
}

}  // namespace caliber::cuda
