#include "bench/workload.h"

#include "backends/host/host_builtin_kernels.h"
#include "caliber/config.h"
#include "caliber/errors.h"
#if CALIBER_WITH_CUDA
#include "backends/cuda/cuda_backend.h"
#endif

namespace caliber::bench {

std::uint64_t builtin_working_set_bytes(std::string_view kernel, std::uint64_t size_bytes) {
  if (kernel == "copy" || kernel == "scale" || kernel == "two_streams" || kernel == "scale_blocks" ||
      kernel == "multi_kernel" || kernel == "fork_join" || kernel == "memset_scale") {
    return 2 * size_bytes;
  }
  if (kernel == "gemm_bf16") return 3 * kGemmBytesPerMatrix;
  return 2 * kTinyElements * sizeof(float);
}

std::vector<KernelInfo> builtin_kernels(BackendKind backend) {
  if (backend == BackendKind::host) return host::builtin_kernels();
#if CALIBER_WITH_CUDA
  return cuda::builtin_kernels();
#else
  return {};
#endif
}

std::unique_ptr<Workload> make_builtin_workload(Backend& backend, std::string_view kernel,
                                                std::uint64_t size_bytes,
                                                std::size_t rotation_copies, std::uint64_t seed) {
  if (backend.kind() == BackendKind::host) {
    return host::make_builtin_workload(kernel, size_bytes, rotation_copies, seed);
  }
#if CALIBER_WITH_CUDA
  return cuda::make_builtin_workload(backend, kernel, size_bytes, rotation_copies, seed);
#else
  (void)size_bytes;
  (void)rotation_copies;
  (void)seed;
  throw UsageError("this build has no cuda backend");
#endif
}

}  // namespace caliber::bench

namespace caliber::bench {

integrity::Subject checked_subject(Workload& workload, std::int64_t launches) {
  integrity::Subject s;
  Workload* w = &workload;
  s.call = [w, launches](const LaunchContext& ctx) {
    for (std::int64_t i = 0; i < launches; ++i) w->launch(ctx);
  };
  s.buffers = w->declared_buffers();
  s.poison_outputs = [w] { w->poison_outputs(); };
  s.judge = [w](bool) { return w->verify(); };
  s.judge_description = "the kernel's own reference, every output element of input copy 0";
  return s;
}

}  // namespace caliber::bench
