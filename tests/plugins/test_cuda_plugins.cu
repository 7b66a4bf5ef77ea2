/* CUDA provider plugins built only for the tests: an honest fp32 rmsnorm and the cheaters and
 * buggy providers the integrity checks must catch on the cuda backend (docs/integrity.md). Each
 * is correct on its first call after prepare(), which is all a check before timing sees.
 *   caliber_cuda_test_honest         the control: one block per row, every call
 *   caliber_cuda_test_lazy           launches on its first call, then nothing
 *   caliber_cuda_test_drift          correct for 5 calls, then 1% off
 *   caliber_cuda_test_same_pointer   launches nothing when the input pointer repeats
 *   caliber_cuda_test_memo_pointer   copies a remembered output when the input pointer repeats
 *   caliber_cuda_test_subset_rows    never writes the rows [m/3, m/3 + m/8)
 *   caliber_cuda_test_touch_inputs   correct, then overwrites x with y
 *   caliber_cuda_test_side_stream    launches on a stream of its own, never joined
 *   caliber_cuda_test_other_thread   launches from another host thread and returns before it has
 *   caliber_cuda_test_empty_capture  launches nothing while the stream is being captured
 *   caliber_cuda_test_persisting     leaves a persisting access-policy window over x on the stream
 *   caliber_cuda_test_sniff_output   its kernel returns at once unless y[0] is NaN (the poison)
 *   caliber_cuda_test_content_memo   on the device, compares 1,024 elements of x at fixed positions with
 *                                    those of its last computed call; when equal, copies that call's
 *                                    output back (device to device) instead of computing
 *   caliber_cuda_test_capture_skip   inside a stream capture, only the first call of the capture does the
 *                                    work; the others launch the same kernel with an early-exit flag
 *   caliber_cuda_test_gap_skip       launches the early-exit kernel when called within 15 us (host
 *                                    steady clock) of its previous return
 *   caliber_cuda_test_memo_seen      computes on its first call only; later, on the device, copies back
 *                                    the output of an input it remembers (up to 4, by 1,024 sampled
 *                                    elements) and does nothing on any other input
 */
#include <cuda_runtime.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "caliber/plugin_abi.h"

#define EXPORT extern "C" __attribute__((visibility("default")))

namespace {

enum Behaviour {
  HONEST, LAZY, DRIFT, SAME_POINTER, MEMO_POINTER, SUBSET_ROWS, TOUCH_INPUTS, SIDE_STREAM, OTHER_THREAD,
  EMPTY_CAPTURE, PERSISTING, SNIFF_OUTPUT, CONTENT_MEMO, CAPTURE_SKIP, GAP_SKIP, MEMO_SEEN
};

constexpr int kThreads = 256;
constexpr int kSamples = 1024;  // elements of x the content-keyed cheaters compare (one block's threads)

// The content-keyed cheaters' device memory (content_memo: 1 slot, memo_seen: 4): per slot the
// sampled elements of an input and the output computed for it; the probe's answer.
struct Memo {
  int slots = 0;
  size_t output_bytes = 0;
  float* samples = nullptr;  // [slots + 1][kSamples]; the last row: the current call's
  float* outputs = nullptr;  // [slots][m * n]
  int* hit = nullptr;        // the slot whose samples equal the current call's, or -1
  int next = 0;              // memo_seen: the slot its next remembered input goes to
};

struct State {
  Behaviour behaviour;
  long calls = 0;
  const void* last_input = nullptr;
  float* memo = nullptr;
  size_t memo_bytes = 0;
  cudaStream_t own_stream = nullptr;
  std::thread launcher;
  Memo content;
  unsigned long long capture_id = 0;  // capture_skip: the capture its last call was recorded into
  bool has_returned = false;          // gap_skip
  std::chrono::steady_clock::time_point last_return;
};

// What a launch of rmsnorm_rows leaves out: a band of rows, everything when y[0] is not NaN
// (sniff), when early_exit is set, or when *skip_if_hit names a slot (a remembered output is
// copied instead).
struct Variant {
  float scale = 1.0f;
  int64_t skip_begin = -1, skip_end = -1;
  int sniff = 0;
  int early_exit = 0;
  const int* skip_if_hit = nullptr;
};

// y[r, :] = x[r, :] / sqrt(mean(x[r, :]^2) + eps) * w * scale, one block per row.
__global__ void rmsnorm_rows(const float* x, const float* w, float* y, int64_t n, float eps, Variant v) {
  const int64_t row = blockIdx.x;
  if (v.early_exit) return;
  if (v.skip_if_hit && *v.skip_if_hit >= 0) return;
  if (v.sniff && !isnan(y[0])) return;  // "already computed": skip the work
  if (row >= v.skip_begin && row < v.skip_end) return;
  const float scale = v.scale;
  __shared__ float partial[kThreads];
  float ss = 0.0f;
  for (int64_t j = threadIdx.x; j < n; j += blockDim.x) ss += x[row * n + j] * x[row * n + j];
  partial[threadIdx.x] = ss;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s /= 2) {
    if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  const float rstd = rsqrtf(partial[0] / static_cast<float>(n) + eps);
  for (int64_t j = threadIdx.x; j < n; j += blockDim.x) y[row * n + j] = x[row * n + j] * rstd * w[j] * scale;
}

__global__ void copy_floats(const float* from, float* to, int64_t count) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    to[i] = from[i];
  }
}

// Samples x at kSamples fixed pseudo-random positions into the current row of `samples` (row
// `slots`) and writes into *hit the first of the `slots` remembered rows equal to it bit for bit,
// or -1 (a row never remembered holds all-ones bits, which no drawn value has). One block of
// kSamples threads.
__global__ void probe_samples(const float* x, int64_t count, float* samples, int slots, int* hit) {
  const int i = threadIdx.x;
  const uint64_t at = (static_cast<uint64_t>(i) * 2654435761u + 40503u) % static_cast<uint64_t>(count);
  const unsigned v = __float_as_uint(x[at]);
  samples[static_cast<int64_t>(slots) * kSamples + i] = __uint_as_float(v);
  int found = -1;
  for (int s = 0; s < slots && found < 0; ++s) {
    if (__syncthreads_and(__float_as_uint(samples[static_cast<int64_t>(s) * kSamples + i]) == v)) found = s;
  }
  if (i == 0) *hit = found;
}

// to[0, count) = from[0, count), 16 bytes at a time where both are aligned: a copy as fast as the
// device copies (what a cheater that copies instead of computing would write).
__device__ void copy_range(const float* from, float* to, int64_t count) {
  const int64_t first = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  int64_t done = 0;
  if ((reinterpret_cast<uintptr_t>(from) | reinterpret_cast<uintptr_t>(to)) % 16 == 0) {
    const int64_t quads = count / 4;
    for (int64_t i = first; i < quads; i += stride) {
      reinterpret_cast<float4*>(to)[i] = reinterpret_cast<const float4*>(from)[i];
    }
    done = quads * 4;
  }
  for (int64_t i = done + first; i < count; i += stride) to[i] = from[i];
}

// After the probe: on a hit (unless store_on_hit), y = the matching slot's remembered output;
// otherwise, with into >= 0, y and the current samples become slot `into`'s. At least kSamples
// threads.
__global__ void memo_exchange(const int* hit, float* y, float* outputs, float* samples, int slots, int64_t count,
                              int into, int store_on_hit) {
  const int h = *hit;
  if (h >= 0 && !store_on_hit) {
    copy_range(outputs + h * count, y, count);
    return;
  }
  if (into < 0) return;
  copy_range(y, outputs + into * count, count);
  const int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (i < kSamples) samples[static_cast<int64_t>(into) * kSamples + i] = samples[slots * kSamples + i];
}

caliber_status fail(char* error, size_t size, const char* what, cudaError_t e) {
  snprintf(error, size, "%s: %s", what, cudaGetErrorString(e));
  return CALIBER_ERROR;
}

caliber_status launch(const caliber_problem_v1* p, const caliber_buffers_v1* b, cudaStream_t stream, const Variant& v,
                      char* error, size_t size) {
  rmsnorm_rows<<<static_cast<unsigned>(p->m), kThreads, 0, stream>>>(
      static_cast<const float*>(b->inputs[0]), static_cast<const float*>(b->inputs[1]), static_cast<float*>(b->output),
      p->n, static_cast<float>(p->eps), v);
  const cudaError_t e = cudaGetLastError();
  return e == cudaSuccess ? CALIBER_OK : fail(error, size, "rmsnorm launch", e);
}

caliber_status launch(const caliber_problem_v1* p, const caliber_buffers_v1* b, cudaStream_t stream, char* error,
                      size_t size) {
  return launch(p, b, stream, Variant{}, error, size);
}

// The content-keyed cheaters' device memory for outputs of `bytes` (kept while the shape's size
// stays the same; memo_seen's remembered inputs survive a new prepare()).
caliber_status ensure_memo(Memo& memo, int slots, size_t bytes, char* error, size_t size) {
  if (memo.outputs && memo.output_bytes == bytes) return CALIBER_OK;
  cudaFree(memo.outputs);
  cudaFree(memo.samples);
  cudaFree(memo.hit);
  memo = Memo{slots, bytes};
  const size_t sample_bytes = static_cast<size_t>(slots + 1) * kSamples * sizeof(float);
  cudaError_t e = cudaMalloc(&memo.outputs, bytes * static_cast<size_t>(slots));
  if (e == cudaSuccess) e = cudaMalloc(&memo.samples, sample_bytes);
  if (e == cudaSuccess) e = cudaMalloc(&memo.hit, sizeof(int));
  if (e == cudaSuccess) e = cudaMemset(memo.samples, 0xff, sample_bytes);  // never remembered
  if (e == cudaSuccess) e = cudaDeviceSynchronize();  // before the first probe, whatever its stream
  if (e != cudaSuccess) {
    memo.output_bytes = 0;
    return fail(error, size, "memo allocation", e);
  }
  return CALIBER_OK;
}

caliber_status launch_probe(const Memo& memo, const caliber_problem_v1* p, const caliber_buffers_v1* b,
                            cudaStream_t stream, char* error, size_t size) {
  probe_samples<<<1, kSamples, 0, stream>>>(static_cast<const float*>(b->inputs[0]), p->m * p->n, memo.samples,
                                            memo.slots, memo.hit);
  const cudaError_t e = cudaGetLastError();
  return e == cudaSuccess ? CALIBER_OK : fail(error, size, "probe launch", e);
}

caliber_status launch_exchange(const Memo& memo, const caliber_problem_v1* p, const caliber_buffers_v1* b,
                               cudaStream_t stream, int into, int store_on_hit, char* error, size_t size) {
  const int64_t count = p->m * p->n;
  // About one float4 per thread (at most 8192 blocks), and at least kSamples threads.
  const int64_t wanted = std::max<int64_t>(count / 4 / kThreads, kSamples / kThreads);
  const auto blocks = static_cast<unsigned>(std::min<int64_t>(wanted, 8192));
  memo_exchange<<<blocks, kThreads, 0, stream>>>(memo.hit, static_cast<float*>(b->output), memo.outputs,
                                                 memo.samples, memo.slots, count, into, store_on_hit);
  const cudaError_t e = cudaGetLastError();
  return e == cudaSuccess ? CALIBER_OK : fail(error, size, "memo launch", e);
}

// Probe; compute unless the samples match the last computed call's; then copy the remembered
// output on a hit, or remember this one.
caliber_status run_content_memo(State* s, const caliber_problem_v1* p, const caliber_buffers_v1* b,
                                cudaStream_t stream, char* error, size_t size) {
  caliber_status st = launch_probe(s->content, p, b, stream, error, size);
  if (st == CALIBER_OK) st = launch(p, b, stream, Variant{.skip_if_hit = s->content.hit}, error, size);
  return st == CALIBER_OK ? launch_exchange(s->content, p, b, stream, 0, 0, error, size) : st;
}

// The first call after prepare() computes and remembers its input; later calls only copy back
// the output of a remembered input, and do nothing on any other.
caliber_status run_memo_seen(State* s, const caliber_problem_v1* p, const caliber_buffers_v1* b, cudaStream_t stream,
                             long call, char* error, size_t size) {
  Memo& memo = s->content;
  caliber_status st = CALIBER_OK;
  if (call == 0) st = launch(p, b, stream, error, size);
  if (st == CALIBER_OK) st = launch_probe(memo, p, b, stream, error, size);
  if (st != CALIBER_OK) return st;
  if (call != 0) return launch_exchange(memo, p, b, stream, -1, 0, error, size);
  return launch_exchange(memo, p, b, stream, memo.next++ % memo.slots, 1, error, size);
}

// Inside a capture, every call after the capture's first launches the kernel with early_exit.
caliber_status run_capture_skip(State* s, const caliber_problem_v1* p, const caliber_buffers_v1* b,
                                cudaStream_t stream, char* error, size_t size) {
  cudaStreamCaptureStatus status{};
  unsigned long long id = 0;
  if (cudaStreamGetCaptureInfo(stream, &status, &id) != cudaSuccess || status != cudaStreamCaptureStatusActive) {
    return launch(p, b, stream, error, size);
  }
  const int later_call = id == s->capture_id ? 1 : 0;
  s->capture_id = id;
  return launch(p, b, stream, Variant{.early_exit = later_call}, error, size);
}

// Launches the kernel with early_exit when called within 15 us of its previous return.
caliber_status run_gap_skip(State* s, const caliber_problem_v1* p, const caliber_buffers_v1* b, cudaStream_t stream,
                            char* error, size_t size) {
  const auto now = std::chrono::steady_clock::now();
  const int soon = s->has_returned && now - s->last_return < std::chrono::microseconds(15) ? 1 : 0;
  const caliber_status st = launch(p, b, stream, Variant{.early_exit = soon}, error, size);
  s->last_return = std::chrono::steady_clock::now();
  s->has_returned = true;
  return st;
}

caliber_status supports(void*, const caliber_problem_v1* p, char* reason, size_t size) {
  if (strcmp(p->op_type, "rmsnorm") != 0 || p->dtype != CALIBER_DTYPE_FP32) {
    snprintf(reason, size, "cuda test plugin: fp32 rmsnorm only");
    return CALIBER_UNSUPPORTED;
  }
  return CALIBER_OK;
}

caliber_status prepare(void* state, const caliber_problem_v1* p, char* error, size_t size) {
  State* s = static_cast<State*>(state);
  s->calls = 0;
  s->last_input = nullptr;
  s->capture_id = 0;
  s->has_returned = false;
  if (s->behaviour == CONTENT_MEMO || s->behaviour == MEMO_SEEN) {
    const size_t bytes = static_cast<size_t>(p->m * p->n) * sizeof(float);
    const caliber_status st = ensure_memo(s->content, s->behaviour == MEMO_SEEN ? 4 : 1, bytes, error, size);
    if (st != CALIBER_OK) return st;
  }
  if (s->behaviour == SIDE_STREAM && !s->own_stream) {
    const cudaError_t e = cudaStreamCreateWithFlags(&s->own_stream, cudaStreamNonBlocking);
    if (e != cudaSuccess) return fail(error, size, "cudaStreamCreate", e);
  }
  return CALIBER_OK;
}

caliber_status run(void* state, const caliber_problem_v1* p, const caliber_buffers_v1* b, char* error, size_t size) {
  State* s = static_cast<State*>(state);
  cudaStream_t stream = static_cast<cudaStream_t>(b->stream);
  const long call = s->calls++;
  switch (s->behaviour) {
    case HONEST: return launch(p, b, stream, error, size);
    case LAZY: return call == 0 ? launch(p, b, stream, error, size) : CALIBER_OK;
    case DRIFT: return launch(p, b, stream, Variant{.scale = call >= 5 ? 1.01f : 1.0f}, error, size);
    case SAME_POINTER: {
      const bool same = b->inputs[0] == s->last_input;
      s->last_input = b->inputs[0];
      return same ? CALIBER_OK : launch(p, b, stream, error, size);
    }
    case MEMO_POINTER: {
      const size_t bytes = static_cast<size_t>(p->m * p->n) * sizeof(float);
      if (b->inputs[0] == s->last_input && s->memo && s->memo_bytes == bytes) {
        const cudaError_t e = cudaMemcpyAsync(b->output, s->memo, bytes, cudaMemcpyDeviceToDevice, stream);
        return e == cudaSuccess ? CALIBER_OK : fail(error, size, "memo copy", e);
      }
      caliber_status st = launch(p, b, stream, error, size);
      if (s->memo_bytes != bytes) {
        if (s->memo) cudaFree(s->memo);
        s->memo = nullptr;
        if (cudaMalloc(&s->memo, bytes) != cudaSuccess) return fail(error, size, "memo malloc", cudaGetLastError());
        s->memo_bytes = bytes;
      }
      copy_floats<<<264, kThreads, 0, stream>>>(static_cast<const float*>(b->output), s->memo, p->m * p->n);
      s->last_input = b->inputs[0];
      return st;
    }
    case SUBSET_ROWS: {
      const int64_t first = p->m / 3, count = p->m / 8 > 0 ? p->m / 8 : 1;
      return launch(p, b, stream, Variant{.skip_begin = first, .skip_end = first + count}, error, size);
    }
    case TOUCH_INPUTS: {
      caliber_status st = launch(p, b, stream, error, size);
      copy_floats<<<264, kThreads, 0, stream>>>(static_cast<const float*>(b->output),
                                               const_cast<float*>(static_cast<const float*>(b->inputs[0])), p->n);
      return st;
    }
    case SIDE_STREAM: return launch(p, b, s->own_stream, error, size);
    case OTHER_THREAD: {
      if (s->launcher.joinable()) s->launcher.join();
      caliber_buffers_v1 copy = *b;
      caliber_problem_v1 problem = *p;
      // The launch happens on the measured stream, but from another thread, after run() returned.
      s->launcher = std::thread([copy, problem, stream] {
        std::this_thread::sleep_for(std::chrono::microseconds(200));
        char ignored[8];
        launch(&problem, &copy, stream, ignored, sizeof ignored);
      });
      return CALIBER_OK;
    }
    case EMPTY_CAPTURE: {
      cudaStreamCaptureStatus status{};
      if (cudaStreamIsCapturing(stream, &status) == cudaSuccess && status == cudaStreamCaptureStatusActive) {
        return CALIBER_OK;
      }
      return launch(p, b, stream, error, size);
    }
    case PERSISTING: {
      if (call == 0) {
        cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 16u << 20);
        cudaStreamAttrValue v{};
        v.accessPolicyWindow.base_ptr = const_cast<void*>(b->inputs[0]);
        v.accessPolicyWindow.num_bytes = 16u << 20;
        v.accessPolicyWindow.hitRatio = 1.0f;
        v.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
        v.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
        cudaStreamSetAttribute(stream, cudaStreamAttributeAccessPolicyWindow, &v);
      }
      return launch(p, b, stream, error, size);
    }
    case SNIFF_OUTPUT: return launch(p, b, stream, Variant{.sniff = 1}, error, size);
    case CONTENT_MEMO: return run_content_memo(s, p, b, stream, error, size);
    case CAPTURE_SKIP: return run_capture_skip(s, p, b, stream, error, size);
    case GAP_SKIP: return run_gap_skip(s, p, b, stream, error, size);
    case MEMO_SEEN: return run_memo_seen(s, p, b, stream, call, error, size);
  }
  return CALIBER_ERROR;
}

void destroy(void* state) {
  State* s = static_cast<State*>(state);
  if (s->launcher.joinable()) s->launcher.join();
  if (s->memo) cudaFree(s->memo);
  cudaFree(s->content.outputs);
  cudaFree(s->content.samples);
  cudaFree(s->content.hit);
  if (s->own_stream) cudaStreamDestroy(s->own_stream);
  delete s;
}

caliber_status fill(caliber_provider_v1* out, Behaviour b, const char* detail) {
  memset(out, 0, sizeof *out);
  out->abi_version = CALIBER_PLUGIN_ABI_VERSION;
  out->struct_size = sizeof *out;
  out->backend = CALIBER_BACKEND_CUDA;
  out->detail = detail;
  out->state = new State{b};
  out->supports = supports;
  out->prepare = prepare;
  out->run = run;
  out->destroy = destroy;
  return CALIBER_OK;
}

}  // namespace

#define CUDA_CHEATER(symbol, behaviour, what)                                                               \
  EXPORT caliber_status symbol(uint32_t, const char*, caliber_provider_v1* out, char*, size_t) {           \
    return fill(out, behaviour, "cuda test plugin: " what);                                               \
  }
CUDA_CHEATER(caliber_cuda_test_honest, HONEST, "honest rmsnorm")
CUDA_CHEATER(caliber_cuda_test_lazy, LAZY, "launches once, then nothing")
CUDA_CHEATER(caliber_cuda_test_drift, DRIFT, "drifts after 5 calls")
CUDA_CHEATER(caliber_cuda_test_same_pointer, SAME_POINTER, "skips on the same input pointer")
CUDA_CHEATER(caliber_cuda_test_memo_pointer, MEMO_POINTER, "copies a remembered output on the same input pointer")
CUDA_CHEATER(caliber_cuda_test_subset_rows, SUBSET_ROWS, "never writes a band of rows")
CUDA_CHEATER(caliber_cuda_test_touch_inputs, TOUCH_INPUTS, "overwrites its input")
CUDA_CHEATER(caliber_cuda_test_side_stream, SIDE_STREAM, "launches on its own stream, never joined")
CUDA_CHEATER(caliber_cuda_test_other_thread, OTHER_THREAD, "launches from another host thread")
CUDA_CHEATER(caliber_cuda_test_empty_capture, EMPTY_CAPTURE, "launches nothing while captured")
CUDA_CHEATER(caliber_cuda_test_persisting, PERSISTING, "leaves a persisting access-policy window")
CUDA_CHEATER(caliber_cuda_test_sniff_output, SNIFF_OUTPUT, "skips the work unless its output is poisoned")
CUDA_CHEATER(caliber_cuda_test_content_memo, CONTENT_MEMO, "copies its last output back when a sample of x repeats")
CUDA_CHEATER(caliber_cuda_test_capture_skip, CAPTURE_SKIP, "does the work once per stream capture")
CUDA_CHEATER(caliber_cuda_test_gap_skip, GAP_SKIP, "skips the work when called within 15 us of its previous return")
CUDA_CHEATER(caliber_cuda_test_memo_seen, MEMO_SEEN, "computes once, then copies back remembered outputs only")
