// The cuda backend's built-in providers, declared without CUDA types. Defined in .cu files of
// this folder; only compiled when CALIBER_WITH_CUDA.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "providers/provider.h"

namespace caliber::cuda {

// Names of the cuda built-ins of an op: caliber, naive, cublas/cublaslt (gemm), cudnn (softmax,
// rmsnorm, layernorm: loaded at run time; not_configured when libcudnn.so.9 is absent).
std::vector<std::string> builtin_provider_names(ops::OpType op);
// Null for a name that is not a cuda built-in of the op.
std::unique_ptr<providers::Provider> make_builtin_provider(ops::OpType op, const std::string& name);

// Per-op factories (one .cu file each).
std::unique_ptr<providers::Provider> make_caliber_norm_provider(ops::OpType op);   // rmsnorm, layernorm
std::unique_ptr<providers::Provider> make_naive_norm_provider(ops::OpType op);
std::unique_ptr<providers::Provider> make_caliber_softmax_provider();
std::unique_ptr<providers::Provider> make_naive_softmax_provider();
std::unique_ptr<providers::Provider> make_caliber_gemm_provider();
std::unique_ptr<providers::Provider> make_naive_gemm_provider();
std::unique_ptr<providers::Provider> make_cublas_gemm_provider();
std::unique_ptr<providers::Provider> make_cublaslt_gemm_provider();
std::unique_ptr<providers::Provider> make_cudnn_provider(ops::OpType op);
// A provider that must fail with a sticky device error (every op; named only by tests).
std::unique_ptr<providers::Provider> make_selftest_fault_provider();
// Providers whose graph capture fails by class (selftest_capture_sync, selftest_replay_fault,
// selftest_capture_poison; every op; named only by tests); null for another name.
std::unique_ptr<providers::Provider> make_selftest_capture_provider(ops::OpType op, const std::string& name);

}  // namespace caliber::cuda
