// Built-in providers by backend, op and name: each backend's module lists its own.
#include <fmt/format.h>

#include "backends/backend_module.h"
#include "providers/provider.h"

namespace caliber::providers {

void Provider::pin_config(const std::optional<std::string>& key) {
  if (key) throw ConfigRefused(fmt::format("{} chooses no configuration, so '{}' cannot be pinned", name(), *key));
}

std::vector<std::string> builtin_provider_names(BackendKind backend, ops::OpType op) {
  if (const BackendModule* m = find_backend_module(backend)) return m->builtin_provider_names(op);
  return {};
}

std::unique_ptr<Provider> make_builtin_provider(BackendKind backend, ops::OpType op, const std::string& name) {
  if (const BackendModule* m = find_backend_module(backend)) return m->make_builtin_provider(op, name);
  return nullptr;
}

}  // namespace caliber::providers
