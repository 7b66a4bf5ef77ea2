// Why small kernels read slower with fresh inputs (new values drawn before every timed call) than
// with one fixed input set, and what helps: a standalone probe (CUDA runtime only), not part of
// caliber. Its subject is an rmsnorm-like row kernel, warm (no cache flush), timed the way
// caliber's graph and per_iter schedules time it, with the fresh-input work split into its parts:
//
//   G_fixed        graph of 16 calls on one input set, no redraw
//   G_fresh        16 sets (one cudaMalloc per buffer), all redrawn and poisoned before each replay
//   G_sets_nodraw  the 16 sets, drawn once at setup and never again (addresses alone)
//   G_redraw_one   one set, redrawn and poisoned before each replay (the redraw alone)
//   G_fresh_pool   16 sets carved out of one cudaMalloc, redrawn before each replay
//   G_fresh_gated  G_fresh with the launch gate held between the redraw and the start event
//   P_fixed        per_iter: events around each call, one sync per batch of 50
//   P_fresh        a redraw and poison enqueued before each call
//   P_fresh_gated  P_fresh with the launch gate held before the start event, released after the stop
//   P_fixed_gated  P_fixed with the gate
//   P_sets_ahead   up to 50 sets drawn before the batch, the calls rotating over them
//
// Output: "round shape variant median_us n" per line ('#' lines: the device and notes), then a
// markdown table after "## summary". Compile:
//   nvcc -O2 -std=c++17 -arch=sm_90 -o fresh_inputs_probe scripts/device/fresh_inputs_probe.cu
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#define CHECK(x)                                                                                           \
  do {                                                                                                     \
    const cudaError_t e_ = (x);                                                                            \
    if (e_ != cudaSuccess) {                                                                               \
      std::fprintf(stderr, "fresh_inputs_probe: %s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                                                        \
    }                                                                                                      \
  } while (0)
#define CHECK_LAUNCH() CHECK(cudaGetLastError())

namespace {

constexpr int kThreads = 256;      // the subject's block
constexpr int kGraphCalls = 16;    // calls per graph
constexpr int kGraphBatch = 25;    // replays per sync
constexpr int kGraphBatches = 8;   // 200 replays per round
constexpr int kIterBatch = 50;     // per_iter calls per sync
constexpr int kIterBatches = 8;    // 400 calls per round
constexpr int kWarmup = 10;
constexpr int kRounds = 3;
constexpr size_t kAheadCap = size_t{2} << 30;  // P_sets_ahead's sets, all together
constexpr unsigned long long kGateTimeoutNs = 50ull * 1000 * 1000;

// Kernels

// y = x * rsqrt(mean(x^2) + eps) * w, one block of kThreads per row.
__global__ void rmsnorm_kernel(const float* __restrict__ x, const float* __restrict__ w,
                               float* __restrict__ y, int cols, float eps) {
  __shared__ float partial[kThreads / 32];
  __shared__ float scale;
  const float* row = x + static_cast<size_t>(blockIdx.x) * cols;
  float* out = y + static_cast<size_t>(blockIdx.x) * cols;
  float sum = 0.f;
  for (int c = threadIdx.x; c < cols; c += kThreads) sum += row[c] * row[c];
  for (int o = 16; o > 0; o >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, o);
  if ((threadIdx.x & 31) == 0) partial[threadIdx.x >> 5] = sum;
  __syncthreads();
  if (threadIdx.x < 32) {
    float s = threadIdx.x < kThreads / 32 ? partial[threadIdx.x] : 0.f;
    for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    if (threadIdx.x == 0) scale = rsqrtf(s / cols + eps);
  }
  __syncthreads();
  for (int c = threadIdx.x; c < cols; c += kThreads) out[c] = row[c] * scale * w[c];
}

__device__ __forceinline__ uint64_t splitmix64(uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// Uniform values in [-1, 1) from a counter-based hash of (draw, index): 24 bits per value.
__global__ void draw_kernel(float* p, size_t n, uint64_t draw) {
  const size_t step = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n; i += step) {
    const uint64_t h = splitmix64(draw ^ splitmix64(i));
    p[i] = static_cast<float>(h >> 40) * (2.0f / 16777216.0f) - 1.0f;
  }
}

__global__ void poison_kernel(float* p, size_t n) {
  const size_t step = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n; i += step)
    p[i] = __int_as_float(0x7fc00000);  // quiet NaN
}

__device__ __forceinline__ unsigned long long global_timer_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// Spins until the host sets *flag (or the timeout: counted in *expired), then resets it.
__global__ void gate_kernel(volatile int* flag, volatile int* expired, unsigned long long timeout_ns) {
  const unsigned long long begin = global_timer_ns();
  while (*flag == 0) {
    if (global_timer_ns() - begin > timeout_ns) {
      *expired = *expired + 1;
      break;
    }
    __nanosleep(100);
  }
  *flag = 0;
}

// Host helpers

unsigned fill_blocks(size_t n) { return static_cast<unsigned>(std::min<size_t>((n + 255) / 256, 8192)); }

// Like caliber's launch gate; each hold takes its own flag slot, so a spinner still queued behind
// earlier work never reads the next hold's reset (slots are reused only after a batch's sync).
struct Gate {
  static constexpr int kSlots = 128;
  volatile int* host = nullptr;  // kSlots flags, then the expired count
  int* device = nullptr;
  int slot = 0;
  int holds = 0;

  void create() {
    void* h = nullptr;
    CHECK(cudaHostAlloc(&h, (kSlots + 1) * sizeof(int), cudaHostAllocMapped));
    host = static_cast<volatile int*>(h);
    for (int i = 0; i <= kSlots; ++i) host[i] = i < kSlots ? 1 : 0;
    CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&device), h, 0));
  }
  void hold(cudaStream_t s) {
    slot = (slot + 1) % kSlots;
    host[slot] = 0;
    std::atomic_thread_fence(std::memory_order_seq_cst);
    gate_kernel<<<1, 1, 0, s>>>(device + slot, device + kSlots, kGateTimeoutNs);
    CHECK_LAUNCH();
    ++holds;
  }
  void release() {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    host[slot] = 1;
  }
  int expired() const { return host[kSlots]; }
  void destroy() { CHECK(cudaFreeHost(const_cast<int*>(host))); }
};

struct Shape {
  int rows, cols;
  size_t x_count() const { return static_cast<size_t>(rows) * cols; }
  size_t set_bytes() const { return (2 * x_count() + cols) * sizeof(float); }
  std::string name() const { return std::to_string(rows) + "x" + std::to_string(cols); }
};

struct Set {
  float *x, *w, *y;
};

// Input sets and the allocations behind them.
struct SetGroup {
  std::vector<Set> sets;
  std::vector<void*> allocations;
  void free_all() {
    for (void* p : allocations) CHECK(cudaFree(p));
    allocations.clear();
    sets.clear();
  }
};

float* alloc_floats(SetGroup& g, size_t n) {
  void* p = nullptr;
  CHECK(cudaMalloc(&p, n * sizeof(float)));
  g.allocations.push_back(p);
  return static_cast<float*>(p);
}

SetGroup separate_sets(const Shape& s, int count) {
  SetGroup g;
  for (int i = 0; i < count; ++i)
    g.sets.push_back({alloc_floats(g, s.x_count()), alloc_floats(g, s.cols), alloc_floats(g, s.x_count())});
  return g;
}

size_t aligned256(size_t bytes) { return (bytes + 255) / 256 * 256; }

// count sets in one allocation: x, w, y of set 0, then set 1, ..., each 256-byte aligned.
SetGroup pooled_sets(const Shape& s, int count) {
  const size_t xb = aligned256(s.x_count() * sizeof(float)), wb = aligned256(s.cols * sizeof(float));
  SetGroup g;
  char* base = reinterpret_cast<char*>(alloc_floats(g, (2 * xb + wb) * count / sizeof(float)));
  for (int i = 0; i < count; ++i) {
    char* p = base + (2 * xb + wb) * i;
    g.sets.push_back({reinterpret_cast<float*>(p), reinterpret_cast<float*>(p + xb),
                      reinterpret_cast<float*>(p + xb + wb)});
  }
  return g;
}

struct Env {
  cudaStream_t stream{};
  Gate gate;
  std::vector<cudaEvent_t> start, stop;
  uint64_t draws = 0;
};

// Fresh values into x and w, NaN into y: three launches, as caliber draws each buffer.
void redraw(Env& env, const Shape& s, const Set& set) {
  draw_kernel<<<fill_blocks(s.x_count()), 256, 0, env.stream>>>(set.x, s.x_count(), ++env.draws);
  CHECK_LAUNCH();
  draw_kernel<<<fill_blocks(s.cols), 256, 0, env.stream>>>(set.w, s.cols, ++env.draws);
  CHECK_LAUNCH();
  poison_kernel<<<fill_blocks(s.x_count()), 256, 0, env.stream>>>(set.y, s.x_count());
  CHECK_LAUNCH();
}

void redraw_all(Env& env, const Shape& s, const std::vector<Set>& sets) {
  for (const Set& set : sets) redraw(env, s, set);
}

void subject(Env& env, const Shape& s, const Set& set) {
  rmsnorm_kernel<<<s.rows, kThreads, 0, env.stream>>>(set.x, set.w, set.y, s.cols, 1e-6f);
  CHECK_LAUNCH();
}

// Waits for the batch and appends its samples: elapsed(start_i, stop_i) / divisor, in us.
void collect(Env& env, int count, double divisor, std::vector<double>& out) {
  CHECK(cudaStreamSynchronize(env.stream));
  for (int i = 0; i < count; ++i) {
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, env.start[i], env.stop[i]));
    out.push_back(ms * 1e3 / divisor);
  }
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t h = v.size() / 2;
  return v.size() % 2 ? v[h] : 0.5 * (v[h - 1] + v[h]);
}

// The two schedules

struct GraphPlan {
  std::vector<Set> sets;  // call j of the graph uses sets[j % size]
  bool redraw, gated;
};

cudaGraphExec_t capture(Env& env, const Shape& s, const std::vector<Set>& sets) {
  cudaGraph_t graph{};
  cudaGraphExec_t exec{};
  CHECK(cudaStreamBeginCapture(env.stream, cudaStreamCaptureModeThreadLocal));
  for (int j = 0; j < kGraphCalls; ++j) subject(env, s, sets[j % sets.size()]);
  CHECK(cudaStreamEndCapture(env.stream, &graph));
  CHECK(cudaGraphInstantiate(&exec, graph, 0));
  CHECK(cudaGraphDestroy(graph));
  return exec;
}

void replay(Env& env, const Shape& s, const GraphPlan& plan, cudaGraphExec_t exec, int i, bool timed) {
  if (plan.redraw) redraw_all(env, s, plan.sets);
  if (plan.gated) env.gate.hold(env.stream);
  if (timed) CHECK(cudaEventRecord(env.start[i], env.stream));
  CHECK(cudaGraphLaunch(exec, env.stream));
  if (timed) CHECK(cudaEventRecord(env.stop[i], env.stream));
  if (plan.gated) env.gate.release();
}

std::vector<double> run_graph(Env& env, const Shape& s, const GraphPlan& plan) {
  cudaGraphExec_t exec = capture(env, s, plan.sets);
  for (int i = 0; i < kWarmup; ++i) replay(env, s, plan, exec, i, false);  // the first uploads
  CHECK(cudaStreamSynchronize(env.stream));
  std::vector<double> samples;
  for (int b = 0; b < kGraphBatches; ++b) {
    for (int i = 0; i < kGraphBatch; ++i) replay(env, s, plan, exec, i, true);
    collect(env, kGraphBatch, kGraphCalls, samples);
  }
  CHECK(cudaGraphExecDestroy(exec));
  return samples;
}

struct IterPlan {
  std::vector<Set> sets;  // call i uses sets[i % size]
  bool redraw_each, gated, draw_ahead;
};

void iter_call(Env& env, const Shape& s, const IterPlan& plan, int i, bool timed) {
  const Set& set = plan.sets[i % plan.sets.size()];
  if (plan.redraw_each) redraw(env, s, set);
  if (plan.gated) env.gate.hold(env.stream);
  if (timed) CHECK(cudaEventRecord(env.start[i], env.stream));
  subject(env, s, set);
  if (timed) CHECK(cudaEventRecord(env.stop[i], env.stream));
  if (plan.gated) env.gate.release();
}

void iter_batch(Env& env, const Shape& s, const IterPlan& plan, int count, bool timed) {
  if (plan.draw_ahead) redraw_all(env, s, plan.sets);
  for (int i = 0; i < count; ++i) iter_call(env, s, plan, i, timed);
}

std::vector<double> run_per_iter(Env& env, const Shape& s, const IterPlan& plan) {
  iter_batch(env, s, plan, kWarmup, false);
  CHECK(cudaStreamSynchronize(env.stream));
  std::vector<double> samples;
  for (int b = 0; b < kIterBatches; ++b) {
    iter_batch(env, s, plan, kIterBatch, true);
    collect(env, kIterBatch, 1, samples);
  }
  return samples;
}

// Variants, rounds, summary

const char* const kVariants[] = {"G_fixed",      "G_fresh",      "G_sets_nodraw", "G_redraw_one",
                                 "G_fresh_pool", "G_fresh_gated", "P_fixed",      "P_fresh",
                                 "P_fresh_gated", "P_fixed_gated", "P_sets_ahead"};
constexpr int kVariantCount = sizeof(kVariants) / sizeof(kVariants[0]);

struct ShapeBuffers {
  SetGroup separate, pool, ahead;
};

std::vector<double> run_variant(Env& env, const Shape& s, ShapeBuffers& b, int v) {
  const std::vector<Set> one = {b.separate.sets[0]};
  switch (v) {
    case 0: return run_graph(env, s, {one, false, false});
    case 1: return run_graph(env, s, {b.separate.sets, true, false});
    case 2: return run_graph(env, s, {b.separate.sets, false, false});
    case 3: return run_graph(env, s, {one, true, false});
    case 4: return run_graph(env, s, {b.pool.sets, true, false});
    case 5: return run_graph(env, s, {b.separate.sets, true, true});
    case 6: return run_per_iter(env, s, {one, false, false, false});
    case 7: return run_per_iter(env, s, {one, true, false, false});
    case 8: return run_per_iter(env, s, {one, true, true, false});
    case 9: return run_per_iter(env, s, {one, false, true, false});
    default: return run_per_iter(env, s, {b.ahead.sets, false, false, true});
  }
}

// P_sets_ahead's set count: 50, fewer where the 2 GiB cap or half the free memory says so.
int ahead_count(const Shape& s) {
  size_t free_bytes = 0, total = 0;
  CHECK(cudaMemGetInfo(&free_bytes, &total));
  const size_t budget = std::min(kAheadCap, free_bytes / 2);
  return static_cast<int>(std::max<size_t>(1, std::min<size_t>(kIterBatch, budget / s.set_bytes())));
}

ShapeBuffers make_buffers(Env& env, const Shape& s) {
  ShapeBuffers b{separate_sets(s, kGraphCalls), pooled_sets(s, kGraphCalls), {}};
  b.ahead = separate_sets(s, ahead_count(s));
  redraw_all(env, s, b.separate.sets);
  redraw_all(env, s, b.pool.sets);
  redraw_all(env, s, b.ahead.sets);
  CHECK(cudaStreamSynchronize(env.stream));
  return b;
}

using Medians = std::vector<std::vector<std::vector<double>>>;  // [shape][variant] -> per round

void run_round(Env& env, int round, const std::vector<Shape>& shapes, Medians& medians) {
  for (size_t si = 0; si < shapes.size(); ++si) {
    const Shape& s = shapes[si];
    ShapeBuffers b = make_buffers(env, s);
    if (round == 1)
      std::printf("# %s: P_sets_ahead rotates over %zu sets\n", s.name().c_str(), b.ahead.sets.size());
    for (int k = 0; k < kVariantCount; ++k) {
      const int v = (k + round - 1) % kVariantCount;  // each round starts one variant later
      const std::vector<double> samples = run_variant(env, s, b, v);
      const double m = median(samples);
      medians[si][v].push_back(m);
      std::printf("%d %s %s %.3f %zu\n", round, s.name().c_str(), kVariants[v], m, samples.size());
      std::fflush(stdout);
    }
    b.separate.free_all();
    b.pool.free_all();
    b.ahead.free_all();
  }
}

int variant_index(const char* name) {
  for (int v = 0; v < kVariantCount; ++v)
    if (std::string(name) == kVariants[v]) return v;
  std::fprintf(stderr, "fresh_inputs_probe: unknown variant %s\n", name);
  std::exit(1);
}

void print_summary(const std::vector<Shape>& shapes, const Medians& medians) {
  const char* const ratios[][2] = {{"G_fresh", "G_fixed"},       {"G_sets_nodraw", "G_fixed"},
                                   {"G_redraw_one", "G_fixed"},  {"G_fresh_pool", "G_fixed"},
                                   {"G_fresh_gated", "G_fixed"}, {"P_fresh", "P_fixed"},
                                   {"P_fresh_gated", "P_fixed"}, {"P_fresh_gated", "P_fixed_gated"},
                                   {"P_sets_ahead", "P_fixed"}};
  std::printf("## summary\n\n| shape |");
  for (const char* v : kVariants) std::printf(" %s us |", v);
  for (const auto& r : ratios) std::printf(" %s/%s |", r[0], r[1]);
  std::printf("\n|---|");
  for (size_t i = 0; i < kVariantCount + sizeof(ratios) / sizeof(ratios[0]); ++i) std::printf("---:|");
  std::printf("\n");
  for (size_t si = 0; si < shapes.size(); ++si) {
    std::vector<double> m;
    for (int v = 0; v < kVariantCount; ++v) m.push_back(median(medians[si][v]));
    std::printf("| %s |", shapes[si].name().c_str());
    for (double x : m) std::printf(" %.3f |", x);
    for (const auto& r : ratios) std::printf(" %.3f |", m[variant_index(r[0])] / m[variant_index(r[1])]);
    std::printf("\n");
  }
}

void print_device() {
  int device = 0;
  CHECK(cudaGetDevice(&device));
  cudaDeviceProp p{};
  CHECK(cudaGetDeviceProperties(&p, device));
  std::printf("# device: %s, %d SMs, L2 %d bytes (%.1f MiB)\n", p.name, p.multiProcessorCount, p.l2CacheSize,
              p.l2CacheSize / 1048576.0);
}

}  // namespace

int main() {
  print_device();
  const std::vector<Shape> shapes = {{64, 256}, {256, 1024}, {1024, 1024}, {2048, 2048}, {4096, 4096}};
  Env env;
  CHECK(cudaStreamCreateWithFlags(&env.stream, cudaStreamNonBlocking));
  env.gate.create();
  env.start.resize(std::max(kGraphBatch, kIterBatch));
  env.stop.resize(env.start.size());
  for (size_t i = 0; i < env.start.size(); ++i) {
    CHECK(cudaEventCreate(&env.start[i]));
    CHECK(cudaEventCreate(&env.stop[i]));
  }
  Medians medians(shapes.size(), std::vector<std::vector<double>>(kVariantCount));
  for (int round = 1; round <= kRounds; ++round) run_round(env, round, shapes, medians);
  const int expired = env.gate.expired();
  std::printf("# launch gate: %d holds, %d opened at the %llu ms timeout\n", env.gate.holds, expired,
              kGateTimeoutNs / 1000000);
  print_summary(shapes, medians);
  for (size_t i = 0; i < env.start.size(); ++i) {
    CHECK(cudaEventDestroy(env.start[i]));
    CHECK(cudaEventDestroy(env.stop[i]));
  }
  env.gate.destroy();
  CHECK(cudaStreamDestroy(env.stream));
  return expired > 0 ? 2 : 0;  // a gate that timed out leaves its samples in doubt
}
