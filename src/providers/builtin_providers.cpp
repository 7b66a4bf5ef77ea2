// Built-in providers by backend, op and name.
#include "caliber/config.h"
#include "providers/host/host_providers.h"
#include "providers/provider.h"
#if CALIBER_WITH_CUDA
#include "backends/cuda/cuda_providers.h"
#endif

namespace caliber::providers {

std::vector<std::string> builtin_provider_names(BackendKind backend, ops::OpType op) {
  if (backend == BackendKind::host) return {"caliber", "naive"};
#if CALIBER_WITH_CUDA
  return cuda::builtin_provider_names(op);
#else
  (void)op;
  return {};
#endif
}

std::unique_ptr<Provider> make_builtin_provider(BackendKind backend, ops::OpType op, const std::string& name) {
  if (backend == BackendKind::host) {
    if (name == "caliber") return host::make_caliber_provider(op);
    if (name == "naive") return host::make_naive_provider(op);
    return nullptr;
  }
#if CALIBER_WITH_CUDA
  return cuda::make_builtin_provider(op, name);
#else
  return nullptr;
#endif
}

}  // namespace caliber::providers
