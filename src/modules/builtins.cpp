// What a backend contributes, asked by backend kind (modules/builtins.h): each backend's module
// answers for its own.
#include "modules/builtins.h"

#include <algorithm>

#include "modules/backend_module.h"

namespace caliber::providers {

std::vector<std::string> builtin_provider_names(BackendKind backend, ops::OpType op) {
  if (const BackendModule* m = find_backend_module(backend)) return m->builtin_provider_names(op);
  return {};
}

std::unique_ptr<Provider> make_builtin_provider(BackendKind backend, ops::OpType op, const std::string& name) {
  if (const BackendModule* m = find_backend_module(backend)) return m->make_builtin_provider(op, name);
  return nullptr;
}

}  // namespace caliber::providers

namespace caliber::bench {

std::vector<KernelInfo> builtin_kernels(BackendKind backend) {
  if (const BackendModule* m = find_backend_module(backend)) return m->builtin_kernels();
  return {};
}

std::unique_ptr<Workload> make_builtin_workload(Backend& backend, std::string_view kernel,
                                                std::uint64_t size_bytes,
                                                std::size_t rotation_copies, std::uint64_t seed) {
  return backend_module(backend.kind()).make_builtin_workload(backend, kernel, size_bytes, rotation_copies, seed);
}

}  // namespace caliber::bench

namespace caliber::calibrate {

CeilingWorkload make_copy_workload(Backend& backend, std::uint64_t bytes, std::uint64_t seed) {
  return backend_module(backend.kind()).make_copy_ceiling_workload(backend, bytes, seed);
}

CeilingWorkload make_cache_copy_workload(Backend& backend, std::uint64_t bytes, std::uint64_t seed) {
  bytes = std::max<std::uint64_t>(4096, bytes / 4096 * 4096);
  return backend_module(backend.kind()).make_cache_copy_ceiling_workload(backend, bytes, seed);
}

CeilingWorkload make_matmul_workload(Backend& backend, const std::string& dtype, std::int64_t n, std::uint64_t seed) {
  return backend_module(backend.kind()).make_matmul_ceiling_workload(backend, dtype, n, seed);
}

}  // namespace caliber::calibrate

namespace caliber::ops {

std::unique_ptr<DeviceReferenceMath> make_device_reference_math(Backend& backend) {
  const BackendModule& m = backend_module(backend.kind());
  return m.make_device_reference_math ? m.make_device_reference_math(backend) : nullptr;
}

}  // namespace caliber::ops
