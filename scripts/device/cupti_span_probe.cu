// What a kernel's duration is, by four clocks, on the device: CUDA events around the kernel alone
// (its launch gated by a spinning kernel, tracing off), CUPTI's concurrent-kernel record (what
// caliber's cupti instrument reads, docs/cupti.md), CUPTI's serialized-kernel record and events
// around a graph of back-to-back launches (per call), in rounds that alternate the four in one
// process; scripts/device/cupti_span.sh adds ncu's
// gpu__time_duration of the same kernels from `cupti_span_probe ncu`. A standalone probe (CUDA
// runtime, cuBLAS and CUPTI only), not part of caliber: it shows what the instruments' rows of
// docs/gpu/instruments.md cannot, where CUPTI's record starts and ends against the others.
//
//   cupti_span_probe rounds        -> one line per (round, workload, clock): "workload clock median_us n"
//   cupti_span_probe ncu           -> each workload launched 12 times, for ncu to time
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <cupti.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#define CHECK(x)                                                                      \
  do {                                                                                \
    const int e_ = static_cast<int>(x);                                               \
    if (e_ != 0) {                                                                    \
      std::fprintf(stderr, "cupti_span_probe: %s:%d: %s -> %d\n", __FILE__, __LINE__, #x, e_); \
      std::exit(1);                                                                   \
    }                                                                                 \
  } while (0)

namespace {

struct Span {
  unsigned long long start, end;
};
std::vector<Span> g_spans;

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *size = 8u << 20;
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, *size));
  *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  CUpti_Activity* r = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid, &r) == CUPTI_SUCCESS) {
    if (r->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL || r->kind == CUPTI_ACTIVITY_KIND_KERNEL) {
      const auto* k = reinterpret_cast<const CUpti_ActivityKernel9*>(r);
      g_spans.push_back({k->start, k->end});
    }
  }
  std::free(buffer);
}

__global__ void gate_kernel(volatile int* flag) {
  while (flag[0] == 0) {
  }
}
__global__ void empty_kernel() {}
// A dependent chain of FMAs per thread, one block per SM: compute-bound, nothing stored.
__global__ void fma_kernel(float* sink, int iterations) {
  float a = threadIdx.x * 1e-3f;
  for (int i = 0; i < iterations; ++i) a = fmaf(a, 0.999f, 1e-4f);
  if (a == 12345.f) sink[blockIdx.x] = a;
}
// The same chain, then 256 KiB stored per block.
__global__ void store_kernel(float* y, int iterations) {
  float a = threadIdx.x * 1e-3f;
  for (int i = 0; i < iterations; ++i) a = fmaf(a, 0.999f, 1e-4f);
  const size_t base = static_cast<size_t>(blockIdx.x) * 256 * 256;
  for (int j = 0; j < 256; ++j) y[base + static_cast<size_t>(j) * 256 + threadIdx.x] = a + j;
}
// The chain with 200 KiB of dynamic shared memory, launched in clusters of two.
__global__ void fma_smem_kernel(float* sink, int iterations) {
  extern __shared__ float smem[];
  smem[threadIdx.x] = threadIdx.x * 1e-3f;
  __syncthreads();
  float a = smem[(threadIdx.x + 1) % blockDim.x];
  for (int i = 0; i < iterations; ++i) a = fmaf(a, 0.999f, 1e-4f);
  if (a == 12345.f) sink[blockIdx.x] = a;
}
// y = 2x over 2^26 floats, 262,144 blocks.
__global__ void scale_kernel(const float* x, float* y, size_t n) {
  const size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (i < n) y[i] = 2.f * x[i];
}
__global__ void fill_bf16(__nv_bfloat16* p, size_t n, unsigned seed) {
  const size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  unsigned h = static_cast<unsigned>(i) * 2654435761u ^ seed;
  h ^= h >> 13;
  h *= 0x5bd1e995u;
  h ^= h >> 15;
  p[i] = __float2bfloat16((h & 0xffff) / 32768.0f - 1.0f);
}

struct Workloads {
  cudaStream_t stream{};
  float* sink{};
  float* x{};
  float* y{};
  size_t n = size_t{1} << 26;
  int m = 4096;
  __nv_bfloat16 *a{}, *b{}, *c{};
  cublasHandle_t blas{};
  static constexpr int kSmem = 200 * 1024;
  static constexpr size_t kWorkspace = size_t{32} << 20;
  void* workspace{};

  Workloads() {
    CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    CHECK(cudaMalloc(&sink, 1 << 20));
    CHECK(cudaMalloc(&x, n * 4));
    CHECK(cudaMalloc(&y, n * 4));
    CHECK(cudaMemset(x, 0, n * 4));
    const size_t mm = static_cast<size_t>(m) * m;
    CHECK(cudaMalloc(&a, mm * 2));
    CHECK(cudaMalloc(&b, mm * 2));
    CHECK(cudaMalloc(&c, mm * 2));
    fill_bf16<<<(mm + 255) / 256, 256>>>(a, mm, 1);  // random operands: a GEMM's power, so its clock, depends on its data
    fill_bf16<<<(mm + 255) / 256, 256>>>(b, mm, 2);
    CHECK(cudaDeviceSynchronize());
    CHECK(cublasCreate(&blas));
    CHECK(cublasSetStream(blas, stream));
    // A workspace of its own, so that the GEMM captured into a graph (events_graph) uses the same
    // memory as the GEMM launched directly.
    CHECK(cudaMalloc(&workspace, kWorkspace));
    CHECK(cublasSetWorkspace(blas, workspace, kWorkspace));
    CHECK(cudaFuncSetAttribute(fma_smem_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem));
  }

  // name: empty | fma:N | store:N | fma_smem_cluster2:N | scale | gemm_bf16_4096
  void launch(const std::string& name) {
    const auto colon = name.find(':');
    const std::string kind = name.substr(0, colon);
    const int iterations = colon == std::string::npos ? 0 : std::atoi(name.c_str() + colon + 1);
    if (kind == "empty") {
      empty_kernel<<<1, 1, 0, stream>>>();
    } else if (kind == "fma") {
      fma_kernel<<<132, 256, 0, stream>>>(sink, iterations);
    } else if (kind == "store") {
      store_kernel<<<132, 256, 0, stream>>>(y, iterations);
    } else if (kind == "fma_smem_cluster2") {
      cudaLaunchConfig_t config = {};
      cudaLaunchAttribute cluster[1];
      cluster[0].id = cudaLaunchAttributeClusterDimension;
      cluster[0].val.clusterDim.x = 2;
      cluster[0].val.clusterDim.y = 1;
      cluster[0].val.clusterDim.z = 1;
      config.gridDim = dim3(132);
      config.blockDim = dim3(256);
      config.dynamicSmemBytes = kSmem;
      config.stream = stream;
      config.attrs = cluster;
      config.numAttrs = 1;
      CHECK(cudaLaunchKernelEx(&config, fma_smem_kernel, sink, iterations));
    } else if (kind == "scale") {
      scale_kernel<<<static_cast<unsigned>(n / 256), 256, 0, stream>>>(x, y, n);
    } else if (kind == "gemm_bf16_4096") {
      const float one = 1.f, zero = 0.f;
      CHECK(cublasGemmEx(blas, CUBLAS_OP_N, CUBLAS_OP_N, m, m, m, &one, a, CUDA_R_16BF, m, b, CUDA_R_16BF, m, &zero, c,
                         CUDA_R_16BF, m, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    } else {
      std::fprintf(stderr, "cupti_span_probe: unknown workload %s\n", name.c_str());
      std::exit(2);
    }
  }
};

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t h = v.size() / 2;
  return v.size() % 2 ? v[h] : 0.5 * (v[h - 1] + v[h]);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "rounds";
  const std::vector<std::string> workloads = {"empty",         "fma:3000",   "fma:20000",
                                              "fma:70000",     "store:20000", "store:70000",
                                              "fma_smem_cluster2:20000", "fma_smem_cluster2:70000",
                                              "scale",         "gemm_bf16_4096"};
  Workloads w;
  if (mode == "ncu") {
    for (const auto& name : workloads) {
      for (int i = 0; i < 12; ++i) w.launch(name);
      CHECK(cudaStreamSynchronize(w.stream));
    }
    return 0;
  }
  int* host_flag = nullptr;
  int* device_flag = nullptr;
  CHECK(cudaHostAlloc(&host_flag, 64, cudaHostAllocMapped));
  CHECK(cudaHostGetDevicePointer(&device_flag, host_flag, 0));
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  CHECK(cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed));
  const int rounds = 3, calls = 31;
  // events_graph: a graph of kGraphCalls back-to-back launches, replayed behind the gate, the time per
  // call: the period at which the device runs the kernel back to back (no host launch in it), an
  // upper bound on the kernel's own duration that neither CUPTI nor ncu produces.
  const char* clocks[] = {"events_isolated", "cupti_concurrent", "cupti_serialized", "events_graph"};
  constexpr int kGraphCalls = 20, kGraphReplays = 11;
  for (int round = 1; round <= rounds; ++round) {
    for (const auto& name : workloads) {
      for (int clock = 0; clock < 4; ++clock) {
        for (int i = 0; i < 3; ++i) w.launch(name);  // warm: the caches hold the operands
        CHECK(cudaStreamSynchronize(w.stream));
        if (clock == 3) {
          cudaGraph_t graph{};
          cudaGraphExec_t exec{};
          CHECK(cudaStreamBeginCapture(w.stream, cudaStreamCaptureModeThreadLocal));
          for (int i = 0; i < kGraphCalls; ++i) w.launch(name);
          CHECK(cudaStreamEndCapture(w.stream, &graph));
          CHECK(cudaGraphInstantiate(&exec, graph, 0));
          CHECK(cudaGraphLaunch(exec, w.stream));  // uploads the graph; warm
          CHECK(cudaStreamSynchronize(w.stream));
          std::vector<double> values;
          for (int i = 0; i < kGraphReplays; ++i) {
            *reinterpret_cast<volatile int*>(host_flag) = 0;
            gate_kernel<<<1, 1, 0, w.stream>>>(device_flag);
            CHECK(cudaEventRecord(start, w.stream));
            CHECK(cudaGraphLaunch(exec, w.stream));
            CHECK(cudaEventRecord(stop, w.stream));
            *reinterpret_cast<volatile int*>(host_flag) = 1;
            CHECK(cudaStreamSynchronize(w.stream));
            float ms = 0;
            CHECK(cudaEventElapsedTime(&ms, start, stop));
            values.push_back(ms * 1e3 / kGraphCalls);
          }
          CHECK(cudaGraphExecDestroy(exec));
          CHECK(cudaGraphDestroy(graph));
          std::printf("%d %s %s %.3f %zu\n", round, name.c_str(), clocks[clock], median(values), values.size());
          std::fflush(stdout);
          continue;
        }
        const CUpti_ActivityKind kind =
            clock == 1 ? CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL : CUPTI_ACTIVITY_KIND_KERNEL;
        if (clock > 0) {
          g_spans.clear();
          CHECK(cuptiActivityEnable(kind));
        }
        std::vector<double> values;
        for (int i = 0; i < calls; ++i) {
          *reinterpret_cast<volatile int*>(host_flag) = 0;
          gate_kernel<<<1, 1, 0, w.stream>>>(device_flag);  // holds the stream until the call is enqueued
          CHECK(cudaEventRecord(start, w.stream));
          w.launch(name);
          CHECK(cudaEventRecord(stop, w.stream));
          *reinterpret_cast<volatile int*>(host_flag) = 1;
          CHECK(cudaStreamSynchronize(w.stream));
          float ms = 0;
          CHECK(cudaEventElapsedTime(&ms, start, stop));
          if (clock == 0) values.push_back(ms * 1e3);
        }
        if (clock > 0) {
          CHECK(cuptiActivityDisable(kind));
          CHECK(cuptiActivityFlushAll(1));
          std::sort(g_spans.begin(), g_spans.end(), [](const Span& p, const Span& q) { return p.start < q.start; });
          if (g_spans.size() != static_cast<size_t>(2 * calls)) {
            std::fprintf(stderr, "cupti_span_probe: %s: %zu kernel records for %d gated calls\n", name.c_str(),
                         g_spans.size(), calls);
            return 1;
          }
          for (size_t i = 1; i < g_spans.size(); i += 2) values.push_back((g_spans[i].end - g_spans[i].start) / 1e3);
        }
        std::printf("%d %s %s %.3f %zu\n", round, name.c_str(), clocks[clock], median(values), values.size());
        std::fflush(stdout);
      }
    }
  }
  return 0;
}
