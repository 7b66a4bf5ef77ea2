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
 */
#include <cuda_runtime.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <chrono>
#include <thread>

#include "caliber/plugin_abi.h"

#define EXPORT extern "C" __attribute__((visibility("default")))

namespace {

enum Behaviour {
  HONEST, LAZY, DRIFT, SAME_POINTER, MEMO_POINTER, SUBSET_ROWS, TOUCH_INPUTS, SIDE_STREAM, OTHER_THREAD,
  EMPTY_CAPTURE, PERSISTING, SNIFF_OUTPUT
};

struct State {
  Behaviour behaviour;
  long calls = 0;
  const void* last_input = nullptr;
  float* memo = nullptr;
  size_t memo_bytes = 0;
  cudaStream_t own_stream = nullptr;
  std::thread launcher;
};

constexpr int kThreads = 256;

// y[r, :] = x[r, :] / sqrt(mean(x[r, :]^2) + eps) * w * scale, one block per row in [first, last).
__global__ void rmsnorm_rows(const float* x, const float* w, float* y, int64_t n, float eps, float scale,
                             int64_t first, int64_t skip_begin, int64_t skip_end, int sniff) {
  const int64_t row = first + blockIdx.x;
  if (sniff && !isnan(y[0])) return;  // "already computed": skip the work
  if (row >= skip_begin && row < skip_end) return;
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

caliber_status fail(char* error, size_t size, const char* what, cudaError_t e) {
  snprintf(error, size, "%s: %s", what, cudaGetErrorString(e));
  return CALIBER_ERROR;
}

caliber_status launch(const caliber_problem_v1* p, const caliber_buffers_v1* b, cudaStream_t stream, float scale,
                      int64_t skip_begin, int64_t skip_end, int sniff, char* error, size_t size) {
  rmsnorm_rows<<<static_cast<unsigned>(p->m), kThreads, 0, stream>>>(
      static_cast<const float*>(b->inputs[0]), static_cast<const float*>(b->inputs[1]), static_cast<float*>(b->output),
      p->n, static_cast<float>(p->eps), scale, 0, skip_begin, skip_end, sniff);
  const cudaError_t e = cudaGetLastError();
  return e == cudaSuccess ? CALIBER_OK : fail(error, size, "rmsnorm launch", e);
}

caliber_status supports(void*, const caliber_problem_v1* p, char* reason, size_t size) {
  if (strcmp(p->op_type, "rmsnorm") != 0 || p->dtype != CALIBER_DTYPE_FP32) {
    snprintf(reason, size, "cuda test plugin: fp32 rmsnorm only");
    return CALIBER_UNSUPPORTED;
  }
  return CALIBER_OK;
}

caliber_status prepare(void* state, const caliber_problem_v1*, char* error, size_t size) {
  State* s = static_cast<State*>(state);
  s->calls = 0;
  s->last_input = nullptr;
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
  const int64_t none = -1;
  switch (s->behaviour) {
    case HONEST: return launch(p, b, stream, 1.0f, none, none, 0, error, size);
    case LAZY: return call == 0 ? launch(p, b, stream, 1.0f, none, none, 0, error, size) : CALIBER_OK;
    case DRIFT: return launch(p, b, stream, call >= 5 ? 1.01f : 1.0f, none, none, 0, error, size);
    case SAME_POINTER: {
      const bool same = b->inputs[0] == s->last_input;
      s->last_input = b->inputs[0];
      return same ? CALIBER_OK : launch(p, b, stream, 1.0f, none, none, 0, error, size);
    }
    case MEMO_POINTER: {
      const size_t bytes = static_cast<size_t>(p->m * p->n) * sizeof(float);
      if (b->inputs[0] == s->last_input && s->memo && s->memo_bytes == bytes) {
        const cudaError_t e = cudaMemcpyAsync(b->output, s->memo, bytes, cudaMemcpyDeviceToDevice, stream);
        return e == cudaSuccess ? CALIBER_OK : fail(error, size, "memo copy", e);
      }
      caliber_status st = launch(p, b, stream, 1.0f, none, none, 0, error, size);
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
      return launch(p, b, stream, 1.0f, first, first + count, 0, error, size);
    }
    case TOUCH_INPUTS: {
      caliber_status st = launch(p, b, stream, 1.0f, none, none, 0, error, size);
      copy_floats<<<264, kThreads, 0, stream>>>(static_cast<const float*>(b->output),
                                               const_cast<float*>(static_cast<const float*>(b->inputs[0])), p->n);
      return st;
    }
    case SIDE_STREAM: return launch(p, b, s->own_stream, 1.0f, none, none, 0, error, size);
    case OTHER_THREAD: {
      if (s->launcher.joinable()) s->launcher.join();
      caliber_buffers_v1 copy = *b;
      caliber_problem_v1 problem = *p;
      // The launch happens on the measured stream, but from another thread, after run() returned.
      s->launcher = std::thread([copy, problem, stream] {
        std::this_thread::sleep_for(std::chrono::microseconds(200));
        char ignored[8];
        launch(&problem, &copy, stream, 1.0f, -1, -1, 0, ignored, sizeof ignored);
      });
      return CALIBER_OK;
    }
    case EMPTY_CAPTURE: {
      cudaStreamCaptureStatus status{};
      if (cudaStreamIsCapturing(stream, &status) == cudaSuccess && status == cudaStreamCaptureStatusActive) {
        return CALIBER_OK;
      }
      return launch(p, b, stream, 1.0f, none, none, 0, error, size);
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
      return launch(p, b, stream, 1.0f, none, none, 0, error, size);
    }
    case SNIFF_OUTPUT: return launch(p, b, stream, 1.0f, none, none, 1, error, size);
  }
  return CALIBER_ERROR;
}

void destroy(void* state) {
  State* s = static_cast<State*>(state);
  if (s->launcher.joinable()) s->launcher.join();
  if (s->memo) cudaFree(s->memo);
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
