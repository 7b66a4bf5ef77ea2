// The integrity checks on a real device (ctest label gpu): C++ callables with declared buffers that
// compute once, escape the measured stream (never joined, or from another thread) or its context, launch nothing
// while captured, do the work in only one call of a captured replay, or leave a persisting L2 window are
// refused or flagged; honest ones, including a
// fork-join over two streams and a memset inside the call, are verified; and a failed capture
// leaves the process clean for the next measurement (docs/integrity.md, docs/cupti.md).
#include <gtest/gtest.h>

#include <cuda.h>
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "backends/cuda/cupti_session.h"
#include "caliber/backend.h"
#include "caliber/errors.h"
#include "caliber/instrument_policy.h"
#include "caliber/measure.h"
#include "ops/uniform_draw.h"
#include "support/cuda_device.h"
#include "support/fixed_contract.h"

namespace caliber {
namespace {

namespace check = integrity_check;

__global__ void touch_kernel(float* y) {
  if (threadIdx.x == 0) y[0] += 1.0f;
}

__global__ void scale_kernel(const float* x, float* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2.0f * x[i];
}

// y = 2 x after `iters` dependent multiply-adds per thread (their result kept only in the
// impossible case, so the loop stays); with `cache`, y is also written there.
__global__ void heavy_scale_kernel(const float* x, float* y, float* cache, int n, int iters) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = x[i];
  for (int k = 0; k < iters; ++k) v = v * 0.999f + 0.5f;
  const float out = v == -12345.0f ? v : 2.0f * x[i];
  y[i] = out;
  if (cache) cache[i] = out;
}

__global__ void copy_kernel(const float* from, float* to, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) to[i] = from[i];
}

// `iters` dependent multiply-adds per thread, or nothing (skip).
__global__ void busy_kernel(float* y, int iters, int skip) {
  if (skip) return;
  float v = y[threadIdx.x];
  for (int i = 0; i < iters; ++i) v = v * 0.999f + 0.5f;
  y[threadIdx.x] = v;
}

void cuda_ok(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw DeviceError(std::string(what) + ": " + cudaGetErrorString(e));
}

constexpr int kN = 1 << 20;

class IntegrityCuda : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!testing_support::has_cuda_device()) GTEST_SKIP() << "no CUDA device";
    if (auto why = instrument_unavailable_reason(BackendKind::cuda, Instrument::cupti)) {
      GTEST_SKIP() << "CUPTI unavailable: " << *why;
    }
    backend_ = open_backend(BackendKind::cuda, 0);
    cuda_ok(cudaMalloc(&x_, kN * sizeof(float)), "malloc x");
    cuda_ok(cudaMalloc(&y_, kN * sizeof(float)), "malloc y");
    std::vector<float> host(kN);
    for (int i = 0; i < kN; ++i) host[i] = 0.5f + static_cast<float>(i % 101) / 101.0f;
    cuda_ok(cudaMemcpy(x_, host.data(), kN * sizeof(float), cudaMemcpyHostToDevice), "copy x");
    cuda_ok(cudaStreamCreateWithFlags(&side_, cudaStreamNonBlocking), "side stream");
    cuda_ok(cudaEventCreateWithFlags(&fork_, cudaEventDisableTiming), "fork event");
    cuda_ok(cudaEventCreateWithFlags(&join_, cudaEventDisableTiming), "join event");
  }
  void TearDown() override {
    if (launcher_.joinable()) launcher_.join();
    if (x_) cudaFree(x_);
    if (y_) cudaFree(y_);
    if (side_) cudaStreamDestroy(side_);
    if (fork_) cudaEventDestroy(fork_);
    if (join_) cudaEventDestroy(join_);
  }

  void launch(cudaStream_t s) {
    scale_kernel<<<(kN + 255) / 256, 256, 0, s>>>(x_, y_, kN);
    cuda_ok(cudaGetLastError(), "scale launch");
  }

  // Declared buffers and fresh inputs (docs/integrity.md): x drawn on the device before every
  // timed call, and an audited call's y compared with 2 x of the same draw, recomputed on the host
  // (the device draw writes the host draw's bits, src/ops/uniform_draw.h).
  MeasureOptions options() {
    MeasureOptions o;
    o.telemetry = false;
    o.buffers.inputs.push_back({"x", x_, kN * sizeof(float), DType::fp32});
    o.buffers.outputs.push_back({"y", y_, kN * sizeof(float), DType::fp32});
    o.draw_inputs = [this](std::uint64_t seed) {
      DrawParams d;
      d.seed = seed;
      backend_->fill_draw(x_, ElementType::fp32, kN, d);
    };
    o.check_drawn = [this](std::uint64_t seed) -> std::string {
      std::vector<float> y(kN);
      cuda_ok(cudaDeviceSynchronize(), "sync");
      cuda_ok(cudaMemcpy(y.data(), y_, kN * sizeof(float), cudaMemcpyDeviceToHost), "copy y");
      const double scale = ops::uniform_scale(-1.0f, 1.0f);
      for (int i = 0; i < kN; ++i) {
        if (y[i] != 2.0f * ops::uniform_element(seed, static_cast<std::uint64_t>(i), scale, -1.0f)) {
          return "y[" + std::to_string(i) + "] is not 2 x";
        }
      }
      return "";
    };
    return o;
  }

  static Contract contract(Instrument i, Schedule s) {
    Contract c = testing_support::fixed_cuda_contract(s, CachePolicy::warm, 20, 3);
    c.instrument = i;
    c.graph_calls = 4;
    return c;
  }

  Result measure_call(const std::function<void(cudaStream_t)>& body, const Contract& c) {
    return caliber::measure(
        *backend_, [&](const LaunchContext& ctx) { body(static_cast<cudaStream_t>(ctx.stream)); }, c, options());
  }

  std::unique_ptr<Backend> backend_;
  float* x_ = nullptr;
  float* y_ = nullptr;
  cudaStream_t side_ = nullptr;
  cudaEvent_t fork_ = nullptr, join_ = nullptr;
  std::thread launcher_;
  int calls_ = 0;
};

TEST_F(IntegrityCuda, AnHonestKernelIsVerifiedUnderEveryInstrumentAndSchedule) {
  for (const Contract& c : {contract(Instrument::event, Schedule::per_iter), contract(Instrument::event, Schedule::graph),
                            contract(Instrument::cupti, Schedule::per_iter), contract(Instrument::cupti, Schedule::isolated)}) {
    const Result r = measure_call([&](cudaStream_t s) { launch(s); }, c);
    EXPECT_EQ(r.integrity.verdict(), IntegrityVerdict::verified)
        << to_string(c.instrument) << "/" << to_string(c.schedule) << ": " << r.integrity.first_failure();
    EXPECT_EQ(r.integrity.find(check::device_work)->outcome, CheckOutcome::passed);
    EXPECT_EQ(r.integrity.find(check::work_on_device)->outcome, CheckOutcome::passed);
    const IntegrityCheck* alike = r.integrity.find(check::calls_alike);
    ASSERT_NE(alike, nullptr);
    EXPECT_EQ(alike->outcome, CheckOutcome::passed) << alike->detail;
    EXPECT_EQ(r.contract.inputs, InputValues::fresh);
  }
}

// The draws caliber enqueues between per_iter's calls would let the device drain the queue, and
// each event window would then hold the call's launch latency: the windows are gated instead.
TEST_F(IntegrityCuda, PerIterEventWindowsAreGatedWhenCaliberDrawsInputsBetweenTheCalls) {
  auto gated = [](const Result& r) {
    bool noted = false;
    for (const std::string& n : r.notes) noted = noted || n.find("a launch gate held the stream") != std::string::npos;
    return noted;
  };
  const Contract c = contract(Instrument::event, Schedule::per_iter);
  const Result fresh = measure_call([&](cudaStream_t s) { launch(s); }, c);
  EXPECT_EQ(fresh.contract.inputs, InputValues::fresh);
  EXPECT_TRUE(gated(fresh));
  for (const std::string& w : fresh.warnings) EXPECT_EQ(w.find("launch gates opened"), std::string::npos) << w;
  const Result fixed = caliber::measure(
      *backend_, [&](const LaunchContext& ctx) { launch(static_cast<cudaStream_t>(ctx.stream)); }, c, MeasureOptions{});
  EXPECT_EQ(fixed.contract.inputs, InputValues::fixed);
  EXPECT_FALSE(gated(fixed));
}

// Driver entry points of this toolkit's ABI (cuda.h's declarations), fetched through the runtime:
// the test binary links no libcuda.
template <typename F>
F driver_entry(const char* name) {
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult status{};
  cuda_ok(cudaGetDriverEntryPointByVersion(name, &fn, CUDART_VERSION, cudaEnableDefault, &status), name);
  if (!fn || status != cudaDriverEntryPointSuccess) throw DeviceError(std::string("no driver entry point ") + name);
  return reinterpret_cast<F>(fn);
}

// The honest work on the measured stream, plus a kernel in a second context of the same device:
// no timer of the measured stream's context sees it.
TEST_F(IntegrityCuda, WorkInAnotherContextIsRefusedUnderEveryInstrument) {
  const auto device_get = driver_entry<decltype(&cuDeviceGet)>("cuDeviceGet");
  const auto create = driver_entry<decltype(&cuCtxCreate)>("cuCtxCreate");
  const auto push = driver_entry<decltype(&cuCtxPushCurrent)>("cuCtxPushCurrent");
  const auto pop = driver_entry<decltype(&cuCtxPopCurrent)>("cuCtxPopCurrent");
  const auto destroy = driver_entry<decltype(&cuCtxDestroy)>("cuCtxDestroy");
  const auto ctx_sync = driver_entry<decltype(&cuCtxSynchronize)>("cuCtxSynchronize");
  int ordinal = 0;
  cuda_ok(cudaGetDevice(&ordinal), "device");
  CUdevice device = 0;
  ASSERT_EQ(device_get(&device, ordinal), CUDA_SUCCESS);
  CUcontext other = nullptr;
  ASSERT_EQ(create(&other, nullptr, 0, device), CUDA_SUCCESS);  // current from here
  float* there = nullptr;
  cuda_ok(cudaMalloc(&there, sizeof(float)), "malloc in the other context");
  CUcontext popped = nullptr;
  ASSERT_EQ(pop(&popped), CUDA_SUCCESS);
  auto elsewhere = [&](cudaStream_t s) {
    launch(s);
    push(other);
    touch_kernel<<<1, 32>>>(there);
    ctx_sync();
    pop(&popped);
  };
  for (Instrument i : {Instrument::event, Instrument::cupti}) {
    try {
      measure_call(elsewhere, contract(i, Schedule::per_iter));
      ADD_FAILURE() << to_string(i) << ": work in another context was timed";
    } catch (const IntegrityError& e) {
      EXPECT_EQ(e.check(), "work_on_device") << to_string(i) << ": " << e.what();
    }
  }
  push(other);
  cudaFree(there);
  pop(&popped);
  destroy(other);
}

TEST_F(IntegrityCuda, ForkJoinAcrossStreamsAndAMemsetInsideTheCallAreVerified) {
  const Result r = measure_call(
      [&](cudaStream_t s) {
        cuda_ok(cudaMemsetAsync(y_, 0, 4096, s), "memset");
        cuda_ok(cudaEventRecord(fork_, s), "fork");
        cuda_ok(cudaStreamWaitEvent(side_, fork_, 0), "wait fork");
        launch(side_);
        cuda_ok(cudaEventRecord(join_, side_), "join");
        cuda_ok(cudaStreamWaitEvent(s, join_, 0), "wait join");
      },
      contract(Instrument::event, Schedule::per_iter));
  EXPECT_EQ(r.integrity.verdict(), IntegrityVerdict::verified) << r.integrity.first_failure();
  const IntegrityCheck* stream = r.integrity.find(check::work_on_stream);
  ASSERT_NE(stream, nullptr);
  EXPECT_NE(stream->detail.find("joined back"), std::string::npos) << stream->detail;
  EXPECT_NE(r.integrity.find(check::device_work)->detail.find("1 kernel, 0 copies, 1 fill"), std::string::npos)
      << r.integrity.find(check::device_work)->detail;
}

// Captured calls that do the work only in the first call of each capture, the others launching the
// same kernel that returns at once: the replay's output is right and, without declared buffers,
// nothing is poisoned, so only the calls' own times inside the replay tell them apart (cupti).
TEST_F(IntegrityCuda, CapturedCallsThatLeaveEarlyAreToldApartInsideTheReplayUnderCupti) {
  const Contract c = contract(Instrument::cupti, Schedule::graph);  // 4 calls per replay
  auto measure_busy = [&](bool skip_after_first) {
    unsigned long long last_capture = 0;
    return caliber::measure(
        *backend_,
        [&](const LaunchContext& ctx) {
          const auto s = static_cast<cudaStream_t>(ctx.stream);
          cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
          unsigned long long capture = 0;
          cuda_ok(cudaStreamGetCaptureInfo(s, &status, &capture), "capture info");
          const bool active = status == cudaStreamCaptureStatusActive;
          const bool skip = skip_after_first && active && capture == last_capture;  // not the capture's first call
          if (active) last_capture = capture;
          busy_kernel<<<1, 32, 0, s>>>(y_, 20000, skip ? 1 : 0);
          cuda_ok(cudaGetLastError(), "busy launch");
        },
        c, MeasureOptions{});
  };
  const Result skipping = measure_busy(true);
  const IntegrityCheck* unlike = skipping.integrity.find(check::calls_alike);
  ASSERT_NE(unlike, nullptr);
  EXPECT_EQ(unlike->outcome, CheckOutcome::failed) << unlike->detail;
  EXPECT_NE(unlike->detail.find("calls' median took"), std::string::npos) << unlike->detail;
  const Result honest = measure_busy(false);
  const IntegrityCheck* alike = honest.integrity.find(check::calls_alike);
  ASSERT_NE(alike, nullptr);
  EXPECT_EQ(alike->outcome, CheckOutcome::passed) << alike->detail;
  EXPECT_NE(alike->detail.find("the 4 calls inside each of"), std::string::npos) << alike->detail;
}

// Under events, the calls of the replays at the audits are timed one by one (event marks around
// each captured call). The cheat computes in the first call of each capture, keeping a copy, and
// its other captured calls copy that back: every output the audits judge is right (the calls of a
// replay share its inputs), every replay is alike, each captured call launches one kernel; only
// the calls' own times tell them apart.
TEST_F(IntegrityCuda, CapturedCallsThatCopyTheFirstCallsResultAreToldApartAtTheAuditsUnderEvents) {
  float* cache = nullptr;
  cuda_ok(cudaMalloc(&cache, kN * sizeof(float)), "malloc cache");
  auto measure_heavy = [&](bool copy_after_first) {
    unsigned long long last_capture = 0;
    return caliber::measure(
        *backend_,
        [&](const LaunchContext& ctx) {
          const auto s = static_cast<cudaStream_t>(ctx.stream);
          cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
          unsigned long long capture = 0;
          cuda_ok(cudaStreamGetCaptureInfo(s, &status, &capture), "capture info");
          const bool active = status == cudaStreamCaptureStatusActive;
          const bool copy = copy_after_first && active && capture == last_capture;
          if (active) last_capture = capture;
          if (copy) {
            copy_kernel<<<(kN + 255) / 256, 256, 0, s>>>(cache, y_, kN);
          } else {
            heavy_scale_kernel<<<(kN + 255) / 256, 256, 0, s>>>(x_, y_, copy_after_first ? cache : nullptr, kN, 2000);
          }
          cuda_ok(cudaGetLastError(), "heavy launch");
        },
        contract(Instrument::event, Schedule::graph), options());
  };
  const Result copying = measure_heavy(true);
  EXPECT_EQ(copying.integrity.find(check::audited_calls)->outcome, CheckOutcome::passed)
      << "the gap this closes: " << copying.integrity.find(check::audited_calls)->detail;
  const IntegrityCheck* unlike = copying.integrity.find(check::calls_alike);
  ASSERT_NE(unlike, nullptr);
  EXPECT_EQ(unlike->outcome, CheckOutcome::failed) << unlike->detail;
  EXPECT_NE(unlike->detail.find("calls' median took"), std::string::npos) << unlike->detail;
  const Result honest = measure_heavy(false);
  const IntegrityCheck* alike = honest.integrity.find(check::calls_alike);
  ASSERT_NE(alike, nullptr);
  EXPECT_EQ(alike->outcome, CheckOutcome::passed) << alike->detail;
  EXPECT_NE(alike->detail.find("events around each call"), std::string::npos) << alike->detail;
  EXPECT_EQ(honest.integrity.verdict(), IntegrityVerdict::verified) << honest.integrity.first_failure();
  std::printf("within-replay spread, honest heavy scale under events: %s\n", alike->detail.c_str());
  cudaFree(cache);
}

TEST_F(IntegrityCuda, ALazyKernelFailsAfterTimingAndItsEmptyGraphIsRefused) {
  auto lazy = [&](cudaStream_t s) {
    if (calls_++ == 0) launch(s);
  };
  const Result r = measure_call(lazy, contract(Instrument::event, Schedule::per_iter));
  EXPECT_EQ(r.integrity.find(check::output_after_timing)->outcome, CheckOutcome::failed);
  EXPECT_EQ(r.integrity.find(check::output_complete)->outcome, CheckOutcome::failed);
  calls_ = 0;
  EXPECT_THROW(measure_call(lazy, contract(Instrument::event, Schedule::graph)), IntegrityError);
}

TEST_F(IntegrityCuda, AnUnjoinedSideStreamIsRefusedForEventsAndGraphsButAttributedByCupti) {
  auto escape = [&](cudaStream_t) { launch(side_); };
  try {
    measure_call(escape, contract(Instrument::event, Schedule::per_iter));
    FAIL() << "events timed work on a stream they do not see";
  } catch (const IntegrityError& e) {
    EXPECT_EQ(e.check(), "work_on_stream");
  }
  try {
    measure_call(escape, contract(Instrument::event, Schedule::graph));
    FAIL() << "a graph missing the call's work was timed";
  } catch (const IntegrityError& e) {
    EXPECT_EQ(e.check(), "graph_complete");
  }
  const Result r = measure_call(escape, contract(Instrument::cupti, Schedule::per_iter));
  EXPECT_EQ(r.integrity.verdict(), IntegrityVerdict::verified) << r.integrity.first_failure();
  EXPECT_GT(r.value_us, 1.0);  // the real kernel, not an empty window
}

TEST_F(IntegrityCuda, ALaunchFromAnotherHostThreadIsRefused) {
  auto from_thread = [&](cudaStream_t s) {
    if (launcher_.joinable()) launcher_.join();
    launcher_ = std::thread([this, s] {
      std::this_thread::sleep_for(std::chrono::microseconds(200));
      launch(s);
    });
  };
  for (Instrument i : {Instrument::event, Instrument::cupti}) {
    EXPECT_THROW(measure_call(from_thread, contract(i, Schedule::per_iter)), IntegrityError) << to_string(i);
  }
}

TEST_F(IntegrityCuda, APersistingAccessPolicyWindowIsFlaggedAndRestored) {
  auto persisting = [&](cudaStream_t s) {
    cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 8u << 20);
    cudaStreamAttrValue v{};
    v.accessPolicyWindow.base_ptr = x_;
    v.accessPolicyWindow.num_bytes = 4u << 20;
    v.accessPolicyWindow.hitRatio = 1.0f;
    v.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
    v.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
    cudaStreamSetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &v);
    launch(s);
  };
  // The set-aside is device state that outlives a process: compare with what it was before.
  std::size_t before = 0;
  cuda_ok(cudaDeviceGetLimit(&before, cudaLimitPersistingL2CacheSize), "limit");
  Contract cold = contract(Instrument::event, Schedule::per_iter);
  cold.cache = CachePolicy::cold;
  const Result r = measure_call(persisting, cold);
  const IntegrityCheck* state = r.integrity.find(check::cache_state);
  ASSERT_NE(state, nullptr);
  EXPECT_EQ(state->outcome, CheckOutcome::failed);
  EXPECT_NE(state->detail.find("restored"), std::string::npos) << state->detail;
  std::size_t limit = 1;
  cuda_ok(cudaDeviceGetLimit(&limit, cudaLimitPersistingL2CacheSize), "limit");
  EXPECT_EQ(limit, before);
  cudaStreamAttrValue now{};
  cuda_ok(cudaStreamGetAttribute(static_cast<cudaStream_t>(backend_->stream()), cudaStreamAttributeAccessPolicyWindow,
                                 &now),
          "window");
  EXPECT_EQ(now.accessPolicyWindow.num_bytes, 0u);
}

TEST_F(IntegrityCuda, AFailedCaptureLeavesTheProcessCleanForTheNextMeasurement) {
  // Forked from the measured stream and never joined: ending the capture fails.
  auto unjoined = [&](cudaStream_t s) {
    cuda_ok(cudaEventRecord(fork_, s), "fork");
    cuda_ok(cudaStreamWaitEvent(side_, fork_, 0), "wait fork");
    launch(side_);
  };
  EXPECT_ANY_THROW(measure_call(unjoined, contract(Instrument::event, Schedule::graph)));
  cuda_ok(cudaDeviceSynchronize(), "sync after the failed capture");
  // The next, unrelated measurement in this process: no sticky error, a verified number.
  const Result r = measure_call([&](cudaStream_t s) { launch(s); }, contract(Instrument::event, Schedule::graph));
  EXPECT_EQ(r.integrity.verdict(), IntegrityVerdict::verified) << r.integrity.first_failure();
  EXPECT_GT(r.value_us, 0.0);
}

}  // namespace
}  // namespace caliber

namespace caliber {
namespace {

// The census (and any cupti measurement) traces with CUPTI; disabling the activity kinds afterwards
// left CUPTI in the launch path, and every later event measurement of the process read the
// tracing-on time (H200: tiny per_iter/warm 9.0 us against 5.5 us). The last lease detaches CUPTI:
// an event measurement after a census and a cupti measurement is as fast as one with tracing
// never on, and clearly faster than one with tracing held on.
TEST_F(IntegrityCuda, TracingEndsWithTheLeaseAndLeavesLaterEventTimesUntouched) {
  auto touch = [&](cudaStream_t s) {
    touch_kernel<<<1, 32, 0, s>>>(y_);
    cuda_ok(cudaGetLastError(), "touch launch");
  };
  Contract ev = testing_support::fixed_cuda_contract(Schedule::per_iter, CachePolicy::warm, 400, 20);
  ev.instrument = Instrument::event;
  MeasureOptions o;
  o.telemetry = false;
  auto measure_touch = [&](const Contract& c) {
    return caliber::measure(
        *backend_, [&](const LaunchContext& ctx) { touch(static_cast<cudaStream_t>(ctx.stream)); }, c, o);
  };
  const std::uint64_t detaches = cuda::cupti::detach_count();
  const Result first = measure_touch(ev);
  Contract cupti = ev;
  cupti.instrument = Instrument::cupti;
  (void)measure_touch(cupti);
  const Result after = measure_touch(ev);
  EXPECT_GT(cuda::cupti::detach_count(), detaches);
  Result held;
  {
    cuda::cupti::TracingLease lease;  // tracing on for the whole measurement
    held = measure_touch(ev);
  }
  // Closer to the untraced time than to the traced one. Not "within 15% of the first": a tiny
  // per_iter/warm median moves by a quarter between back-to-back measurements of one process
  // (H200, full GPU test binary: 4.61 then 5.89 us, both far from the 9 us of tracing held on).
  EXPECT_LT(after.value_us, (first.value_us + held.value_us) / 2)
      << "after " << after.value_us << " first " << first.value_us << " tracing held " << held.value_us;
  EXPECT_LT(after.value_us, held.value_us * 0.85) << "after " << after.value_us << " tracing held " << held.value_us;
}

}  // namespace
}  // namespace caliber
