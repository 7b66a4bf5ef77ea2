// GPU tests of the cupti instrument, attribution by identity, and telemetry on a real device
// (ctest label gpu). They skip without a CUDA device, and the cupti ones also without CUPTI.
// Thresholds are physical facts with wide margins (a flush of 2x L2 takes tens of microseconds, a
// one-block kernel a few), not performance targets; the H200 table is scripts/device_cupti_table.sh.
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <array>
#include <cstdlib>
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "kernels/workload.h"
#include "caliber/backend.h"
#include "caliber/errors.h"
#include "caliber/instrument_policy.h"
#include "caliber/measure.h"
#include "support/fixed_contract.h"
#include "modules/builtins.h"

namespace caliber {
namespace {

__global__ void add_one_kernel(float* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += 1.0f;
}

void cuda_ok(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw DeviceError(std::string(what) + ": " + cudaGetErrorString(e));
}

bool has_cuda() {
  for (const auto& b : available_backends()) {
    if (b.kind == BackendKind::cuda && b.device_count > 0) return true;
  }
  return false;
}

class CuptiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!has_cuda()) GTEST_SKIP() << "no CUDA device";
    if (auto why = instrument_unavailable_reason(BackendKind::cuda, Instrument::cupti)) {
      GTEST_SKIP() << "CUPTI unavailable: " << *why;
    }
    backend_ = open_backend(BackendKind::cuda, 0);
  }

  static Contract contract(Instrument i, Schedule s, CachePolicy cache, std::int64_t n) {
    Contract c = testing_support::fixed_cuda_contract(s, cache, n, /*warmup=*/10);
    c.instrument = i;
    return c;
  }

  Result run(const std::string& kernel, std::uint64_t bytes, const Contract& c) {
    auto w = bench::make_builtin_workload(*backend_, kernel, bytes, 1, 11);
    w->launch({backend_->stream(), 0, 0});
    backend_->synchronize_device();
    EXPECT_EQ(w->verify(), "") << kernel;
    MeasureOptions o;
    o.name = kernel;
    o.working_set_bytes = w->working_set_bytes;
    o.rotation_copies = w->rotation_copies;
    bench::Workload* p = w.get();
    return measure(*backend_, [p](const LaunchContext& ctx) { p->launch(ctx); }, c, o);
  }

  static bool breakdown_has(const Result& r, const std::string& fragment) {
    for (const auto& k : r.kernels) {
      if (k.name.find(fragment) != std::string::npos) return true;
    }
    return false;
  }

  static std::string names(const Result& r) {
    std::string out;
    for (const auto& k : r.kernels) out += k.name + " x" + std::to_string(k.launches) + "; ";
    return out;
  }

  std::unique_ptr<Backend> backend_;
};

TEST_F(CuptiTest, AgreesWithEventsOnCopyAndScale) {
  for (const std::string kernel : {"copy", "scale"}) {
    const Result ev = run(kernel, 256u << 20, contract(Instrument::event, Schedule::per_iter, CachePolicy::cold, 30));
    const Result cu = run(kernel, 256u << 20, contract(Instrument::cupti, Schedule::per_iter, CachePolicy::cold, 30));
    EXPECT_GT(cu.value_us, 10.0) << kernel;
    // Same kernel, same process: events add launch gaps, CUPTI adds instrumentation; both within
    // 15% of each other on a bandwidth-bound kernel of a few hundred microseconds.
    EXPECT_NEAR(cu.value_us / ev.value_us, 1.0, 0.15) << kernel << ": cupti " << cu.value_us << " event "
                                                      << ev.value_us;
    ASSERT_EQ(cu.kernels.size(), 1u) << names(cu);
    EXPECT_NE(cu.kernels[0].name.find(kernel + "_kernel"), std::string::npos) << names(cu);
    EXPECT_EQ(cu.kernels[0].launches, 30);
    EXPECT_EQ(cu.kernel_set_changes, 0);
    EXPECT_TRUE(cu.instrument.kernel_tracing);
    EXPECT_FALSE(ev.instrument.kernel_tracing);
  }
}

TEST_F(CuptiTest, TheFlushIsNeverAttributed) {
  const Result r = run("tiny", 0, contract(Instrument::cupti, Schedule::per_iter, CachePolicy::cold, 50));
  ASSERT_EQ(r.kernels.size(), 1u) << names(r);
  EXPECT_NE(r.kernels[0].name.find("tiny_kernel"), std::string::npos) << names(r);
  EXPECT_FALSE(breakdown_has(r, "flush")) << names(r);
  EXPECT_LT(r.value_us, 10.0);  // a one-block kernel; the flush of >= 2x L2 takes tens of us
  const Result iso = run("tiny", 0, contract(Instrument::cupti, Schedule::isolated, CachePolicy::cold, 50));
  EXPECT_FALSE(breakdown_has(iso, "flush")) << names(iso);
}

TEST_F(CuptiTest, TwoStreamsAreCountedWhereEventsAreRefused) {
  const std::uint64_t bytes = 256u << 20;
  Contract c = contract(Instrument::cupti, Schedule::isolated, CachePolicy::cold, 30);
  const Result busy = run("two_streams", bytes, c);
  c.cupti_reduction = CuptiReduction::sum;
  const Result sum = run("two_streams", bytes, c);
  const Result scale = run("scale", bytes, contract(Instrument::cupti, Schedule::isolated, CachePolicy::cold, 30));
  EXPECT_TRUE(breakdown_has(busy, "tiny_kernel")) << names(busy);
  EXPECT_TRUE(breakdown_has(busy, "scale_kernel")) << names(busy);
  EXPECT_EQ(busy.kernel_set_changes, 0);
  // busy covers the side stream's scale. The event pair on the caliber stream would bracket only
  // the tiny kernel (H200, 2026-11-29: event isolated 118 us, per_iter 4.4 us, cupti busy 135 us,
  // ncu sum of both kernels 133 us), so events refuse the call: its work is not ordered on the
  // measured stream (check work_on_stream, docs/integrity.md).
  EXPECT_GT(busy.value_us, 0.8 * scale.value_us) << "busy " << busy.value_us << " scale " << scale.value_us;
  EXPECT_GE(sum.value_us, busy.value_us * 0.99);
  for (Schedule s : {Schedule::isolated, Schedule::per_iter}) {
    try {
      run("two_streams", bytes, contract(Instrument::event, s, CachePolicy::cold, 30));
      ADD_FAILURE() << "events timed a call whose work runs on another stream (" << to_string(s) << ")";
    } catch (const IntegrityError& e) {
      EXPECT_EQ(e.check(), "work_on_stream") << e.what();
    }
  }
}

TEST_F(CuptiTest, AFillTheCallIssuesIsCounted) {
  const int n = 16 << 20;  // 64 MiB of floats
  float* buf = nullptr;
  cuda_ok(cudaMalloc(&buf, n * sizeof(float)), "cudaMalloc");
  Contract c = contract(Instrument::cupti, Schedule::per_iter, CachePolicy::cold, 20);
  c.cupti_reduction = CuptiReduction::sum;
  MeasureOptions o;
  o.name = "memset+kernel";
  const Result r = measure(
      *backend_,
      [buf, n](const LaunchContext& ctx) {
        auto s = static_cast<cudaStream_t>(ctx.stream);
        cuda_ok(cudaMemsetAsync(buf, 0, n * sizeof(float), s), "cudaMemsetAsync");
        add_one_kernel<<<(n + 255) / 256, 256, 0, s>>>(buf, n);
        cuda_ok(cudaGetLastError(), "add_one_kernel");
      },
      c, o);
  cudaFree(buf);
  ASSERT_TRUE(breakdown_has(r, "[memset]")) << names(r);
  ASSERT_TRUE(breakdown_has(r, "add_one_kernel")) << names(r);
  for (const auto& k : r.kernels) EXPECT_EQ(k.launches, 20) << k.name;
  double memset_us = 0;
  for (const auto& k : r.kernels) {
    if (k.name == "[memset]") memset_us = k.mean_us;
  }
  EXPECT_GT(r.value_us, memset_us);  // the sample includes the fill and the kernel
}

TEST_F(CuptiTest, GraphColdExcludesTheCapturedFlushByIdentity) {
  Contract c = contract(Instrument::cupti, Schedule::graph, CachePolicy::cold, 20);
  c.graph_calls = 10;
  const Result r = run("tiny", 0, c);
  ASSERT_EQ(r.kernels.size(), 1u) << names(r);
  EXPECT_NE(r.kernels[0].name.find("tiny_kernel"), std::string::npos) << names(r);
  EXPECT_EQ(r.kernels[0].launches, 200);
  EXPECT_LT(r.value_us, 10.0);
  bool noted = false;
  for (const auto& n : r.notes) noted = noted || n.find("excluded by graph-node identity") != std::string::npos;
  EXPECT_TRUE(noted);
  // A bandwidth-bound kernel cold in a graph matches the same kernel cold per_iter.
  Contract g = contract(Instrument::cupti, Schedule::graph, CachePolicy::cold, 10);
  g.graph_calls = 5;
  const Result graph = run("scale", 64u << 20, g);
  const Result eager = run("scale", 64u << 20, contract(Instrument::cupti, Schedule::per_iter, CachePolicy::cold, 30));
  EXPECT_NEAR(graph.value_us / eager.value_us, 1.0, 0.2) << graph.value_us << " vs " << eager.value_us;
}

TEST_F(CuptiTest, GraphColdPerturbationIsMeasuredWithEachCallAlone) {
  // Five calls per graph capture the flush between them; the events measurement of the
  // perturbation times each call alone (isolated, the flush before it) instead.
  Contract g = contract(Instrument::cupti, Schedule::graph, CachePolicy::cold, 10);
  g.graph_calls = 5;
  const Result r = run("scale", 64u << 20, g);
  ASSERT_TRUE(r.instrument_perturbation.has_value());
  EXPECT_TRUE(r.instrument_perturbation->measured) << r.instrument_perturbation->reason;
  if (r.instrument_perturbation->applied) {
    bool noted = false;
    for (const auto& n : r.notes) noted = noted || n.find("the events timed each call alone") != std::string::npos;
    EXPECT_TRUE(noted);
  }
  // Events time one cold call per graph like the same call cold per_iter: the flush is outside.
  // The flush (>= 2x the 60 MiB L2 written, >= 30 us) inside the window would make the ratio ~2;
  // the graph launch inside the events' window adds a few us to a ~34 us call (up to +10.3% seen
  // on the H200 in a full GPU-test run), hence 0.25.
  Contract e = contract(Instrument::event, Schedule::graph, CachePolicy::cold, 20);
  e.graph_calls = 1;
  const Result one = run("scale", 64u << 20, e);
  const Result eager = run("scale", 64u << 20, contract(Instrument::event, Schedule::per_iter, CachePolicy::cold, 30));
  EXPECT_NEAR(one.value_us / eager.value_us, 1.0, 0.25) << one.value_us << " vs " << eager.value_us;
}

TEST_F(CuptiTest, ReductionsOrderOnARealCall) {
  Contract c = contract(Instrument::cupti, Schedule::isolated, CachePolicy::warm, 20);
  const Result busy = run("two_streams", 64u << 20, c);
  c.cupti_reduction = CuptiReduction::span;
  const Result span = run("two_streams", 64u << 20, c);
  EXPECT_GE(span.value_us, busy.value_us * 0.95);
}

TEST_F(CuptiTest, CublasGemmIsAttributed) {
  const Result r = run("gemm_bf16", 0, contract(Instrument::cupti, Schedule::per_iter, CachePolicy::cold, 20));
  ASSERT_FALSE(r.kernels.empty());
  EXPECT_GT(r.value_us, 20.0);  // 137 GFLOP; far more than a launch
  std::int64_t launches = 0;
  for (const auto& k : r.kernels) launches += k.launches;
  EXPECT_GE(launches, 20) << names(r);
}

TEST_F(CuptiTest, TracingKeptOnIsRecordedOnAnEventResult) {
  Contract c = contract(Instrument::event, Schedule::per_iter, CachePolicy::warm, 50);
  auto w = bench::make_builtin_workload(*backend_, "tiny", 0, 1, 3);
  bench::Workload* p = w.get();
  MeasureOptions o;
  o.keep_activity_tracing_on = true;
  const Result r = measure(*backend_, [p](const LaunchContext& ctx) { p->launch(ctx); }, c, o);
  EXPECT_TRUE(r.instrument.kernel_tracing);
  EXPECT_TRUE(r.kernels.empty());
}

TEST_F(CuptiTest, AutoPrefersCupti) {
  const InstrumentSelection s = select_instrument("auto", BackendKind::cuda, [](Instrument i) {
    return instrument_unavailable_reason(BackendKind::cuda, i);
  });
  EXPECT_EQ(s.instrument, Instrument::cupti);
}

TEST(CudaTelemetry, NvmlReportsClocksDuringAMeasurement) {
  if (!has_cuda()) GTEST_SKIP() << "no CUDA device";
  auto backend = open_backend(BackendKind::cuda, 0);
  std::string why;
  if (!backend->telemetry(&why)) GTEST_SKIP() << "telemetry unavailable: " << why;
  Contract c = default_contract(BackendKind::cuda);
  c.iterations.mode = IterationRule::Mode::fixed;
  c.iterations.count = 200;
  auto w = bench::make_builtin_workload(*backend, "copy", 256u << 20, 1, 5);
  bench::Workload* p = w.get();
  MeasureOptions o;
  o.keep_telemetry_samples = true;
  o.telemetry_period_ms = 5;
  const Result r = measure(*backend, [p](const LaunchContext& ctx) { p->launch(ctx); }, c, o);
  ASSERT_TRUE(r.telemetry.available) << r.telemetry.unavailable_reason;
  EXPECT_GE(r.telemetry.readings, 3);  // 200 cold copies of 256 MiB take tens of milliseconds
  EXPECT_GT(r.telemetry.sm_clock_peak_mhz, 0);
  EXPECT_GT(r.telemetry.max_power_w, 0.0);
  EXPECT_EQ(static_cast<std::int64_t>(r.telemetry_samples.size()), r.telemetry.readings);
}

// The CLI end to end: auto picks cupti here, and falls back to event with the reason recorded
// when CUPTI is made unloadable.
std::string run_cli(const std::string& command) {
  std::string out;
  FILE* p = popen((command + " 2>&1").c_str(), "r");
  if (!p) return out;
  std::array<char, 512> buf{};
  while (fgets(buf.data(), buf.size(), p)) out += buf.data();
  pclose(p);
  return out;
}

TEST(CuptiCli, AutoRecordsWhatItChoseAndWhy) {
  if (!has_cuda()) GTEST_SKIP() << "no CUDA device";
  const std::string json = ::testing::TempDir() + "/auto.json";
  const char* env = std::getenv("CALIBER_EXE");
  const std::string base = std::string(env && *env ? env : CALIBER_EXE) + " bench --backend cuda --kernel tiny --iters 20 --instrument auto --allow-shared-device --json " + json;
  std::remove(json.c_str());
  std::string out = run_cli(base);
  nlohmann::json doc = nlohmann::json::parse(std::ifstream(json), nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << out;
  if (!instrument_unavailable_reason(BackendKind::cuda, Instrument::cupti)) {
    EXPECT_EQ(doc["results"][0]["contract"]["instrument"], "cupti") << out;
  }
  std::remove(json.c_str());
  out = run_cli("CALIBER_CUPTI_LIBRARY=none " + base);
  doc = nlohmann::json::parse(std::ifstream(json), nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << out;
  const auto& r = doc["results"][0];
  EXPECT_EQ(r["contract"]["instrument"], "event");
  EXPECT_EQ(r["instrument_selection"]["requested"], "auto");
  EXPECT_NE(r["instrument_selection"]["reason"].get<std::string>().find("CALIBER_CUPTI_LIBRARY=none"),
            std::string::npos);
  EXPECT_NE(r["warnings"][0].get<std::string>().find("instrument auto fell back to event"), std::string::npos);
}

}  // namespace
}  // namespace caliber
