// The backend interface: one runtime (host CPU, CUDA, ...) behind the operations the timer needs.
//
// No CUDA types appear here: a stream is an opaque pointer (cudaStream_t on cuda, null on host).
// Adding a runtime means one new folder under src/backends and one entry in backend_registry.cpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "caliber/contract.h"
#include "caliber/device.h"
#include "caliber/dtype.h"
#include "caliber/input_draw.h"
#include "caliber/telemetry.h"

namespace caliber {

struct Result;

// What a measured callable receives.
struct LaunchContext {
  void* stream = nullptr;        // launch here (cudaStream_t on cuda; null on host)
  std::size_t call_index = 0;    // increases by one per call, warmup included
  std::size_t rotation = 0;      // cache=rotate: which input copy to use; 0 otherwise
};

using Callable = std::function<void(const LaunchContext&)>;

// The calls inside the timed samples, where a timer can tell them apart (cupti: the N calls of a
// graph replay; events: the N calls of a marked replay; docs/integrity.md, "Calls alike").
struct CallsWithinSamples {
  std::vector<std::vector<double>> call_us;  // per sample told apart: each call's device time, in launch order
  std::size_t not_told_apart = 0;            // samples whose calls could not be told apart
  std::string unlike_work;                   // the first call that ran other kernels than its sample's first ("": none)
  // How the calls were told apart, for the record ("CUPTI's records of each replay").
  std::string told_apart_by;
  bool work_compared = false;  // the kernels each call ran were compared (unlike_work applies)
};

// Produces one duration per sample. start/stop mark the window of sample i; durations are read
// with collect_us once the device has been synchronized.
class SampleTimer {
 public:
  virtual ~SampleTimer() = default;
  virtual Instrument instrument() const = 0;
  // Prepare for `count` samples (called before a batch; invalidates earlier marks).
  virtual void reset(std::size_t count) = 0;
  virtual void start(std::size_t sample) = 0;
  virtual void stop(std::size_t sample) = 0;
  // A host clock on an asynchronous device reads the time when stop() is called, so the engine
  // must drain the device before stop() for the window to include the work.
  virtual bool reads_host_clock() const = 0;
  // Window durations of samples [0, count), in microseconds. Only after a device synchronize.
  virtual std::vector<double> collect_us(std::size_t count) = 0;
  // Adds what the timer learned over all batches to the result (cupti: the per-kernel breakdown,
  // the kernel-set check, notes on attribution). Called once, after the last collect_us.
  virtual void annotate(Result&) const {}
  // What the timer saw of the calls inside its samples over all batches (empty: samples only).
  virtual CallsWithinSamples calls_within_samples() const { return {}; }
  // Marks that tell the calls of a graph replay apart where the timer cannot otherwise (events).
  // Inside a capture, mark_call(j, false) comes right before call j and mark_call(j, true) right
  // after it; once a replay of that graph has synchronized, read_marked_replay(n) adds its n
  // calls' durations to calls_within_samples(). false: the timer has none.
  virtual bool marks_calls() const { return false; }
  virtual void mark_call(std::size_t /*call*/, bool /*after*/) {}
  virtual void read_marked_replay(std::size_t /*calls*/) {}
};

// While alive, the backend's kernel activity tracing (CUPTI on cuda) stays on, whatever the
// instrument: used to measure what tracing itself costs (bench --cupti-tracing on).
class ActivityTracing {
 public:
  virtual ~ActivityTracing() = default;
};

// The device work nodes of a captured graph (child graphs counted through).
struct GraphNodeCounts {
  std::size_t kernels = 0;  // of the captured calls
  std::size_t copies = 0;
  std::size_t fills = 0;
  std::size_t own = 0;      // caliber's own nodes (the cache flush captured between calls)
  std::size_t work() const { return kernels + copies + fills; }
};

// An instantiated device graph.
class GraphExec {
 public:
  virtual ~GraphExec() = default;
  virtual void launch() = 0;  // enqueue one replay on the backend's stream
  // What the graph holds; nullopt when the backend cannot tell.
  virtual std::optional<GraphNodeCounts> node_counts() const { return std::nullopt; }
};

// What one untimed call put on the device, as the backend's tracer saw it (cuda: CUPTI activity
// records of the call, attributed by an external correlation id pushed around it). The integrity
// checks (docs/integrity.md) judge it: no device work, or work the measured stream does not order,
// cannot be timed with events or graphs.
struct DeviceWorkCensus {
  // false: the backend runs calls synchronously on the calling thread (host): there is no
  // asynchronous device work to look for.
  bool applicable = true;
  bool observed = false;          // a tracer watched the call
  std::string why_not_observed;   // when !observed
  // Issued by the call on the calling thread.
  std::size_t kernels = 0;
  std::size_t copies = 0;
  std::size_t fills = 0;
  std::size_t off_stream = 0;     // of those, issued on another stream than the measured one
  // Of those, run on another device or in another context than the measured stream's: no
  // timer of the measured device sees that work.
  std::size_t off_device = 0;
  // Device work issued while the call ran by API calls that did not come from it (another host
  // thread of the callable).
  std::size_t other_threads = 0;
  // All of the call's work is ordered on the measured stream: issued there, or on streams forked
  // from it and joined back before the call returned. nullopt: could not be established.
  std::optional<bool> ordered;
  std::string ordering_detail;    // how ordering was established, or why it could not be
  std::vector<std::string> kernel_names;          // demangled, as launched
  std::vector<std::string> mangled_kernel_names;  // the same kernels' compiled names
  std::size_t work() const { return kernels + copies + fills; }
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual BackendKind kind() const = 0;
  virtual const DeviceInfo& device() const = 0;
  virtual void* stream() = 0;
  // Waits for all work on the whole device (all streams), not only the backend's stream.
  virtual void synchronize_device() = 0;
  // Overwrites a buffer of flush_bytes() (>= 2x the last-level cache). Enqueued on the stream;
  // the timer never has it inside a window.
  virtual void flush_cache() = 0;
  virtual std::uint64_t flush_bytes() const = 0;
  // A timer for the instrument; throws ContractError when this backend cannot provide it.
  virtual std::unique_ptr<SampleTimer> make_timer(Instrument instrument) = 0;
  // A timer for a whole contract (cupti reads cupti_reduction). Defaults to make_timer(instrument).
  virtual std::unique_ptr<SampleTimer> make_timer_for(const Contract& contract) {
    return make_timer(contract.instrument);
  }
  // Turns kernel activity tracing on until the returned object is destroyed. ContractError when
  // the backend has none.
  virtual std::unique_ptr<ActivityTracing> keep_activity_tracing_on();
  // The device's telemetry reader, owned by the backend, or null with *why_unavailable set.
  virtual TelemetryReader* telemetry(std::string* why_unavailable);
  virtual bool supports_graphs() const { return false; }
  // Captures what `record` enqueues on stream() into a graph. Throws ContractError when
  // graphs are not supported.
  virtual std::unique_ptr<GraphExec> capture_graph(const std::function<void()>& record);
  // Raises a pending asynchronous device error as DeviceError. Cheap; called after each batch.
  virtual void check_errors() {}

  // --- Integrity (docs/integrity.md): what the checks around a measurement need ---------------
  // Runs `call` once, untimed, synchronizes the device, and reports the device work it issued.
  // The default runs the call and observes nothing.
  virtual DeviceWorkCensus census_call(const std::function<void()>& call);
  // Whether census_call observes anything here (a tracer is available). When false and no
  // buffers are declared, the integrity layer has nothing to check and runs no extra call.
  virtual bool observes_device_work() const { return false; }
  // Whether calls leave work running on the device after they return (cuda: yes; host: no, the
  // call is the work). Only then can work escape the timer or the measured stream.
  virtual bool asynchronous() const { return true; }
  // A 64-bit checksum of device memory (order-sensitive; detects changed bytes, not an attacker
  // who forges collisions). The default copies to the host.
  virtual std::uint64_t checksum(const void* device_ptr, std::size_t bytes);
  // Elements of `dtype` in [device_ptr, + elements) that are NaN or infinite.
  virtual std::uint64_t count_nonfinite(const void* device_ptr, std::size_t elements, DType dtype);
  // Device-to-device copy, complete when it returns. The default stages through the host.
  virtual void copy_on_device(void* device_dst, const void* device_src, std::size_t bytes);
  // State a call could leave behind that changes what the next calls measure (cuda: the stream's
  // access-policy window, the persisting-L2 limit), in words; nullopt when the backend has none.
  virtual std::optional<std::string> cache_state() { return std::nullopt; }
  // Puts that state back as it was when the backend was opened.
  virtual void restore_cache_state() {}

  // Device memory, so that inputs built once on the host can be handed to every provider.
  // The host backend's "device" memory is host memory. Copies and fills are complete when they
  // return. allocate throws OutOfMemoryError when there is no room, DeviceError on other
  // failures; the defaults throw ContractError (a backend without memory primitives).
  virtual void* allocate(std::size_t bytes);
  virtual void deallocate(void* device_ptr) noexcept;
  virtual void copy_to_device(void* device_dst, const void* host_src, std::size_t bytes);
  virtual void copy_to_host(void* host_dst, const void* device_src, std::size_t bytes);
  // Copies rows `rows` (sorted, distinct) of `row_bytes` each from device memory to the same
  // offsets of host memory; the other rows of host_dst stay as they were. The default copies
  // each run of consecutive rows with copy_to_host; cuda gathers them on the device and copies
  // once (a few hundred scattered rows cost one copy, not hundreds).
  virtual void copy_rows_to_host(void* host_dst, const void* device_src, std::size_t row_bytes,
                                 const std::vector<std::int64_t>& rows);
  virtual void fill_bytes(void* device_dst, unsigned char value, std::size_t bytes);
  // Writes `elements` values of element type `element` at device_dst: an input draw
  // (caliber/input_draw.h), bit for bit what the host's draw writes (src/ops/host_draw.h), so that
  // inputs need not be drawn on the host and copied. Enqueued on the backend's stream, not waited
  // for. False when the backend cannot draw this one on its device (the default; a permutation
  // or a file's values): the caller draws on the host.
  virtual bool fill_draw(void* device_dst, ElementType element, std::size_t elements, const DrawParams& draw);

};

// Device memory owned for a scope.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(Backend& backend, std::size_t bytes)
      : backend_(&backend), bytes_(bytes), ptr_(bytes ? backend.allocate(bytes) : nullptr) {}
  ~DeviceBuffer() { reset(); }
  DeviceBuffer(DeviceBuffer&& o) noexcept { *this = std::move(o); }
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      reset();
      backend_ = o.backend_;
      bytes_ = o.bytes_;
      ptr_ = o.ptr_;
      o.ptr_ = nullptr;
      o.bytes_ = 0;
    }
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  void* get() const { return ptr_; }
  std::size_t bytes() const { return bytes_; }
  void reset() noexcept {
    if (ptr_ && backend_) backend_->deallocate(ptr_);
    ptr_ = nullptr;
    bytes_ = 0;
  }

 private:
  Backend* backend_ = nullptr;
  std::size_t bytes_ = 0;
  void* ptr_ = nullptr;
};

// Backends compiled into this build, and whether each can be opened here.
struct BackendAvailability {
  BackendKind kind;
  bool compiled = false;
  int device_count = 0;
  std::string reason;  // why it is unavailable; empty when usable
};
std::vector<BackendAvailability> available_backends();

// Devices of one backend. Throws DeviceError when the backend cannot enumerate.
std::vector<DeviceInfo> list_devices(BackendKind kind);

// Why an instrument cannot be used on a backend in this process (cupti: the CUPTI library is
// missing or cannot start), or nullopt when it can. Touches no device.
std::optional<std::string> instrument_unavailable_reason(BackendKind kind, Instrument instrument);

// The default backend: cuda when compiled in and a device is visible, else host.
BackendKind default_backend_kind();

// Opens device `index` of a backend. Throws UsageError for a device index that does not exist
// and DeviceError when the runtime fails.
std::unique_ptr<Backend> open_backend(BackendKind kind, int index = 0);

}  // namespace caliber
