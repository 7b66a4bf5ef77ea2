// The process's one CUPTI session, declared without CUDA or CUPTI types.
//
// libcupti is loaded at run time (dlopen of libcupti.so.13, then libcupti.so, or
// $CALIBER_CUPTI_LIBRARY; "none" disables it), never linked: caliber starts and measures where
// CUPTI is absent. The activity callbacks are registered once per process and reused
// (registering them again for each measurement corrupts the first records of a session); activity
// kinds are enabled only while a user holds the session (a cupti timer, or tracing kept on to
// measure its cost), so event measurements in the same process run untraced. Buffers are small
// and recycled; records are delivered by explicit flushes outside timed windows.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/kernel_attribution.h"

namespace caliber::cuda::cupti {

// Why CUPTI cannot be used here (library missing, wrong version, callbacks refused), or nullopt.
// Loads and sets up the session on first call; touches no device.
std::optional<std::string> unavailable_reason();

// "CUPTI 130001 (libcupti.so.13)"; empty when unavailable.
std::string describe();

// Holds activity tracing on (kernels, copies, fills, runtime and driver API, external
// correlation) while alive. Throws ContractError when CUPTI is unavailable or refuses to trace
// (another profiler such as ncu or nsys may own it).
class TracingLease {
 public:
  TracingLease();
  ~TracingLease();
  TracingLease(const TracingLease&) = delete;
  TracingLease& operator=(const TracingLease&) = delete;
};

// How often the last lease detached CUPTI from the process (cuptiFinalize): tracing that was
// only switched off still slows every launch, so the last lease takes CUPTI out of the process.
std::uint64_t detach_count();

// Everything delivered since the last drain. Forces a flush first: call after a device
// synchronize, outside any timed window (a forced flush costs ~100 us of host time, docs/cupti.md).
struct Drained {
  std::vector<DeviceActivity> activities;
  std::vector<ExternalCorrelation> correlations;
  std::uint64_t dropped_records = 0;   // records CUPTI could not store
};
Drained drain();

// Module images as the driver loads them (CUPTI's module-loaded resource callback), for code
// fingerprints. The image is valid only during the call. Returns why it cannot observe, or nullopt.
// Modules loaded before the observer is set are not seen (lazy loading loads a module at the first
// launch of one of its kernels, so set it before anything runs). An empty function stops observing.
using ModuleObserver = std::function<void(std::uint32_t module_id, const void* image, std::size_t size)>;
std::optional<std::string> set_module_observer(ModuleObserver observer);

// External ids: a fresh range per batch; push/pop around each timed call on the calling thread.
std::uint64_t reserve_external_ids(std::size_t count);
void push_external_id(std::uint64_t id);
void pop_external_id();

// Graph-node identity. `node` is a cudaGraphNode_t (CUgraphNode), `exec` a cudaGraphExec_t.
std::uint64_t graph_node_id(void* node);
std::uint32_t graph_exec_id(void* exec);

// Records, during a graph instantiation, which executed node each template node became (CUPTI's
// graph-node-cloned resource callback). available() is false when the callback subscription was
// refused (another CUPTI client); then clones() stays empty.
class CloneTracking {
 public:
  CloneTracking();   // starts recording
  ~CloneTracking();  // stops
  CloneTracking(const CloneTracking&) = delete;
  CloneTracking& operator=(const CloneTracking&) = delete;
  static bool available(std::string* why_not = nullptr);
  std::unordered_map<std::uint64_t, std::uint64_t> clones() const;  // template id -> executed id
};

}  // namespace caliber::cuda::cupti
