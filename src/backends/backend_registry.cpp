// Which backends this build has, and how to open them. A new runtime adds one folder under
// src/backends and one branch in each function here.
#include <fmt/format.h>

#include "backends/host/host_backend.h"
#include "backends/host/host_device_info.h"
#include "caliber/backend.h"
#include "caliber/config.h"
#include "caliber/errors.h"
#if CALIBER_WITH_CUDA
#include "backends/cuda/cuda_backend.h"
#endif

namespace caliber {

std::vector<BackendAvailability> available_backends() {
  std::vector<BackendAvailability> out;
  out.push_back({BackendKind::host, true, 1, ""});
#if CALIBER_WITH_CUDA
  std::string reason;
  const int n = cuda::device_count(&reason);
  out.push_back({BackendKind::cuda, true, n, n > 0 ? "" : reason});
#else
  out.push_back({BackendKind::cuda, false, 0, "not built: no CUDA compiler at configure time"});
#endif
  return out;
}

std::vector<DeviceInfo> list_devices(BackendKind kind) {
  if (kind == BackendKind::host) return {host::describe_host()};
#if CALIBER_WITH_CUDA
  return cuda::list_devices();
#else
  return {};
#endif
}

std::optional<std::string> instrument_unavailable_reason(BackendKind kind, Instrument instrument) {
  if (kind == BackendKind::host) {
    if (instrument == Instrument::wallclock) return std::nullopt;
    return fmt::format("not applicable: the host backend times host work with the wallclock "
                       "instrument only (got {})",
                       to_string(instrument));
  }
#if CALIBER_WITH_CUDA
  if (instrument == Instrument::cupti) return cuda::cupti_unavailable_reason();
  return std::nullopt;
#else
  return std::string("the cuda backend is not built (no CUDA compiler at configure time)");
#endif
}

BackendKind default_backend_kind() {
  for (const auto& b : available_backends()) {
    if (b.kind == BackendKind::cuda && b.device_count > 0) return BackendKind::cuda;
  }
  return BackendKind::host;
}

std::unique_ptr<Backend> open_backend(BackendKind kind, int index) {
  if (kind == BackendKind::host) {
    if (index != 0) throw UsageError(fmt::format("--device {}: the host backend has one device, 0", index));
    return std::make_unique<host::HostBackend>();
  }
  for (const auto& b : available_backends()) {
    if (b.kind != kind) continue;
    if (!b.compiled || b.device_count == 0) {
      throw UsageError(fmt::format("backend {} is not available: {}", to_string(kind), b.reason));
    }
    if (index < 0 || index >= b.device_count) {
      throw UsageError(fmt::format("--device {}: backend {} has devices 0..{}", index,
                                   to_string(kind), b.device_count - 1));
    }
  }
#if CALIBER_WITH_CUDA
  return cuda::open_backend(index);
#else
  throw UsageError("backend cuda is not available: not built");
#endif
}

}  // namespace caliber
