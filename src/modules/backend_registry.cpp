// The backends this build has, and every question about a backend answered through its module
// (backend_module.h). This is the one file that knows which modules exist: a new runtime adds its
// folders and one entry in backend_modules().
#include <fmt/format.h>

#include "modules/backend_module.h"
#include "modules/host/host_module.h"
#include "caliber/config.h"
#include "caliber/errors.h"
#if CALIBER_WITH_CUDA
#include "modules/cuda/cuda_module.h"
#endif

namespace caliber {
namespace {

// Every backend caliber knows, built here or not, and why one is not built.
struct KnownBackend {
  BackendKind kind;
  const char* not_built;
};
constexpr KnownBackend kKnownBackends[] = {
    {BackendKind::host, ""},
    {BackendKind::cuda, "not built: no CUDA compiler at configure time"},
};

}  // namespace

const std::vector<BackendModule>& backend_modules() {
  static const std::vector<BackendModule> modules = [] {
    std::vector<BackendModule> m;
    m.push_back(host::backend_module());
#if CALIBER_WITH_CUDA
    m.push_back(cuda::backend_module());
#endif
    return m;
  }();
  return modules;
}

const BackendModule* find_backend_module(BackendKind kind) {
  for (const BackendModule& m : backend_modules()) {
    if (m.kind == kind) return &m;
  }
  return nullptr;
}

const BackendModule& backend_module(BackendKind kind) {
  if (const BackendModule* m = find_backend_module(kind)) return *m;
  for (const KnownBackend& k : kKnownBackends) {
    if (k.kind == kind) throw UsageError(fmt::format("backend {} is not available: {}", to_string(kind), k.not_built));
  }
  throw UsageError(fmt::format("backend {} is not available", to_string(kind)));
}

std::vector<BackendAvailability> available_backends() {
  std::vector<BackendAvailability> out;
  for (const KnownBackend& k : kKnownBackends) {
    const BackendModule* module = find_backend_module(k.kind);
    if (!module) {
      out.push_back({k.kind, false, 0, k.not_built});
      continue;
    }
    std::string reason;
    const int n = module->device_count(&reason);
    out.push_back({k.kind, true, n, n > 0 ? "" : reason});
  }
  return out;
}

std::vector<DeviceInfo> list_devices(BackendKind kind) {
  if (const BackendModule* m = find_backend_module(kind)) return m->list_devices();
  return {};
}

std::optional<std::string> instrument_unavailable_reason(BackendKind kind, Instrument instrument) {
  if (const BackendModule* m = find_backend_module(kind)) return m->instrument_unavailable_reason(instrument);
  for (const KnownBackend& k : kKnownBackends) {
    if (k.kind == kind) return fmt::format("the {} backend is {}", to_string(kind), k.not_built);
  }
  return fmt::format("the {} backend is not built", to_string(kind));
}

BackendKind default_backend_kind() {
  for (const auto& b : available_backends()) {
    if (b.kind != BackendKind::host && b.device_count > 0) return b.kind;
  }
  return BackendKind::host;
}

std::unique_ptr<Backend> open_backend(BackendKind kind, int index) {
  const BackendModule& module = backend_module(kind);
  if (kind != BackendKind::host) {
    std::string reason;
    const int n = module.device_count(&reason);
    if (n == 0) throw UsageError(fmt::format("backend {} is not available: {}", to_string(kind), reason));
    if (index < 0 || index >= n) {
      throw UsageError(fmt::format("--device {}: backend {} has devices 0..{}", index, to_string(kind), n - 1));
    }
  }
  return module.open(index);
}

}  // namespace caliber
