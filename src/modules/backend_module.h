// One backend as the rest of caliber sees it: how to find and open its devices, and what it
// contributes to the built-in providers, the bench kernels, the calibration workloads and a run's
// code fingerprint. Each backend defines its module (src/modules/<name>/<name>_module.cpp); its
// runtime, providers, kernels and workloads live with what they are (src/backends/<name>,
// src/providers/<name>, src/kernels/<name>). The registry (backend_registry.cpp) is the one place
// that lists the modules a build has: nothing else names a backend's code, so a new runtime is its
// folders plus one line there. Callers ask by backend kind through modules/builtins.h.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/workload.h"
#include "kernels/ceiling_workloads.h"
#include "caliber/backend.h"
#include "fingerprint/code_fingerprint.h"
#include "ops/device_reference.h"
#include "ops/op_shape.h"
#include "providers/provider.h"

namespace caliber {

// Records which device code a run's correctness calls launched (the code fingerprint,
// docs/screen.md). Created before the backend's device is opened.
class DeviceCodeRecorder {
 public:
  virtual ~DeviceCodeRecorder() = default;
  // Why nothing can be recorded in this process, or nullopt.
  virtual std::optional<std::string> unavailable() const = 0;
  // The kernels one call launched, by their compiled names (from the call's census,
  // Backend::census_call).
  virtual void record_kernels(const std::vector<std::string>& mangled_names) = 0;
  virtual CodeFingerprint fingerprint() const = 0;
  // Forgets the kernels recorded so far (the modules stay known): the next run of a device server
  // fingerprints only what it executes.
  virtual void forget_executed_kernels() = 0;
};

struct BackendModule {
  BackendKind kind = BackendKind::host;

  // --- devices
  // Devices visible now; 0 with `reason` set when there are none or the runtime failed.
  std::function<int(std::string* reason)> device_count;
  std::function<std::vector<DeviceInfo>()> list_devices;
  std::function<std::unique_ptr<Backend>(int index)> open;
  // Why `instrument` cannot be used in this process, or nullopt. Touches no device.
  std::function<std::optional<std::string>(Instrument instrument)> instrument_unavailable_reason;

  // --- built-in providers (src/providers/<name>)
  std::function<std::vector<std::string>(ops::OpType op)> builtin_provider_names;
  // Null for a name that is not a built-in of the op on this backend.
  std::function<std::unique_ptr<providers::Provider>(ops::OpType op, const std::string& name)> make_builtin_provider;

  // --- caliber bench's kernels (src/kernels/<name>)
  std::function<std::vector<bench::KernelInfo>()> builtin_kernels;
  std::function<std::unique_ptr<bench::Workload>(Backend& backend, std::string_view kernel, std::uint64_t size_bytes,
                                                 std::size_t rotation_copies, std::uint64_t seed)>
      make_builtin_workload;

  // --- caliber calibrate's workloads (src/kernels/<name>; kernels/ceiling_workloads.h)
  std::function<calibrate::CeilingWorkload(Backend& backend, std::uint64_t bytes, std::uint64_t seed)>
      make_copy_ceiling_workload;
  // The copy of `bytes` (a multiple of 4096) served from the last-level cache.
  std::function<calibrate::CeilingWorkload(Backend& backend, std::uint64_t bytes, std::uint64_t seed)>
      make_cache_copy_ceiling_workload;
  std::function<calibrate::CeilingWorkload(Backend& backend, const std::string& dtype, std::int64_t n,
                                           std::uint64_t seed)>
      make_matmul_ceiling_workload;

  // --- the shipped ops' fp64 reference on the device (ops/device_reference.h); null: the backend
  // has none and the reference is computed on the host
  std::function<std::unique_ptr<ops::DeviceReferenceMath>(Backend& backend)> make_device_reference_math;
  // --- a run's hooks
  // Null: the backend's code is the process's own libraries, fingerprinted from their files.
  std::function<std::unique_ptr<DeviceCodeRecorder>()> make_device_code_recorder;
  // Runs `call` inside a range a profiler can be limited to (caliber profile); null: no ranges.
  std::function<void(const std::string& range, const std::function<void()>& call)> in_profiler_range;
};

// The modules this build has, host first.
const std::vector<BackendModule>& backend_modules();
// The module of `kind`, or null when this build does not have it.
const BackendModule* find_backend_module(BackendKind kind);
// The module of `kind`; throws UsageError naming why it is not in this build.
const BackendModule& backend_module(BackendKind kind);

}  // namespace caliber
