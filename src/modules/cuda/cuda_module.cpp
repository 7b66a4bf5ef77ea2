// The cuda backend's module: the CUDA devices, CUPTI as the kernel-only instrument, the cuda
// providers (src/providers/cuda), bench kernels and ceiling workloads
// (src/kernels/cuda), the shipped ops' fp64 reference on the device, the code fingerprint from CUPTI's module loads and NVTX profiler ranges.
#include "modules/cuda/cuda_module.h"

#include "backends/cuda/code_fingerprint_capture.h"
#include "backends/cuda/cuda_backend.h"
#include "backends/cuda/device_reference_math.h"
#include "kernels/cuda/cuda_builtin_kernels.h"
#include "kernels/cuda/cuda_ceiling_workloads.h"
#include "providers/cuda/cuda_providers.h"

namespace caliber::cuda {
namespace {

class CuptiCodeRecorder : public DeviceCodeRecorder {
 public:
  std::optional<std::string> unavailable() const override { return capture_.unavailable(); }
  void record_kernels(const std::vector<std::string>& mangled_names) override { capture_.record_kernels(mangled_names); }
  CodeFingerprint fingerprint() const override { return capture_.fingerprint(); }
  void forget_executed_kernels() override { capture_.forget_executed_kernels(); }

 private:
  CodeFingerprintCapture capture_;
};

}  // namespace

BackendModule backend_module() {
  BackendModule m;
  m.kind = BackendKind::cuda;
  m.device_count = [](std::string* reason) { return device_count(reason); };
  m.list_devices = [] { return list_devices(); };
  m.open = [](int index) { return open_backend(index); };
  m.instrument_unavailable_reason = [](Instrument instrument) -> std::optional<std::string> {
    if (instrument == Instrument::cupti) return cupti_unavailable_reason();
    return std::nullopt;
  };
  m.builtin_provider_names = [](ops::OpType op) { return builtin_provider_names(op); };
  m.make_builtin_provider = [](ops::OpType op, const std::string& name) { return make_builtin_provider(op, name); };
  m.builtin_kernels = [] { return builtin_kernels(); };
  m.make_builtin_workload = [](Backend& backend, std::string_view kernel, std::uint64_t size_bytes,
                               std::size_t rotation_copies, std::uint64_t seed) {
    return make_builtin_workload(backend, kernel, size_bytes, rotation_copies, seed);
  };
  m.make_copy_ceiling_workload = [](Backend& backend, std::uint64_t bytes, std::uint64_t seed) {
    return make_copy_ceiling_workload(backend, bytes, seed);
  };
  m.make_cache_copy_ceiling_workload = [](Backend& backend, std::uint64_t bytes, std::uint64_t seed) {
    return make_cache_copy_ceiling_workload(backend, bytes, seed);
  };
  m.make_matmul_ceiling_workload = [](Backend& backend, const std::string& dtype, std::int64_t n, std::uint64_t seed) {
    return make_matmul_ceiling_workload(backend, dtype, n, seed);
  };
  m.make_device_reference_math = [](Backend& backend) { return make_device_reference_math(backend); };
  m.make_device_code_recorder = []() -> std::unique_ptr<DeviceCodeRecorder> {
    return std::make_unique<CuptiCodeRecorder>();
  };
  m.in_profiler_range = [](const std::string& range, const std::function<void()>& call) {
    ProfilerRange r(range);
    call();
  };
  return m;
}

}  // namespace caliber::cuda
