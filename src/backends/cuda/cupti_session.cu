// The CUPTI session: run-time loading, buffer handling, record conversion, external correlation
// and graph-node clone tracking. See cupti_session.h for the rules it keeps.
#include "backends/cuda/cupti_session.h"
#include "backends/cuda/str_cat.h"

#include <cuda_runtime.h>
#include <cupti.h>
#include <dlfcn.h>

#include <cstdlib>
#include <mutex>

#include "caliber/errors.h"
#include "core/demangle.h"

namespace caliber::cuda::cupti {
namespace {

constexpr std::size_t kBufferBytes = 256 * 1024;  // small: delivered often, recycled
constexpr std::size_t kBufferAlign = 8;           // CUPTI requires 8-byte aligned buffers
constexpr CUpti_ExternalCorrelationKind kCaliberKind = CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0;
// What a measured call may run, plus what attribution needs: the API records (RUNTIME, DRIVER)
// are what carries external correlation (docs/gpu/reference.md: none without them).
constexpr CUpti_ActivityKind kTracedKinds[] = {
    CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
    CUPTI_ACTIVITY_KIND_MEMSET,            CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION,
    CUPTI_ACTIVITY_KIND_RUNTIME,           CUPTI_ACTIVITY_KIND_DRIVER};

// The CUPTI functions caliber calls, resolved with dlsym. decltype only names their types.
#define CALIBER_CUPTI_FUNCTIONS(X)                                                          \
  X(cuptiGetVersion) X(cuptiGetResultString) X(cuptiActivityRegisterCallbacks)             \
  X(cuptiActivityEnable) X(cuptiActivityDisable) X(cuptiActivityFlushAll)                  \
  X(cuptiActivityGetNextRecord) X(cuptiActivityGetNumDroppedRecords)                      \
  X(cuptiActivityPushExternalCorrelationId) X(cuptiActivityPopExternalCorrelationId)      \
  X(cuptiGetGraphNodeId) X(cuptiGetGraphExecId) X(cuptiSubscribe) X(cuptiEnableCallback)          \
  X(cuptiFinalize)

struct Api {
#define CALIBER_CUPTI_MEMBER(name) decltype(&::name) name = nullptr;
  CALIBER_CUPTI_FUNCTIONS(CALIBER_CUPTI_MEMBER)
#undef CALIBER_CUPTI_MEMBER
};

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records);
void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream_id, uint8_t* buffer, size_t size,
                               size_t valid_size);
void CUPTIAPI resource_callback(void* userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                                const void* data);

class Session {
 public:
  static Session& instance() {
    static Session* s = new Session;  // lives for the process: CUPTI may call back at exit
    return *s;
  }

  const std::optional<std::string>& unavailable() const { return unavailable_; }
  const std::string& description() const { return description_; }
  const Api& api() const { return api_; }

  std::string error_text(CUptiResult r) const {
    const char* s = nullptr;
    if (api_.cuptiGetResultString && api_.cuptiGetResultString(r, &s) == CUPTI_SUCCESS && s) return s;
    return str_cat("CUPTI error ", static_cast<int>(r));
  }

  void check(CUptiResult r, const char* what) const {
    if (r != CUPTI_SUCCESS) throw DeviceError(str_cat(what, " failed: ", error_text(r)));
  }

  void acquire() {
    if (unavailable_) throw ContractError("instrument cupti is not available: " + *unavailable_);
    std::lock_guard lock(lease_mutex_);
    if (leases_++ > 0) return;
    if (!attached_) attach();
    std::size_t enabled = 0;
    for (CUpti_ActivityKind kind : kTracedKinds) {
      const CUptiResult r = api_.cuptiActivityEnable(kind);
      if (r != CUPTI_SUCCESS) {
        for (std::size_t k = 0; k < enabled; ++k) api_.cuptiActivityDisable(kTracedKinds[k]);
        --leases_;
        throw ContractError(str_cat(
            "instrument cupti is not available: cuptiActivityEnable(kind ", static_cast<int>(kind),
            ") failed: ", error_text(r), " (another profiler such as ncu or nsys may own CUPTI)"));
      }
      ++enabled;
    }
  }

  void release() {
    std::lock_guard lock(lease_mutex_);
    if (--leases_ > 0) return;
    cudaDeviceSynchronize();  // nothing traced may still be running when CUPTI detaches
    for (CUpti_ActivityKind kind : kTracedKinds) api_.cuptiActivityDisable(kind);
    api_.cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    {
      std::lock_guard store(store_mutex_);
      activities_.clear();
      correlations_.clear();
      dropped_ = 0;
    }
    // Disabling the activity kinds does not take CUPTI out of the launch path: measured on the
    // H200, a tiny kernel's event per_iter/warm time stayed at the tracing-on value (9.0 us
    // against 5.5 us) for every later measurement of the process. So the last lease detaches
    // CUPTI (cuptiFinalize, after the device work is synchronized and the buffers flushed, as its
    // documentation requires) and the next use attaches it again. Callers synchronize the device
    // before they release (TracingLease).
    api_.cuptiFinalize();
    attached_ = false;
    ++detaches_;
    // Module loads stay observed while an observer is set (code fingerprints): a subscription to
    // resource callbacks, no activity kind.
    bool observing = false;
    {
      std::lock_guard m(module_mutex_);
      observing = static_cast<bool>(module_observer_);
    }
    if (observing) attach();
  }

  std::uint64_t detaches() {
    std::lock_guard lock(lease_mutex_);
    return detaches_;
  }

  Drained drain() {
    check(api_.cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), "cuptiActivityFlushAll");
    Drained d;
    std::lock_guard lock(store_mutex_);
    d.activities.swap(activities_);
    d.correlations.swap(correlations_);
    d.dropped_records = dropped_;
    dropped_ = 0;
    return d;
  }

  std::uint64_t reserve(std::size_t count) {
    std::lock_guard lock(store_mutex_);
    const std::uint64_t first = next_external_id_;
    next_external_id_ += count;
    return first;
  }

  // --- buffers ---------------------------------------------------------------------------------
  uint8_t* take_buffer() {
    std::lock_guard lock(pool_mutex_);
    if (!pool_.empty()) {
      uint8_t* b = pool_.back();
      pool_.pop_back();
      return b;
    }
    return static_cast<uint8_t*>(std::aligned_alloc(kBufferAlign, kBufferBytes));
  }
  void return_buffer(uint8_t* b) {
    std::lock_guard lock(pool_mutex_);
    pool_.push_back(b);
  }

  void consume(CUcontext ctx, uint32_t stream_id, uint8_t* buffer, size_t valid_size) {
    std::vector<DeviceActivity> acts;
    std::vector<ExternalCorrelation> corrs;
    CUpti_Activity* record = nullptr;
    while (api_.cuptiActivityGetNextRecord(buffer, valid_size, &record) == CUPTI_SUCCESS) {
      switch (record->kind) {
        case CUPTI_ACTIVITY_KIND_KERNEL:
        case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
          const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
          DeviceActivity a;
          a.kind = DeviceActivity::Kind::kernel;
          a.name = kernel_name(k->name);
          a.mangled_name = k->name ? k->name : "";
          a.start_ns = k->start;
          a.end_ns = k->end;
          a.correlation_id = k->correlationId;
          a.stream_id = k->streamId;
          a.device_id = k->deviceId;
          a.context_id = k->contextId;
          a.graph_node_id = k->graphNodeId;
          a.blocks = static_cast<std::uint64_t>(k->gridX) * static_cast<std::uint64_t>(k->gridY) *
                     static_cast<std::uint64_t>(k->gridZ);
          acts.push_back(std::move(a));
          break;
        }
        case CUPTI_ACTIVITY_KIND_MEMCPY: {
          const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
          DeviceActivity a;
          a.kind = DeviceActivity::Kind::memcpy;
          a.name = str_cat("[memcpy ", copy_kind_name(m->copyKind), "]");
          a.start_ns = m->start;
          a.end_ns = m->end;
          a.correlation_id = m->correlationId;
          a.runtime_correlation_id = m->runtimeCorrelationId;
          a.stream_id = m->streamId;
          a.device_id = m->deviceId;
          a.context_id = m->contextId;
          a.graph_node_id = m->graphNodeId;
          acts.push_back(std::move(a));
          break;
        }
        case CUPTI_ACTIVITY_KIND_MEMSET: {
          const auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(record);
          DeviceActivity a;
          a.kind = DeviceActivity::Kind::memset;
          a.name = "[memset]";
          a.start_ns = m->start;
          a.end_ns = m->end;
          a.correlation_id = m->correlationId;
          a.stream_id = m->streamId;
          a.device_id = m->deviceId;
          a.context_id = m->contextId;
          a.graph_node_id = m->graphNodeId;
          acts.push_back(std::move(a));
          break;
        }
        case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: {
          const auto* e = reinterpret_cast<const CUpti_ActivityExternalCorrelation*>(record);
          if (e->externalKind == kCaliberKind) corrs.push_back({e->correlationId, e->externalId});
          break;
        }
        default:
          break;  // API records: they only carry the external correlation
      }
    }
    size_t dropped = 0;
    if (api_.cuptiActivityGetNumDroppedRecords(ctx, stream_id, &dropped) != CUPTI_SUCCESS) dropped = 0;
    std::lock_guard lock(store_mutex_);
    for (auto& a : acts) activities_.push_back(std::move(a));
    correlations_.insert(correlations_.end(), corrs.begin(), corrs.end());
    dropped_ += dropped;
  }

  // --- graph-node clones -----------------------------------------------------------------------
  bool clone_callback_available(std::string* why) const {
    if (why) *why = clone_unavailable_;
    return clone_unavailable_.empty();
  }
  void set_clone_tracking(bool on) {
    std::lock_guard lock(clone_mutex_);
    tracking_clones_ = on;
    if (on) clones_.clear();
  }
  std::unordered_map<std::uint64_t, std::uint64_t> clones() const {
    std::lock_guard lock(clone_mutex_);
    return clones_;
  }
  void set_module_observer(ModuleObserver observer) {
    std::lock_guard lease(lease_mutex_);
    if (observer && !attached_) attach();
    std::lock_guard lock(module_mutex_);
    module_observer_ = std::move(observer);
  }
  void on_module_loaded(const CUpti_ModuleResourceData* m) {
    std::lock_guard lock(module_mutex_);
    if (module_observer_ && m && m->pCubin) module_observer_(m->moduleId, m->pCubin, m->cubinSize);
  }
  const std::string& module_unavailable() const { return module_unavailable_; }

  void on_node_cloned(const CUpti_GraphData* g) {
    std::lock_guard lock(clone_mutex_);
    if (!tracking_clones_ || !g) return;
    uint64_t original = 0, clone = 0;
    if (api_.cuptiGetGraphNodeId(g->originalNode, &original) == CUPTI_SUCCESS &&
        api_.cuptiGetGraphNodeId(g->node, &clone) == CUPTI_SUCCESS) {
      clones_[original] = clone;
    }
  }

 private:
  Session() {
    std::string library;
    void* lib = open_library(&library);
    if (!lib) return;
    const char* missing = nullptr;
#define CALIBER_CUPTI_BIND(name)                                                  \
  if (!missing) {                                                                 \
    api_.name = reinterpret_cast<decltype(api_.name)>(dlsym(lib, #name));         \
    if (!api_.name) missing = #name;                                              \
  }
    CALIBER_CUPTI_FUNCTIONS(CALIBER_CUPTI_BIND)
#undef CALIBER_CUPTI_BIND
    if (missing) {
      unavailable_ = str_cat(library, " lacks ", missing);
      return;
    }
    uint32_t version = 0;
    if (api_.cuptiGetVersion(&version) != CUPTI_SUCCESS || version / 10000 != CUPTI_API_VERSION / 10000) {
      unavailable_ = str_cat(library, " has CUPTI API version ", version,
                             "; this caliber reads the activity records of CUPTI ",
                             CUPTI_API_VERSION / 10000, ".x (API ", CUPTI_API_VERSION, ")");
      return;
    }
    description_ = str_cat("CUPTI ", version, " (", library, ")");
    attach();
  }

  // Registers the buffer callbacks and the one subscriber (graph-node clones, module loads): at
  // start, and again after a detach (cuptiFinalize destroys both).
  void attach() {
    const CUptiResult r = api_.cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
    if (r != CUPTI_SUCCESS) {
      unavailable_ = "cuptiActivityRegisterCallbacks failed: " + error_text(r);
      return;
    }
    attached_ = true;
    clone_unavailable_.clear();
    module_unavailable_.clear();
    CUpti_SubscriberHandle subscriber{};
    CUptiResult s = api_.cuptiSubscribe(&subscriber, resource_callback, nullptr);
    if (s == CUPTI_SUCCESS) {
      s = api_.cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RESOURCE,
                                   CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED);
    }
    if (s != CUPTI_SUCCESS) clone_unavailable_ = "callback subscription refused: " + error_text(s);
    // Module loads (the cubin of each module, for code fingerprints): same subscriber, since CUPTI
    // allows one per process. The callback does nothing until an observer is set.
    CUptiResult m = s;
    if (m == CUPTI_SUCCESS) {
      m = api_.cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_MODULE_LOADED);
    }
    if (m != CUPTI_SUCCESS) module_unavailable_ = "module-load callback refused: " + error_text(m);
  }

  void* open_library(std::string* library) {
    const char* forced = std::getenv("CALIBER_CUPTI_LIBRARY");
    std::vector<std::string> names;
    if (forced && *forced) {
      if (std::string(forced) == "none") {
        unavailable_ = "disabled by CALIBER_CUPTI_LIBRARY=none";
        return nullptr;
      }
      names.push_back(forced);
    } else {
      names = {"libcupti.so.13", "libcupti.so"};
    }
    std::string errors;
    for (const auto& n : names) {
      if (void* lib = dlopen(n.c_str(), RTLD_NOW | RTLD_LOCAL)) {
        *library = n;
        return lib;
      }
      const char* e = dlerror();
      errors += (errors.empty() ? "" : "; ") + std::string(e ? e : n + ": cannot open");
    }
    unavailable_ = str_cat(
        "CUPTI not loaded (", errors,
        "); add the directory holding libcupti.so.13 (e.g. /usr/local/cuda/lib64) to "
        "LD_LIBRARY_PATH or set CALIBER_CUPTI_LIBRARY");
    return nullptr;
  }

  const std::string& kernel_name(const char* mangled) {
    std::lock_guard lock(names_mutex_);
    auto it = names_.find(mangled);  // CUPTI shares one name pointer per kernel
    if (it == names_.end()) it = names_.emplace(mangled, mangled ? demangle(mangled) : "[unnamed kernel]").first;
    return it->second;
  }

  static const char* copy_kind_name(uint8_t kind) {
    switch (kind) {
      case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD: return "HtoD";
      case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH: return "DtoH";
      case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA: return "HtoA";
      case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH: return "AtoH";
      case CUPTI_ACTIVITY_MEMCPY_KIND_ATOA: return "AtoA";
      case CUPTI_ACTIVITY_MEMCPY_KIND_ATOD: return "AtoD";
      case CUPTI_ACTIVITY_MEMCPY_KIND_DTOA: return "DtoA";
      case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD: return "DtoD";
      case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH: return "HtoH";
      case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP: return "PtoP";
      default: return "unknown";
    }
  }

  Api api_;
  std::optional<std::string> unavailable_;
  std::string description_;
  std::string clone_unavailable_;

  std::mutex lease_mutex_;
  int leases_ = 0;
  bool attached_ = false;
  std::uint64_t detaches_ = 0;

  std::mutex pool_mutex_;
  std::vector<uint8_t*> pool_;

  std::mutex store_mutex_;
  std::vector<DeviceActivity> activities_;
  std::vector<ExternalCorrelation> correlations_;
  std::uint64_t dropped_ = 0;
  std::uint64_t next_external_id_ = 1;

  std::mutex names_mutex_;
  std::unordered_map<const char*, std::string> names_;

  std::mutex module_mutex_;
  ModuleObserver module_observer_;
  std::string module_unavailable_;
  mutable std::mutex clone_mutex_;
  bool tracking_clones_ = false;
  std::unordered_map<std::uint64_t, std::uint64_t> clones_;
};

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = Session::instance().take_buffer();
  *size = *buffer ? kBufferBytes : 0;
  *max_records = 0;  // as many as fit
}

void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream_id, uint8_t* buffer, size_t /*size*/,
                               size_t valid_size) {
  if (!buffer) return;
  Session& s = Session::instance();
  if (valid_size > 0) s.consume(ctx, stream_id, buffer, valid_size);
  s.return_buffer(buffer);
}

void CUPTIAPI resource_callback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                                const void* data) {
  if (domain != CUPTI_CB_DOMAIN_RESOURCE || !data) return;
  const auto* resource = static_cast<const CUpti_ResourceData*>(data);
  if (cbid == CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED) {
    Session::instance().on_node_cloned(static_cast<const CUpti_GraphData*>(resource->resourceDescriptor));
  } else if (cbid == CUPTI_CBID_RESOURCE_MODULE_LOADED) {
    // The image is valid only inside the callback: the observer hashes it at once.
    Session::instance().on_module_loaded(static_cast<const CUpti_ModuleResourceData*>(resource->resourceDescriptor));
  }
}

}  // namespace

std::optional<std::string> unavailable_reason() { return Session::instance().unavailable(); }

std::string describe() { return Session::instance().description(); }

TracingLease::TracingLease() { Session::instance().acquire(); }
TracingLease::~TracingLease() { Session::instance().release(); }

std::uint64_t detach_count() { return Session::instance().detaches(); }

Drained drain() { return Session::instance().drain(); }

std::optional<std::string> set_module_observer(ModuleObserver observer) {
  Session& s = Session::instance();
  if (s.unavailable()) return s.unavailable();
  if (!s.module_unavailable().empty()) return s.module_unavailable();
  s.set_module_observer(std::move(observer));
  return std::nullopt;
}

std::uint64_t reserve_external_ids(std::size_t count) { return Session::instance().reserve(count); }

void push_external_id(std::uint64_t id) {
  Session& s = Session::instance();
  s.check(s.api().cuptiActivityPushExternalCorrelationId(kCaliberKind, id),
          "cuptiActivityPushExternalCorrelationId");
}

void pop_external_id() {
  Session& s = Session::instance();
  uint64_t last = 0;
  s.check(s.api().cuptiActivityPopExternalCorrelationId(kCaliberKind, &last),
          "cuptiActivityPopExternalCorrelationId");
}

std::uint64_t graph_node_id(void* node) {
  Session& s = Session::instance();
  uint64_t id = 0;
  s.check(s.api().cuptiGetGraphNodeId(static_cast<CUgraphNode>(node), &id), "cuptiGetGraphNodeId");
  return id;
}

std::uint32_t graph_exec_id(void* exec) {
  Session& s = Session::instance();
  uint32_t id = 0;
  s.check(s.api().cuptiGetGraphExecId(static_cast<CUgraphExec>(exec), &id), "cuptiGetGraphExecId");
  return id;
}

CloneTracking::CloneTracking() { Session::instance().set_clone_tracking(true); }
CloneTracking::~CloneTracking() { Session::instance().set_clone_tracking(false); }
bool CloneTracking::available(std::string* why_not) {
  return Session::instance().clone_callback_available(why_not);
}
std::unordered_map<std::uint64_t, std::uint64_t> CloneTracking::clones() const {
  return Session::instance().clones();
}

}  // namespace caliber::cuda::cupti
