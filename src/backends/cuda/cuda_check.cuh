// Every CUDA runtime call is checked; a failure throws DeviceError naming the call, the file and
// line, and the CUDA error. Only for .cu files of the cuda backend.
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "caliber/errors.h"

namespace caliber::cuda {

// The kind of failure a CUDA error code reports (DeviceFault, include/caliber/errors.h).
inline DeviceFault device_fault_of(cudaError_t e) {
  switch (e) {
    case cudaErrorStreamCaptureUnsupported:
    case cudaErrorStreamCaptureInvalidated:
    case cudaErrorStreamCaptureMerge:
    case cudaErrorStreamCaptureUnmatched:
    case cudaErrorStreamCaptureUnjoined:
    case cudaErrorStreamCaptureIsolation:
    case cudaErrorStreamCaptureImplicit:
    case cudaErrorStreamCaptureWrongThread:
    case cudaErrorCapturedEvent:
      return DeviceFault::capture_rejected;
    case cudaErrorIllegalAddress:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorHardwareStackError:
    case cudaErrorAssert:
    case cudaErrorLaunchFailure:
    case cudaErrorLaunchTimeout:
    case cudaErrorECCUncorrectable:
      return DeviceFault::kernel_fault;
    default:
      return DeviceFault::unspecified;
  }
}

[[noreturn]] inline void throw_cuda_error(cudaError_t e, const char* call, const char* file, int line) {
  throw DeviceError(std::string(call) + " failed at " + file + ":" + std::to_string(line) + ": " +
                        cudaGetErrorName(e) + ": " + cudaGetErrorString(e),
                    device_fault_of(e));
}

inline void check(cudaError_t e, const char* call, const char* file, int line) {
  if (e != cudaSuccess) throw_cuda_error(e, call, file, line);
}

}  // namespace caliber::cuda

#define CALIBER_CUDA_CHECK(call) ::caliber::cuda::check((call), #call, __FILE__, __LINE__)
// After a kernel launch: launch-configuration errors surface here.
#define CALIBER_CUDA_CHECK_LAUNCH() ::caliber::cuda::check(cudaGetLastError(), "kernel launch", __FILE__, __LINE__)
