// What a backend contributes, asked by backend kind: the built-in providers of caliber run, the
// kernels of caliber bench, the workloads of caliber calibrate and the fp64 reference on the
// device. Each answer comes from the backend's module (modules/backend_module.h); the providers,
// kernels and workloads themselves live in src/providers/<backend> and src/kernels/<backend>, the
// device reference in src/backends/<backend>.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "caliber/backend.h"
#include "kernels/ceiling_workloads.h"
#include "kernels/workload.h"
#include "ops/device_reference.h"
#include "ops/op_catalog.h"
#include "providers/provider.h"

namespace caliber::providers {

// The built-in providers of an op on a backend: "caliber", "naive" and, on cuda, "cublas",
// "cublaslt" (gemm) and "cudnn" (where cuDNN offers the op). Null when there is no such
// built-in (the runner records not_configured with the reason).
std::unique_ptr<Provider> make_builtin_provider(BackendKind backend, ops::OpType op, const std::string& name);

// Names make_builtin_provider knows for an op on a backend, in a stable order.
std::vector<std::string> builtin_provider_names(BackendKind backend, ops::OpType op);

}  // namespace caliber::providers

namespace caliber::bench {

// The built-in kernels of a backend.
std::vector<KernelInfo> builtin_kernels(BackendKind backend);

// Builds a workload on the backend's device. size_bytes: bytes of one input (copy, scale);
// ignored by tiny. rotation_copies: how many input/output copies to allocate (1 unless
// cache=rotate). Throws UsageError for an unknown kernel or a bad size, DeviceError when
// allocation fails.
std::unique_ptr<Workload> make_builtin_workload(Backend& backend, std::string_view kernel, std::uint64_t size_bytes,
                                                std::size_t rotation_copies, std::uint64_t seed);

}  // namespace caliber::bench

namespace caliber::calibrate {

// Copies `bytes` from one buffer to another per call. working_set_bytes = 2 x bytes.
CeilingWorkload make_copy_workload(Backend& backend, std::uint64_t bytes, std::uint64_t seed);
// The same copy sized to be served from the last-level cache (`bytes` in and out): cuda: the
// float4 grid-stride copy kernel of caliber bench (a memcpy node in a graph is slower); host: the
// same split memcpy as make_copy_workload.
CeilingWorkload make_cache_copy_workload(Backend& backend, std::uint64_t bytes, std::uint64_t seed);
// C[n, n] = A[n, n] B[n, n] in `dtype` (cuda: bf16 or fp32 through cuBLAS; host: fp32 through
// OpenBLAS's cblas_sgemm in the openblas provider plugin), inputs random and never zero.
// flops = 2 n^3.
CeilingWorkload make_matmul_workload(Backend& backend, const std::string& dtype, std::int64_t n, std::uint64_t seed);

}  // namespace caliber::calibrate

namespace caliber::ops {

// The backend's fp64 reference of the shipped ops on its device, or null when it has none (the
// reference is then computed on the host). Uses `backend`, which must outlive it.
std::unique_ptr<DeviceReferenceMath> make_device_reference_math(Backend& backend);

}  // namespace caliber::ops
