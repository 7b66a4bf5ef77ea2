// The host backend's module: one device (this machine), the wallclock instrument, the host
// providers, bench kernels and ceiling workloads.
#include "modules/host/host_module.h"

#include <fmt/format.h>

#include "backends/host/host_backend.h"
#include "backends/host/host_device_info.h"
#include "kernels/host/host_builtin_kernels.h"
#include "kernels/host/host_ceiling_workloads.h"
#include "caliber/errors.h"
#include "providers/host/host_providers.h"

namespace caliber::host {

BackendModule backend_module() {
  BackendModule m;
  m.kind = BackendKind::host;
  m.device_count = [](std::string*) { return 1; };
  m.list_devices = [] { return std::vector<DeviceInfo>{describe_host()}; };
  m.open = [](int index) -> std::unique_ptr<Backend> {
    if (index != 0) throw UsageError(fmt::format("--device {}: the host backend has one device, 0", index));
    return std::make_unique<HostBackend>();
  };
  m.instrument_unavailable_reason = [](Instrument instrument) -> std::optional<std::string> {
    if (instrument == Instrument::wallclock) return std::nullopt;
    return fmt::format("not applicable: the host backend times host work with the wallclock instrument only (got {})",
                       to_string(instrument));
  };
  m.builtin_provider_names = [](ops::OpType op) -> std::vector<std::string> {
    if (op == ops::OpType::gemm) return {"caliber", "naive", "tuned"};
    return {"caliber", "naive"};
  };
  m.make_builtin_provider = [](ops::OpType op, const std::string& name) -> std::unique_ptr<providers::Provider> {
    if (name == "caliber") return providers::host::make_caliber_provider(op);
    if (name == "naive") return providers::host::make_naive_provider(op);
    if (name == "tuned" && op == ops::OpType::gemm) return providers::host::make_tuned_gemm_provider();
    return nullptr;
  };
  m.builtin_kernels = [] { return builtin_kernels(); };
  m.make_builtin_workload = [](Backend&, std::string_view kernel, std::uint64_t size_bytes, std::size_t rotation_copies,
                               std::uint64_t seed) {
    return make_builtin_workload(kernel, size_bytes, rotation_copies, seed);
  };
  m.make_copy_ceiling_workload = [](Backend&, std::uint64_t bytes, std::uint64_t seed) {
    return make_copy_ceiling_workload(bytes, seed);
  };
  // The same split memcpy, sized to the cache.
  m.make_cache_copy_ceiling_workload = m.make_copy_ceiling_workload;
  m.make_matmul_ceiling_workload = [](Backend& backend, const std::string& dtype, std::int64_t n, std::uint64_t seed) {
    return make_matmul_ceiling_workload(backend, dtype, n, seed);
  };
  // Host code is the binary and the plugin libraries: the runner hashes their files.
  return m;
}

}  // namespace caliber::host
