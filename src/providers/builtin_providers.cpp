// Built-in providers by backend, op and name.
#include <fmt/format.h>

#include "caliber/config.h"
#include "providers/host/host_providers.h"
#include "providers/provider.h"
#if CALIBER_WITH_CUDA
#include "backends/cuda/cuda_providers.h"
#endif

namespace caliber::providers {

void Provider::pin_config(const std::optional<std::string>& key) {
  if (key) throw ConfigRefused(fmt::format("{} chooses no configuration, so '{}' cannot be pinned", name(), *key));
}

std::vector<std::string> builtin_provider_names(BackendKind backend, ops::OpType op) {
  if (backend == BackendKind::host) {
    if (op == ops::OpType::gemm) return {"caliber", "naive", "tuned"};
    return {"caliber", "naive"};
  }
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
    if (name == "tuned" && op == ops::OpType::gemm) return host::make_tuned_gemm_provider();
    return nullptr;
  }
#if CALIBER_WITH_CUDA
  return cuda::make_builtin_provider(op, name);
#else
  return nullptr;
#endif
}

}  // namespace caliber::providers
