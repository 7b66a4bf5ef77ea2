// cuBLAS and cuBLASLt, loaded at run time (dlopen) by the first code that uses them, not linked:
// every caliber process used to load and relocate both libraries (hundreds of megabytes) before
// main, tens of milliseconds per process start, though only gemm providers and the gemm workloads
// call them. A machine without them records those providers not_configured with the loader's
// reason. $CALIBER_CUBLAS_LIBRARY / $CALIBER_CUBLASLT_LIBRARY name other files.
#pragma once

#include <cublasLt.h>
#include <cublas_v2.h>

#include <optional>
#include <string>

namespace caliber::cuda {

// The entry points caliber calls, under their exported names (cublas_v2.h maps cublasCreate and
// its kin onto the _v2 symbols, so `cublas().cublasCreate(...)` reads as the usual call).
#define CALIBER_CUBLAS_FUNCTIONS(X)                                                                       \
  X(cublasCreate_v2) X(cublasDestroy_v2) X(cublasSetStream_v2) X(cublasSetWorkspace_v2) X(cublasSetMathMode) \
  X(cublasGetStatusName) X(cublasGetStatusString)
#define CALIBER_CUBLASLT_FUNCTIONS(X)                                                                     \
  X(cublasLtCreate) X(cublasLtDestroy) X(cublasLtGetVersion) X(cublasLtGetStatusName) X(cublasLtMatmul)    \
  X(cublasLtMatmulDescCreate) X(cublasLtMatmulDescDestroy) X(cublasLtMatrixLayoutCreate)                   \
  X(cublasLtMatrixLayoutDestroy) X(cublasLtMatmulPreferenceCreate) X(cublasLtMatmulPreferenceDestroy)      \
  X(cublasLtMatmulPreferenceSetAttribute) X(cublasLtMatmulAlgoGetHeuristic) X(cublasLtMatmulAlgoCheck)     \
  X(cublasLtMatmulAlgoConfigGetAttribute)

struct CublasLibrary {
#define CALIBER_CUBLAS_MEMBER(name) decltype(&::name) name = nullptr;
  CALIBER_CUBLAS_FUNCTIONS(CALIBER_CUBLAS_MEMBER)
  CALIBER_CUBLASLT_FUNCTIONS(CALIBER_CUBLAS_MEMBER)
#undef CALIBER_CUBLAS_MEMBER
  // Overloaded in C++ by a static inline wrapper of cublas_api.h (a cudaDataType compute type):
  // the exported function is the one with cublasComputeType_t.
  cublasStatus_t (*cublasGemmEx)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const void*,
                                 const void*, cudaDataType, int, const void*, cudaDataType, int, const void*, void*,
                                 cudaDataType, int, cublasComputeType_t, cublasGemmAlgo_t) = nullptr;
};

// Why cuBLAS cannot be used in this process (the loader's message), or nullopt once both
// libraries are loaded with every entry point. Loads them on the first call; thread-safe.
std::optional<std::string> cublas_unavailable_reason();

// The loaded entry points; ContractError with the reason when they cannot be loaded.
const CublasLibrary& cublas();

}  // namespace caliber::cuda
