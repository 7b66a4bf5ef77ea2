// The launch gate (launch_gate.h): a spinning one-thread kernel released through host-mapped
// memory, with a timeout read from the device's global timer.
#include "backends/cuda/launch_gate.h"

#include <atomic>

#include "backends/cuda/cuda_check.cuh"

namespace caliber::cuda {
namespace {

__device__ __forceinline__ std::uint64_t global_timer_ns() {
  std::uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void caliber_launch_gate_kernel(volatile int* flags, std::uint64_t timeout_ns) {
  const std::uint64_t begin = global_timer_ns();
  while (flags[0] == 0) {
    if (global_timer_ns() - begin > timeout_ns) {
      flags[1] = flags[1] + 1;
      return;
    }
    __nanosleep(100);
  }
}

}  // namespace

LaunchGate::LaunchGate() {
  void* host = nullptr;
  CALIBER_CUDA_CHECK(cudaHostAlloc(&host, 2 * sizeof(int), cudaHostAllocMapped));
  flags_ = static_cast<volatile int*>(host);
  flags_[0] = 1;
  flags_[1] = 0;
  void* device = nullptr;
  CALIBER_CUDA_CHECK(cudaHostGetDevicePointer(&device, host, 0));
  device_flags_ = static_cast<int*>(device);
}

LaunchGate::~LaunchGate() {
  if (flags_) {
    flags_[0] = 1;  // a gate still enqueued ends now rather than at its timeout
    cudaFreeHost(const_cast<int*>(flags_));
  }
}

void LaunchGate::hold(void* stream) {
  flags_[0] = 0;
  std::atomic_thread_fence(std::memory_order_seq_cst);
  caliber_launch_gate_kernel<<<1, 1, 0, static_cast<cudaStream_t>(stream)>>>(device_flags_, kTimeoutNs);
  CALIBER_CUDA_CHECK_LAUNCH();
  ++held_;
}

void LaunchGate::release() {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  flags_[0] = 1;
}

std::size_t LaunchGate::expired() { return static_cast<std::size_t>(flags_[1]); }

void LaunchGate::reset_counts() {
  held_ = 0;
  flags_[1] = 0;
}

}  // namespace caliber::cuda
