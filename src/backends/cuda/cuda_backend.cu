// The cuda backend: CUDA runtime, events on the launching stream, graphs by stream capture.
#include "backends/cuda/cuda_backend.h"

#include <cstdio>
#include <optional>
#include <vector>

#include "backends/cuda/cuda_check.cuh"
#include "backends/cuda/cuda_integrity_kernels.cuh"
#include "backends/cuda/cupti_session.h"
#include "backends/cuda/cupti_timer.h"
#include "backends/cuda/device_input_draw.cuh"
#include "backends/cuda/device_work_census.cuh"
#include "backends/cuda/event_timer.cuh"
#include "backends/cuda/graph_capture.cuh"
#include "backends/cuda/launch_gate.h"
#include "backends/cuda/row_gather.cuh"
#include "backends/cuda/str_cat.h"
#include "backends/host_clock_timer.h"
#include "caliber/clock.h"

namespace caliber::cuda {
namespace {

std::string version_string(int v) {  // 13000 -> "13.0"
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

std::string uuid_string(const cudaUUID_t& u) {
  const auto* b = reinterpret_cast<const unsigned char*>(u.bytes);
  char out[64];
  std::snprintf(out, sizeof out,
                "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1],
                b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14],
                b[15]);
  return out;
}

DeviceInfo describe(int index) {
  cudaDeviceProp p{};
  CALIBER_CUDA_CHECK(cudaGetDeviceProperties(&p, index));
  DeviceInfo d;
  d.backend = BackendKind::cuda;
  d.index = index;
  d.name = p.name;
  d.arch = "sm_" + std::to_string(p.major) + std::to_string(p.minor);
  d.uuid = uuid_string(p.uuid);
  d.multiprocessors = p.multiProcessorCount;
  d.llc_bytes = static_cast<std::uint64_t>(p.l2CacheSize);
  d.llc_source = "cudaDeviceProp::l2CacheSize";
  d.memory_bytes = p.totalGlobalMem;
  int khz = 0;
  CALIBER_CUDA_CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, index));
  d.sm_clock_max_mhz = khz / 1000;
  CALIBER_CUDA_CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, index));
  d.mem_clock_max_mhz = khz / 1000;
  int bus_bits = 0;
  CALIBER_CUDA_CHECK(cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, index));
  d.memory_bus_width_bits = bus_bits;
  int v = 0;
  CALIBER_CUDA_CHECK(cudaDriverGetVersion(&v));
  d.driver_version = version_string(v);
  CALIBER_CUDA_CHECK(cudaRuntimeGetVersion(&v));
  d.runtime_version = version_string(v);
  return d;
}

// Overwrites the flush buffer with values that change every generation.
__global__ void caliber_l2_flush_kernel(int4* buffer, std::size_t n, int generation) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += stride) {
    const int lo = static_cast<int>(i);
    buffer[i] = make_int4(generation, lo, generation ^ lo, ~lo);
  }
}

// Reads a second buffer of the same size: the dirty lines the overwrite left in L2 are written
// back now, outside the timed window, instead of during the measured call's first evictions.
// The loads feed a value that is stored only in a case that cannot happen, so they stay.
__global__ void caliber_l2_evict_kernel(const int4* buffer, std::size_t n, int* sink) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  int acc = 0;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += stride) {
    const int4 v = buffer[i];
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == 0x7fc0ffee) *sink = acc;
}

std::string describe_cache_state(const cudaAccessPolicyWindow& w, std::size_t persisting_limit) {
  std::string window = w.num_bytes == 0 ? std::string("none")
                                        : str_cat("base ", w.base_ptr, ", ", w.num_bytes, " bytes, hit ratio ",
                                                  w.hitRatio, ", hit property ", static_cast<int>(w.hitProp),
                                                  ", miss property ", static_cast<int>(w.missProp));
  return str_cat("stream access-policy window: ", window, "; persisting-L2 limit: ", persisting_limit, " bytes");
}

class CudaBackend final : public Backend {
 public:
  explicit CudaBackend(int index) : device_(describe(index)) {
    CALIBER_CUDA_CHECK(cudaSetDevice(index));
    CALIBER_CUDA_CHECK(cudaFree(nullptr));  // create the context now, not inside a measurement
    CALIBER_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    const std::uint64_t mib = 1ull << 20;
    flush_bytes_ = ((2 * device_.llc_bytes + mib - 1) / mib) * mib;
    cudaStreamAttrValue v{};
    CALIBER_CUDA_CHECK(cudaStreamGetAttribute(stream_, cudaStreamAttributeAccessPolicyWindow, &v));
    opened_window_ = v.accessPolicyWindow;
    CALIBER_CUDA_CHECK(cudaDeviceGetLimit(&opened_persisting_limit_, cudaLimitPersistingL2CacheSize));
  }
  ~CudaBackend() override {
    if (flush_buffer_) cudaFree(flush_buffer_);
    if (stream_) cudaStreamDestroy(stream_);
  }

  BackendKind kind() const override { return BackendKind::cuda; }
  const DeviceInfo& device() const override { return device_; }
  void* stream() override { return stream_; }
  void synchronize_device() override { CALIBER_CUDA_CHECK(cudaDeviceSynchronize()); }

  // Cold cache: overwrite a buffer of >= 2x L2 (every line of the measured data is evicted), then
  // read a second buffer of the same size so the lines the overwrite dirtied are written back here,
  // outside the timed window (H200: a write-only flush left +2.9% on a 256 MiB scale against ncu).
  void flush_cache() override {
    if (!flush_buffer_) {
      // Allocated outside any capture: the first flush always happens during warmup.
      CALIBER_CUDA_CHECK(cudaMalloc(&flush_buffer_, 2 * flush_bytes_ + sizeof(int4)));
      CALIBER_CUDA_CHECK(cudaMemsetAsync(flush_buffer_, 0x5a, 2 * flush_bytes_ + sizeof(int4), stream_));
    }
    // Lines a call marked persisting survive an overwrite of the cache: make them normal first.
    // Only when some set-aside for persisting lines exists (the limit is 0 unless a call set it),
    // and never inside a capture (the reset is not a stream operation).
    std::size_t persisting = 0;
    CALIBER_CUDA_CHECK(cudaDeviceGetLimit(&persisting, cudaLimitPersistingL2CacheSize));
    if (persisting > 0 && !capturing()) CALIBER_CUDA_CHECK(cudaCtxResetPersistingL2Cache());
    const std::size_t n = flush_bytes_ / sizeof(int4);
    auto* base = static_cast<int4*>(flush_buffer_);
    const int blocks = device_.multiprocessors * 8;
    caliber_l2_flush_kernel<<<blocks, 512, 0, stream_>>>(base, n, ++flush_generation_);
    CALIBER_CUDA_CHECK_LAUNCH();
    remember_captured_flush_node();
    caliber_l2_evict_kernel<<<blocks, 512, 0, stream_>>>(base + n, n, reinterpret_cast<int*>(base + 2 * n));
    CALIBER_CUDA_CHECK_LAUNCH();
    remember_captured_flush_node();
  }

  bool capturing() {
    cudaStreamCaptureStatus status{};
    CALIBER_CUDA_CHECK(cudaStreamIsCapturing(stream_, &status));
    return status == cudaStreamCaptureStatusActive;
  }

  // Inside a capture each flush kernel becomes a graph node: remember which, so the cupti timer
  // can exclude it by identity (never by its name).
  void remember_captured_flush_node() {
    cudaStreamCaptureStatus status{};
    CALIBER_CUDA_CHECK(cudaStreamIsCapturing(stream_, &status));
    if (status != cudaStreamCaptureStatusActive) return;
    const cudaGraphNode_t* deps = nullptr;
    std::size_t n_deps = 0;
    CALIBER_CUDA_CHECK(cudaStreamGetCaptureInfo(stream_, &status, nullptr, nullptr, &deps, nullptr, &n_deps));
    if (n_deps != 1) {
      throw DeviceError(str_cat("captured cache flush: expected one node at the capture frontier, found ", n_deps));
    }
    captured_flush_nodes_.push_back(deps[0]);
  }
  std::uint64_t flush_bytes() const override { return flush_bytes_; }

  std::unique_ptr<SampleTimer> make_timer(Instrument instrument) override {
    Contract c = default_contract(BackendKind::cuda);
    c.instrument = instrument;
    return make_timer_for(c);
  }

  // A new timer starts a new measurement: the graphs it will time are captured after it.
  std::unique_ptr<SampleTimer> make_timer_for(const Contract& contract) override {
    own_nodes_.reset();
    switch (contract.instrument) {
      case Instrument::event: {
        // per_iter with fresh inputs: the draws caliber enqueues between calls let the device drain
        // the queue, so without the gate each window would hold the call's launch latency.
        const bool gated = contract.schedule == Schedule::isolated ||
                           (contract.schedule == Schedule::per_iter && contract.inputs == InputValues::fresh);
        if (gated && !launch_gate_) launch_gate_ = std::make_unique<LaunchGate>();
        return make_event_timer(stream_, gated ? launch_gate_.get() : nullptr);
      }
      case Instrument::wallclock: return std::make_unique<HostClockTimer>(steady_clock());
      case Instrument::cupti: break;
    }
    if (auto why = cupti::unavailable_reason()) {
      throw ContractError("instrument cupti is not available: " + *why);
    }
    auto own = std::make_shared<OwnGraphNodes>();
    const auto calls = contract.schedule == Schedule::graph ? static_cast<std::size_t>(contract.graph_calls) : 1;
    auto timer = make_cupti_timer(contract.cupti_reduction, own, calls);
    own_nodes_ = std::move(own);
    return timer;
  }

  std::unique_ptr<ActivityTracing> keep_activity_tracing_on() override {
    if (auto why = cupti::unavailable_reason()) {
      throw ContractError("CUPTI tracing is not available: " + *why);
    }
    return keep_cupti_tracing_on();
  }

  TelemetryReader* telemetry(std::string* why_unavailable) override {
    if (!telemetry_opened_) {
      telemetry_opened_ = true;
      telemetry_ = open_nvml_telemetry(device_.uuid, device_.index, &telemetry_why_);
    }
    if (!telemetry_ && why_unavailable) *why_unavailable = telemetry_why_;
    return telemetry_.get();
  }

  bool supports_graphs() const override { return true; }

  // A device failure from the start of the capture to the instantiated graph is a CaptureError
  // (the runner tells a refused capture from a broken context by it, docs/runner.md).
  std::unique_ptr<GraphExec> capture_graph(const std::function<void()>& record) override {
    capture_invalidated_ = false;
    try {
      return capture_graph_or_throw(record);
    } catch (const OutOfMemoryError&) {
      throw;
    } catch (const CaptureError&) {
      throw;
    } catch (const DeviceError& e) {
      // A call whose own error names something else, in a capture it invalidated (a
      // synchronization inside it does that): capture refused it.
      const DeviceFault fault =
          e.fault() == DeviceFault::unspecified && capture_invalidated_ ? DeviceFault::capture_rejected : e.fault();
      throw CaptureError(str_cat("graph capture: ", e.what()), fault);
    }
  }

  std::unique_ptr<GraphExec> capture_graph_or_throw(const std::function<void()>& record) {
    captured_flush_nodes_.clear();
    CALIBER_CUDA_CHECK(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal));
    try {
      record();
    } catch (...) {
      cudaStreamCaptureStatus status{};
      capture_invalidated_ =
          cudaStreamIsCapturing(stream_, &status) == cudaSuccess && status == cudaStreamCaptureStatusInvalidated;
      end_failed_capture();
      throw;
    }
    cudaGraph_t graph{};
    const cudaError_t ended = cudaStreamEndCapture(stream_, &graph);
    if (ended != cudaSuccess) {
      if (graph) cudaGraphDestroy(graph);
      end_failed_capture();
      throw_cuda_error(ended, "cudaStreamEndCapture(stream_, &graph)", __FILE__, __LINE__);
    }
    auto result = instantiate_captured_graph(graph, stream_, captured_flush_nodes_, own_nodes_.get());
    captured_flush_nodes_.clear();
    return result;
  }

  void check_errors() override { CALIBER_CUDA_CHECK(cudaGetLastError()); }

  // Cleans up after a failed capture (graph_capture.cuh) and forgets the flushes it recorded.
  void end_failed_capture() noexcept {
    cuda::end_failed_capture(stream_);
    captured_flush_nodes_.clear();
  }

  // --- integrity (docs/integrity.md) ------------------------------------------------------------
  bool observes_device_work() const override { return !cupti::unavailable_reason().has_value(); }

  DeviceWorkCensus census_call(const std::function<void()>& call) override {
    return census_device_work(stream_, call);
  }

  std::uint64_t checksum(const void* ptr, std::size_t bytes) override {
    return device_checksum(ptr, bytes, stream_, scratch_, device_.multiprocessors);
  }
  std::uint64_t count_nonfinite(const void* ptr, std::size_t elements, DType dtype) override {
    return device_count_nonfinite(ptr, elements, dtype, stream_, scratch_, device_.multiprocessors);
  }
  void copy_on_device(void* dst, const void* src, std::size_t bytes) override {
    if (!bytes) return;
    CALIBER_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stream_));
    CALIBER_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }
  std::optional<std::string> cache_state() override {
    cudaStreamAttrValue v{};
    CALIBER_CUDA_CHECK(cudaStreamGetAttribute(stream_, cudaStreamAttributeAccessPolicyWindow, &v));
    std::size_t limit = 0;
    CALIBER_CUDA_CHECK(cudaDeviceGetLimit(&limit, cudaLimitPersistingL2CacheSize));
    return describe_cache_state(v.accessPolicyWindow, limit);
  }
  void restore_cache_state() override {
    cudaStreamAttrValue v{};
    v.accessPolicyWindow = opened_window_;
    CALIBER_CUDA_CHECK(cudaStreamSetAttribute(stream_, cudaStreamAttributeAccessPolicyWindow, &v));
    CALIBER_CUDA_CHECK(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, opened_persisting_limit_));
    CALIBER_CUDA_CHECK(cudaCtxResetPersistingL2Cache());
  }

  void* allocate(std::size_t bytes) override {
    void* p = nullptr;
    const cudaError_t e = cudaMalloc(&p, bytes == 0 ? 1 : bytes);
    if (e == cudaErrorMemoryAllocation) {
      cudaGetLastError();  // not sticky: clear it so the next call does not see it
      std::size_t free_bytes = 0, total_bytes = 0;
      cudaMemGetInfo(&free_bytes, &total_bytes);
      throw OutOfMemoryError("cudaMalloc of " + std::to_string(bytes) + " bytes failed: " +
                             std::to_string(free_bytes) + " of " + std::to_string(total_bytes) +
                             " bytes free");
    }
    if (e != cudaSuccess) throw_cuda_error(e, "cudaMalloc", __FILE__, __LINE__);
    return p;
  }
  void deallocate(void* ptr) noexcept override { cudaFree(ptr); }
  // On the backend's (non-blocking) stream, then synchronized: complete when they return.
  void copy_to_device(void* dst, const void* src, std::size_t bytes) override {
    CALIBER_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, stream_));
    CALIBER_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }
  void copy_to_host(void* dst, const void* src, std::size_t bytes) override {
    CALIBER_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, stream_));
    CALIBER_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }
  void copy_rows_to_host(void* dst, const void* src, std::size_t row_bytes,
                         const std::vector<std::int64_t>& rows) override {
    row_gather_.copy_rows_to_host(dst, src, row_bytes, rows, stream_);
  }
  void fill_bytes(void* dst, unsigned char value, std::size_t bytes) override {
    CALIBER_CUDA_CHECK(cudaMemsetAsync(dst, value, bytes, stream_));
    CALIBER_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }
  bool fill_draw(void* dst, ElementType element, std::size_t elements, const DrawParams& draw) override {
    return cuda::draw_on_device(dst, element, elements, draw, stream_);
  }

 private:
  DeviceInfo device_;
  cudaStream_t stream_{};
  void* flush_buffer_ = nullptr;
  std::uint64_t flush_bytes_ = 0;
  int flush_generation_ = 0;
  std::vector<cudaGraphNode_t> captured_flush_nodes_;  // flushes of the capture in progress
  bool capture_invalidated_ = false;  // the last failed capture was invalidated by the call
  std::shared_ptr<OwnGraphNodes> own_nodes_;            // set while a cupti timer measures
  bool telemetry_opened_ = false;
  std::unique_ptr<TelemetryReader> telemetry_;
  std::string telemetry_why_;
  IntegrityScratch scratch_;
  RowGather row_gather_;
  cudaAccessPolicyWindow opened_window_{};
  std::size_t opened_persisting_limit_ = 0;
  std::unique_ptr<LaunchGate> launch_gate_;  // event timers of isolated, and of per_iter with fresh inputs
};

}  // namespace

int device_count(std::string* reason) {
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    if (reason) *reason = std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e);
    cudaGetLastError();  // clear it; no device is not an error of a later call
    return 0;
  }
  if (n == 0 && reason) *reason = "no CUDA device visible";
  return n;
}

std::vector<DeviceInfo> list_devices() {
  std::string reason;
  const int n = device_count(&reason);
  std::vector<DeviceInfo> out;
  for (int i = 0; i < n; ++i) out.push_back(describe(i));
  return out;
}

std::unique_ptr<Backend> open_backend(int index) { return std::make_unique<CudaBackend>(index); }

std::optional<std::string> cupti_unavailable_reason() { return cupti::unavailable_reason(); }

}  // namespace caliber::cuda
