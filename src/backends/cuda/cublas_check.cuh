// Every cuBLAS call is checked like every CUDA call (cuda_check.cuh): a failure throws DeviceError
// naming the call, the file and line, and cuBLAS's status. Only for .cu files of the cuda backend.
#pragma once

#include "backends/cuda/cublas_library.h"

#include "backends/cuda/str_cat.h"
#include "caliber/errors.h"

namespace caliber::cuda {

inline void check_cublas(cublasStatus_t s, const char* call, const char* file, int line) {
  if (s != CUBLAS_STATUS_SUCCESS) {
    throw DeviceError(str_cat(call, " failed at ", file, ":", line, ": ", cublas().cublasGetStatusName(s), ": ",
                              cublas().cublasGetStatusString(s)));
  }
}

}  // namespace caliber::cuda

#define CALIBER_CUBLAS_CHECK(call) ::caliber::cuda::check_cublas((call), #call, __FILE__, __LINE__)
