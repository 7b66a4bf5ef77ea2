// Every CUDA runtime call is checked; a failure throws DeviceError naming the call, the file and
// line, and the CUDA error. Only for .cu files of the cuda backend.
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "caliber/errors.h"

namespace caliber::cuda {

[[noreturn]] inline void throw_cuda_error(cudaError_t e, const char* call, const char* file, int line) {
  throw DeviceError(std::string(call) + " failed at " + file + ":" + std::to_string(line) + ": " +
                    cudaGetErrorName(e) + ": " + cudaGetErrorString(e));
}

inline void check(cudaError_t e, const char* call, const char* file, int line) {
  if (e != cudaSuccess) throw_cuda_error(e, call, file, line);
}

}  // namespace caliber::cuda

#define CALIBER_CUDA_CHECK(call) ::caliber::cuda::check((call), #call, __FILE__, __LINE__)
// After a kernel launch: launch-configuration errors surface here.
#define CALIBER_CUDA_CHECK_LAUNCH() ::caliber::cuda::check(cudaGetLastError(), "kernel launch", __FILE__, __LINE__)
