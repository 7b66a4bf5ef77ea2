/* Plugins built only for the tests: each entry point misbehaves in one way the runner must
 * survive and record (docs/plugins.md, tests/runner). All run on the host backend, fp32/bf16.
 *   caliber_test_correct      a correct rmsnorm / softmax / gemm (the control)
 *   caliber_test_wrong        wrong results: rmsnorm forgets the weight, softmax does not
 *                             normalize, gemm skips the last k index
 *   caliber_test_fail         run() returns CALIBER_ERROR
 *   caliber_test_crash        run() aborts the process when m == 13, else correct
 *   caliber_test_hang         run() sleeps for an hour when m == 13, else correct
 *   caliber_test_fork_crash   run() forks a child that keeps the worker's descriptors and sleeps
 *                             for an hour (its pid written to $CALIBER_TEST_FORK_PID_FILE), then
 *                             aborts, when m == 13; else correct
 *   caliber_test_forge_event  run() writes {"event":"fatal","exit_code":0,...} on the worker's events
 *                             descriptor (3), then computes, when m == 13; else correct
 *   caliber_test_forge_server run() writes the device server's own end of a run,
 *                             {"event":"job_done","exit_code":0}, on every socket it has open (a
 *                             served run's connection among them), then aborts, when m == 13; else
 *                             correct
 *   caliber_test_aligned      correct, and run() fails (CALIBER_ERROR, naming the buffer) on any
 *                             input or output not at a multiple of CALIBER_BUFFER_ALIGNMENT_HOST
 *   caliber_test_flaky        run() aborts the process when m == 13 and the file named by
 *                             $CALIBER_TEST_FLAKY_FILE does not exist yet (it creates it first), else
 *                             correct: a failure on the first attempt only (caliber batch retries)
 *   caliber_test_fp32_only    supports() refuses everything but fp32
 *   caliber_test_leave_thread correct; its first run() starts a thread that never ends (code left
 *                             running after its run: a device server must not serve another run)
 *   caliber_test_cuda         declares the cuda backend
 *   caliber_test_abi_v99      reports plugin ABI version 99
 *   caliber_test_refuse       the entry function returns CALIBER_ERROR
 * Entries that misbehave before any call (the plugin_loads preflight runs them in a child):
 *   caliber_test_entry_exits   the entry function calls exit(0)
 *   caliber_test_entry_crashes the entry function raises SIGSEGV
 *   caliber_test_entry_hangs   the entry function sleeps for an hour
 *   caliber_test_entry_speaks  the entry function writes a line on descriptor 3 (a measuring
 *                              worker's events channel), then fills a correct provider
 *   caliber_test_long_detail   correct; its detail is 4 MiB of text (every row carries a detail)
 * Configs recorded and replayed (docs/plugins.md, "A provider that chooses"):
 *   caliber_test_configurable correct; chooses "variant=a" in prepare(), unless pinned to
 *                             "variant=a" or "variant=b" (any other pin is refused)
 *   caliber_test_base_struct  correct; reports struct_size CALIBER_PROVIDER_V1_BASE_SIZE, as a
 *                             plugin built before the config callbacks does
 *   caliber_test_half_config  fills pin_config but not chosen_config (refused at load)
 * Cheaters and buggy providers the integrity checks must catch (docs/integrity.md); each is correct
 * on its first call, which is what a check before timing alone sees:
 *   caliber_test_lazy         computes on its first call of a shape, then returns at once
 *   caliber_test_drift        correct for 5 calls of a shape, then its output drifts by 5% (beyond every dtype's tolerance: 1% sits at bf16's edge)
 *   caliber_test_same_pointer skips the work when it sees the input pointer of its last call
 *   caliber_test_memo_pointer remembers its output per input pointer and copies it back
 *   caliber_test_subset_rows  never writes a band of rows (the rows [m/3, m/3 + m/8))
 *   caliber_test_touch_inputs correct, then overwrites its first input with its output
 *   caliber_test_sniff_output computes only when its output holds NaN (caliber's poison)
 *   caliber_test_content_memo samples 1,024 elements of its input at fixed positions; when they
 *                             equal those of its last computed call, copies that call's output
 *                             back instead of computing
 *   caliber_test_gap_skip     returns without writing its output when called within 20 us (steady
 *                             clock) of its previous return
 *   caliber_test_memo_seen    computes only on its first call of a shape; later it copies back the
 *                             output of an input it remembers (up to 4, by a hash of the whole
 *                             input) and returns at once, writing nothing, on any other input
 * Built twice: caliber_test_plugins, and caliber_test_plugins_slow with CALIBER_TEST_PLUGIN_PASSES=4,
 * whose run() computes every output four times: a slower build of the same providers, for the
 * caliber ab end-to-end test with caliber run cells (tests/cli/test_cmd_ab.cpp). */
#ifndef CALIBER_TEST_PLUGIN_PASSES
#define CALIBER_TEST_PLUGIN_PASSES 1
#endif
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "caliber/plugin_abi.h"

#define EXPORT __attribute__((visibility("default")))

enum behaviour { CORRECT, WRONG, FAIL, CRASH, HANG, FLAKY, FP32_ONLY, LEAVE_THREAD, LAZY, DRIFT, SAME_POINTER, MEMO_POINTER, SUBSET_ROWS,
                 TOUCH_INPUTS, SNIFF_OUTPUT, CONTENT_MEMO, GAP_SKIP, MEMO_SEEN, CONFIGURABLE, FORK_CRASH,
                 FORGE_EVENT, FORGE_SERVER, ALIGNED };

/* Per-process memory of the cheaters: calls since prepare(), the last input pointer, the memo. */
static long calls_since_prepare;
static const void* last_input;
static void* memo;
static size_t memo_bytes;

static float to_f(const void* p, caliber_dtype d, int64_t i) {
  if (d == CALIBER_DTYPE_FP32) return ((const float*)p)[i];
  uint32_t u = (uint32_t)((const uint16_t*)p)[i] << 16;
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}
static void from_f(void* p, caliber_dtype d, int64_t i, float v) {
  if (d == CALIBER_DTYPE_FP32) {
    ((float*)p)[i] = v;
    return;
  }
  uint32_t u;
  memcpy(&u, &v, sizeof u);
  ((uint16_t*)p)[i] = (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

static caliber_status supports(void* state, const caliber_problem_v1* p, char* reason, size_t size) {
  const enum behaviour b = (enum behaviour)(intptr_t)state;
  if (p->dtype == CALIBER_DTYPE_FP16 || (b == FP32_ONLY && p->dtype != CALIBER_DTYPE_FP32)) {
    snprintf(reason, size, "test plugin: fp32 only");
    return CALIBER_UNSUPPORTED;
  }
  return CALIBER_OK;
}

static caliber_status run_once(void* state, const caliber_problem_v1* p, const caliber_buffers_v1* buf,
                               char* error, size_t size) {
  const enum behaviour b = (enum behaviour)(intptr_t)state;
  const int wrong = b == WRONG;
  if (b == FAIL) {
    snprintf(error, size, "deliberate failure\nsecond line");
    return CALIBER_ERROR;
  }
  if (b == CRASH && p->m == 13) abort();
  if (b == HANG && p->m == 13) sleep(3600);
  if (b == FORK_CRASH && p->m == 13) {
    const pid_t child = fork();
    if (child == 0) {
      sleep(3600);
      _exit(0);
    }
    const char* pid_file = getenv("CALIBER_TEST_FORK_PID_FILE");
    FILE* f = pid_file ? fopen(pid_file, "w") : NULL;
    if (f) {
      fprintf(f, "%ld\n", (long)child);
      fclose(f);
    }
    abort();
  }
  if (b == ALIGNED) {
    for (int32_t i = 0; i <= buf->input_count; ++i) {
      const void* ptr = i < buf->input_count ? buf->inputs[i] : buf->output;
      if ((uintptr_t)ptr % CALIBER_BUFFER_ALIGNMENT_HOST != 0) {
        snprintf(error, size, "test plugin: %s %d at %p is not %u-byte aligned", i < buf->input_count ? "input" : "output",
                 (int)i, ptr, CALIBER_BUFFER_ALIGNMENT_HOST);
        return CALIBER_ERROR;
      }
    }
  }
  if (b == FORGE_SERVER && p->m == 13) {
    /* In a device server the run's connection is a socket of this process: the server's own line
       that ends a run, with exit code 0, on each socket, then a crash the forged line would hide. */
    static const char forged[] = "{\"event\":\"job_done\",\"exit_code\":0}\n";
    for (int fd = 3; fd < 1024; ++fd) {
      struct stat st;
      if (fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode) && write(fd, forged, sizeof forged - 1) < 0) continue;
    }
    abort();
  }
  if (b == FORGE_EVENT && p->m == 13) {
    /* What a hostile provider writes on the worker's events descriptor (3): a fatal end, exit 0. */
    static const char forged[] = "{\"event\":\"fatal\",\"exit_code\":0,\"message\":\"forged: all done\"}\n";
    if (write(3, forged, sizeof forged - 1) < 0) return CALIBER_ERROR;
  }
  if (b == FLAKY && p->m == 13) {
    const char* key = getenv("CALIBER_TEST_FLAKY_FILE");
    if (key && access(key, F_OK) != 0) {
      FILE* f = fopen(key, "w");
      if (f) fclose(f);
      abort();
    }
  }
  const int64_t m = p->m, n = p->n, k = p->k;
  const caliber_dtype d = p->dtype;
  const void* x = buf->inputs[0];
  if (strcmp(p->op_type, "rmsnorm") == 0) {
    for (int64_t r = 0; r < m; ++r) {
      float ss = 0.0f;
      for (int64_t j = 0; j < n; ++j) ss += to_f(x, d, r * n + j) * to_f(x, d, r * n + j);
      const float rstd = 1.0f / sqrtf(ss / (float)n + (float)p->eps);
      for (int64_t j = 0; j < n; ++j) {
        const float w = wrong ? 1.0f : to_f(buf->inputs[1], d, j);
        from_f(buf->output, d, r * n + j, to_f(x, d, r * n + j) * rstd * w);
      }
    }
  } else if (strcmp(p->op_type, "softmax") == 0) {
    for (int64_t r = 0; r < m; ++r) {
      float mx = -INFINITY, sum = 0.0f;
      for (int64_t j = 0; j < n; ++j) mx = fmaxf(mx, to_f(x, d, r * n + j));
      for (int64_t j = 0; j < n; ++j) sum += expf(to_f(x, d, r * n + j) - mx);
      for (int64_t j = 0; j < n; ++j) {
        from_f(buf->output, d, r * n + j, expf(to_f(x, d, r * n + j) - mx) / (wrong ? 1.0f : sum));
      }
    }
  } else if (strcmp(p->op_type, "gemm") == 0) {
    const int64_t kk = wrong ? k - 1 : k;
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        float acc = 0.0f;
        for (int64_t q = 0; q < kk; ++q) acc += to_f(x, d, i * k + q) * to_f(buf->inputs[1], d, q * n + j);
        from_f(buf->output, d, i * n + j, acc);
      }
    }
  } else {
    snprintf(error, size, "test plugin: no %s", p->op_type);
    return CALIBER_ERROR;
  }
  return CALIBER_OK;
}

static size_t element_bytes(const caliber_problem_v1* p) { return p->dtype == CALIBER_DTYPE_FP32 ? 4 : 2; }
static size_t output_bytes(const caliber_problem_v1* p) { return (size_t)(p->m * p->n) * element_bytes(p); }

static int is_nan_bits(const void* y, const caliber_problem_v1* p) {
  return isnan(to_f(y, p->dtype, 0));
}

static caliber_status compute(void* state, const caliber_problem_v1* p, const caliber_buffers_v1* buf, char* error,
                              size_t size) {
  caliber_status st = CALIBER_OK;
  for (int pass = 0; pass < CALIBER_TEST_PLUGIN_PASSES && st == CALIBER_OK; ++pass) st = run_once(state, p, buf, error, size);
  return st;
}

/* The content-keyed cheaters' memory. content_memo: one sample of its input (1,024 elements at
 * fixed positions) and the output it computed for it. memo_seen: up to 4 inputs, by a hash of the
 * whole input, each with its output; kept across shapes (an entry of another shape never matches). */
#define MEMO_SAMPLES 1024
#define MEMO_SEEN_SLOTS 4
struct memo_entry {
  unsigned char sample[MEMO_SAMPLES * 4];
  uint64_t hash;
  void* output;
  size_t bytes;
  int used;
};
static struct memo_entry content_memo;
static struct memo_entry memo_seen[MEMO_SEEN_SLOTS];
static int memo_seen_next;

/* gap_skip: when run() last returned (microseconds on the steady clock), once it has. */
static double last_return_us;
static int has_returned;

static double steady_now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static size_t first_input_bytes(const caliber_problem_v1* p) {
  return strcmp(p->op_type, "gemm") == 0 ? (size_t)(p->m * p->k) * element_bytes(p) : output_bytes(p);
}

/* The bytes of MEMO_SAMPLES elements of the first input at fixed pseudo-random positions. */
static void sample_input(const caliber_problem_v1* p, const void* x, unsigned char* out) {
  const size_t e = element_bytes(p), count = first_input_bytes(p) / e;
  for (size_t i = 0; i < MEMO_SAMPLES; ++i) {
    const size_t at = (size_t)(((uint64_t)i * 2654435761u + 40503u) % count);
    memcpy(out + i * e, (const unsigned char*)x + at * e, e);
  }
}

/* FNV-1a over the whole first input. */
static uint64_t hash_input(const caliber_problem_v1* p, const void* x) {
  uint64_t h = 14695981039346656037ull;
  const unsigned char* b = x;
  for (size_t i = 0, n = first_input_bytes(p); i < n; ++i) h = (h ^ b[i]) * 1099511628211ull;
  return h;
}

/* Keeps a copy of the output in `entry`. */
static void remember_output(struct memo_entry* entry, const caliber_problem_v1* p, const void* y) {
  if (entry->bytes != output_bytes(p)) {
    free(entry->output);
    entry->bytes = output_bytes(p);
    entry->output = malloc(entry->bytes);
  }
  entry->used = entry->output != NULL;
  if (entry->used) memcpy(entry->output, y, entry->bytes);
}

static caliber_status run_content_memo(void* state, const caliber_problem_v1* p, const caliber_buffers_v1* buf,
                                       char* error, size_t size) {
  unsigned char sample[MEMO_SAMPLES * 4];
  const size_t sample_bytes = MEMO_SAMPLES * element_bytes(p);
  sample_input(p, buf->inputs[0], sample);
  if (content_memo.used && content_memo.bytes == output_bytes(p) &&
      memcmp(sample, content_memo.sample, sample_bytes) == 0) {
    memcpy(buf->output, content_memo.output, content_memo.bytes);  /* "the same input again" */
    return CALIBER_OK;
  }
  const caliber_status st = compute(state, p, buf, error, size);
  if (st != CALIBER_OK) return st;
  remember_output(&content_memo, p, buf->output);
  memcpy(content_memo.sample, sample, sample_bytes);
  return st;
}

static caliber_status run_memo_seen(void* state, const caliber_problem_v1* p, const caliber_buffers_v1* buf,
                                    char* error, size_t size, long call) {
  const uint64_t h = hash_input(p, buf->inputs[0]);
  if (call == 0) {  /* what a check before timing sees: computed, and remembered */
    const caliber_status st = compute(state, p, buf, error, size);
    struct memo_entry* e = &memo_seen[memo_seen_next++ % MEMO_SEEN_SLOTS];
    if (st == CALIBER_OK) remember_output(e, p, buf->output);
    e->hash = h;
    return st;
  }
  for (int i = 0; i < MEMO_SEEN_SLOTS; ++i) {
    if (memo_seen[i].used && memo_seen[i].hash == h && memo_seen[i].bytes == output_bytes(p)) {
      memcpy(buf->output, memo_seen[i].output, memo_seen[i].bytes);
      return CALIBER_OK;
    }
  }
  return CALIBER_OK;  /* an input it has not seen: nothing written */
}

static caliber_status run_gap_skip(void* state, const caliber_problem_v1* p, const caliber_buffers_v1* buf,
                                   char* error, size_t size) {
  const int skip = has_returned && steady_now_us() - last_return_us < 20.0;  /* microseconds */
  const caliber_status st = skip ? CALIBER_OK : compute(state, p, buf, error, size);
  last_return_us = steady_now_us();
  has_returned = 1;
  return st;
}

static void* linger(void* unused) {
  (void)unused;
  for (;;) pause();
  return NULL;
}

static caliber_status run(void* state, const caliber_problem_v1* p, const caliber_buffers_v1* buf, char* error,
                          size_t size) {
  const enum behaviour b = (enum behaviour)(intptr_t)state;
  const long call = calls_since_prepare++;
  switch (b) {
    case LEAVE_THREAD: {
      static int started = 0;
      pthread_t t;
      if (!started && pthread_create(&t, NULL, linger, NULL) == 0) {
        pthread_detach(t);
        started = 1;
      }
      return compute(state, p, buf, error, size);
    }
    case LAZY:
      return call == 0 ? compute(state, p, buf, error, size) : CALIBER_OK;
    case DRIFT: {
      caliber_status st = compute(state, p, buf, error, size);
      if (st == CALIBER_OK && call >= 5) {
        for (int64_t i = 0; i < p->m * p->n; ++i) from_f(buf->output, p->dtype, i, to_f(buf->output, p->dtype, i) * 1.05f);
      }
      return st;
    }
    case SAME_POINTER: {
      const int same = buf->inputs[0] == last_input;
      last_input = buf->inputs[0];
      return same ? CALIBER_OK : compute(state, p, buf, error, size);
    }
    case MEMO_POINTER: {
      if (buf->inputs[0] == last_input && memo && memo_bytes == output_bytes(p)) {
        memcpy(buf->output, memo, memo_bytes);
        return CALIBER_OK;
      }
      caliber_status st = compute(state, p, buf, error, size);
      free(memo);
      memo_bytes = output_bytes(p);
      memo = malloc(memo_bytes);
      if (memo) memcpy(memo, buf->output, memo_bytes);
      last_input = buf->inputs[0];
      return st;
    }
    case SUBSET_ROWS: {
      /* Computes everything into the output, then puts the poison back into a band of rows, as if
       * it never wrote them (a tiling bug that misses a band). */
      const size_t row = (size_t)p->n * element_bytes(p);
      unsigned char* saved = malloc(output_bytes(p));
      if (!saved) return CALIBER_ERROR;
      memcpy(saved, buf->output, output_bytes(p));
      caliber_status st = compute(state, p, buf, error, size);
      const int64_t first = p->m / 3, count = p->m / 8 > 0 ? p->m / 8 : 1;
      memcpy((unsigned char*)buf->output + (size_t)first * row, saved + (size_t)first * row, (size_t)count * row);
      free(saved);
      return st;
    }
    case TOUCH_INPUTS: {
      caliber_status st = compute(state, p, buf, error, size);
      const size_t in_bytes = strcmp(p->op_type, "gemm") == 0 ? (size_t)(p->m * p->k) * element_bytes(p) : output_bytes(p);
      memcpy((void*)buf->inputs[0], buf->output, in_bytes < output_bytes(p) ? in_bytes : output_bytes(p));
      return st;
    }
    case SNIFF_OUTPUT:
      return is_nan_bits(buf->output, p) ? compute(state, p, buf, error, size) : CALIBER_OK;
    case CONTENT_MEMO:
      return run_content_memo(state, p, buf, error, size);
    case GAP_SKIP:
      return run_gap_skip(state, p, buf, error, size);
    case MEMO_SEEN:
      return run_memo_seen(state, p, buf, error, size, call);
    default:
      return compute(state, p, buf, error, size);
  }
}

/* caliber_test_configurable: the pinned variant ("" = none) and the one the last prepare() chose. */
static char pinned_variant[32];
static char chosen_variant[32];

static caliber_status prepare(void* state, const caliber_problem_v1* p, char* error, size_t size) {
  (void)p, (void)error, (void)size;
  calls_since_prepare = 0;
  last_input = NULL;
  has_returned = 0;
  if ((enum behaviour)(intptr_t)state == CONFIGURABLE) {
    snprintf(chosen_variant, sizeof chosen_variant, "%s", pinned_variant[0] ? pinned_variant : "variant=a");
  }
  return CALIBER_OK;
}

static caliber_status pin_config(void* state, const char* config, char* error, size_t size) {
  (void)state;
  if (config == NULL) {
    pinned_variant[0] = 0;
    return CALIBER_OK;
  }
  if (strcmp(config, "variant=a") != 0 && strcmp(config, "variant=b") != 0) {
    snprintf(error, size, "test plugin: no such variant '%s' (variant=a|variant=b)", config);
    return CALIBER_ERROR;
  }
  snprintf(pinned_variant, sizeof pinned_variant, "%s", config);
  return CALIBER_OK;
}

static caliber_status chosen_config(void* state, char* config, size_t config_size, char* description,
                                    size_t description_size) {
  (void)state;
  if (chosen_variant[0] == 0) return CALIBER_UNSUPPORTED;
  snprintf(config, config_size, "%s", chosen_variant);
  snprintf(description, description_size, "test plugin: %s", chosen_variant);
  return CALIBER_OK;
}

static caliber_status fill(caliber_provider_v1* out, enum behaviour b, caliber_backend backend, const char* detail) {
  memset(out, 0, sizeof *out);
  out->abi_version = CALIBER_PLUGIN_ABI_VERSION;
  out->struct_size = sizeof *out;
  out->backend = backend;
  out->detail = detail;
  out->state = (void*)(intptr_t)b;
  out->supports = supports;
  out->prepare = prepare;
  out->run = run;
  return CALIBER_OK;
}

#define CHEATER(symbol, behaviour, what)                                                                        \
  EXPORT caliber_status symbol(uint32_t abi, const char* op, caliber_provider_v1* out, char* e, size_t s) { \
    (void)abi, (void)op, (void)e, (void)s;                                                                  \
    return fill(out, behaviour, CALIBER_BACKEND_HOST, "test plugin: " what);                               \
  }
CHEATER(caliber_test_lazy, LAZY, "computes once, then returns at once")
CHEATER(caliber_test_drift, DRIFT, "drifts after 5 calls")
CHEATER(caliber_test_same_pointer, SAME_POINTER, "skips the work on the same input pointer")
CHEATER(caliber_test_memo_pointer, MEMO_POINTER, "copies a remembered output on the same input pointer")
CHEATER(caliber_test_subset_rows, SUBSET_ROWS, "never writes a band of rows")
CHEATER(caliber_test_touch_inputs, TOUCH_INPUTS, "overwrites its first input")
CHEATER(caliber_test_sniff_output, SNIFF_OUTPUT, "computes only on a poisoned output")
CHEATER(caliber_test_content_memo, CONTENT_MEMO, "copies its last output back when a sample of its input repeats")
CHEATER(caliber_test_gap_skip, GAP_SKIP, "skips the work when called within 20 us of its previous return")
CHEATER(caliber_test_memo_seen, MEMO_SEEN, "computes once, then only copies back outputs of inputs it remembers")

EXPORT caliber_status caliber_test_correct(uint32_t abi, const char* op, caliber_provider_v1* out, char* e, size_t s) {
  (void)abi, (void)op, (void)e, (void)s;
  return fill(out, CORRECT, CALIBER_BACKEND_HOST, "test plugin: correct");
}
EXPORT caliber_status caliber_test_wrong(uint32_t abi, const char* op, caliber_provider_v1* out, char* e, size_t s) {
  (void)abi, (void)op, (void)e, (void)s;
  return fill(out, WRONG, CALIBER_BACKEND_HOST, "test plugin: deliberately wrong");
}
EXPORT caliber_status caliber_test_fail(uint32_t abi, const char* op, caliber_provider_v1* out, char* e, size_t s) {
  (void)abi, (void)op, (void)e, (void)s;
  return fill(out, FAIL, CALIBER_BACKEND_HOST, "test plugin: run() fails");
}
EXPORT caliber_status caliber_test_crash(uint32_t abi, const char* op, caliber_provider_v1* out, char* e, size_t s) {
  (void)abi, (void)op, (void)e, (void)s;
  return fill(out, CRASH, CALIBER_BACKEND_HOST, "test plugin: aborts at m == 13");
}
EXPORT caliber_status caliber_test_hang(uint32_t abi, const char* op, caliber_provider_v1* out, char* e, size_t s) {
  (void)abi, (void)op, (void)e, (void)s;
  return fill(out, HANG, CALIBER_BACKEND_HOST, "test plugin: hangs at m == 13");
}
EXPORT caliber_status caliber_test_fork_crash(uint32_t abi, const char* op, caliber_provider_v1* out, char* e,
                                              size_t s) {
  (void)abi, (void)op, (void)e, (void)s;
  return fill(out, FORK_CRASH, CALIBER_BACKEND_HOST, "test plugin: forks a child, then aborts, at m == 13");
}
EXPORT caliber_status caliber_test_forge_event(uint32_t abi, const char* op, caliber_provider_v1* out, char* e,
                                               size_t s) {
  (void)abi, (void)op, (void)e, (void)s;
  return fill(out, FORGE_EVENT, CALIBER_BACKEND_HOST, "test plugin: writes a fatal event on fd 3 at m == 13");
}
EXPORT caliber_status caliber_test_forge_server(uint32_t abi, const char* op, caliber_provider_v1* out, char* e,
                                                size_t s) {
  (void)abi, (void)op, (void)e, (void)s;
  return fill(out, FORGE_SERVER, CALIBER_BACKEND_HOST,
              "test plugin: writes a device server's job_done on its sockets, then aborts, at m == 13");
}
EXPORT caliber_status caliber_test_aligned(uint32_t abi, const char* op, caliber_provider_v1* out, char* e, size_t s) {
  (void)abi, (void)op, (void)e, (void)s;
  return fill(out, ALIGNED, CALIBER_BACKEND_HOST, "test plugin: checks every buffer's alignment on every call");
}
EXPORT caliber_status caliber_test_flaky(uint32_t abi, const char* op, caliber_provider_v1* out, char* e, size_t s) {
  (void)abi, (void)op, (void)e, (void)s;
  return fill(out, FLAKY, CALIBER_BACKEND_HOST, "test plugin: aborts at m == 13 on its first attempt");
}
EXPORT caliber_status caliber_test_leave_thread(uint32_t abi, const char* op, caliber_provider_v1* out, char* e,
                                                size_t s) {
  (void)abi, (void)op, (void)e, (void)s;
  return fill(out, LEAVE_THREAD, CALIBER_BACKEND_HOST, "test plugin: leaves a thread running");
}
EXPORT caliber_status caliber_test_fp32_only(uint32_t abi, const char* op, caliber_provider_v1* out, char* e, size_t s) {
  (void)abi, (void)op, (void)e, (void)s;
  return fill(out, FP32_ONLY, CALIBER_BACKEND_HOST, "test plugin: fp32 only");
}
EXPORT caliber_status caliber_test_cuda(uint32_t abi, const char* op, caliber_provider_v1* out, char* e, size_t s) {
  (void)abi, (void)op, (void)e, (void)s;
  return fill(out, CORRECT, CALIBER_BACKEND_CUDA, "test plugin: claims the cuda backend");
}
EXPORT caliber_status caliber_test_abi_v99(uint32_t abi, const char* op, caliber_provider_v1* out, char* e, size_t s) {
  (void)abi, (void)op, (void)e, (void)s;
  fill(out, CORRECT, CALIBER_BACKEND_HOST, "test plugin: ABI 99");
  out->abi_version = 99;
  return CALIBER_OK;
}
EXPORT caliber_status caliber_test_refuse(uint32_t abi, const char* op, caliber_provider_v1* out, char* e, size_t s) {
  (void)abi, (void)op, (void)out;
  snprintf(e, s, "no licence for this machine");
  return CALIBER_ERROR;
}
EXPORT caliber_status caliber_test_entry_exits(uint32_t abi, const char* op, caliber_provider_v1* out, char* e,
                                               size_t s) {
  (void)abi, (void)op, (void)out, (void)e, (void)s;
  exit(0);
}
EXPORT caliber_status caliber_test_entry_crashes(uint32_t abi, const char* op, caliber_provider_v1* out, char* e,
                                                 size_t s) {
  (void)abi, (void)op, (void)out, (void)e, (void)s;
  raise(SIGSEGV);
  return CALIBER_ERROR;
}
EXPORT caliber_status caliber_test_entry_hangs(uint32_t abi, const char* op, caliber_provider_v1* out, char* e,
                                               size_t s) {
  (void)abi, (void)op, (void)out, (void)e, (void)s;
  sleep(3600);
  return CALIBER_ERROR;
}
EXPORT caliber_status caliber_test_entry_speaks(uint32_t abi, const char* op, caliber_provider_v1* out, char* e,
                                                size_t s) {
  (void)abi, (void)op, (void)e, (void)s;
  static const char line[] = "{\"event\":\"progress\"}\n";
  ssize_t written = write(3, line, sizeof line - 1);
  (void)written;
  return fill(out, CORRECT, CALIBER_BACKEND_HOST, "test plugin: speaks on descriptor 3 in its entry");
}
EXPORT caliber_status caliber_test_long_detail(uint32_t abi, const char* op, caliber_provider_v1* out, char* e,
                                               size_t s) {
  (void)abi, (void)op, (void)e, (void)s;
  static char* detail;
  if (!detail) {
    detail = malloc((4u << 20) + 1);
    if (!detail) return CALIBER_ERROR;
    memset(detail, 'd', 4u << 20);
    detail[4u << 20] = '\0';
  }
  return fill(out, CORRECT, CALIBER_BACKEND_HOST, detail);
}
EXPORT caliber_status caliber_test_configurable(uint32_t abi, const char* op, caliber_provider_v1* out, char* e,
                                                size_t s) {
  (void)abi, (void)op, (void)e, (void)s;
  fill(out, CONFIGURABLE, CALIBER_BACKEND_HOST, "test plugin: chooses a variant");
  out->pin_config = pin_config;
  out->chosen_config = chosen_config;
  return CALIBER_OK;
}
EXPORT caliber_status caliber_test_base_struct(uint32_t abi, const char* op, caliber_provider_v1* out, char* e,
                                               size_t s) {
  (void)abi, (void)op, (void)e, (void)s;
  /* What a plugin built against the header before pin_config existed writes: the base struct only. */
  memset(out, 0, CALIBER_PROVIDER_V1_BASE_SIZE);
  out->abi_version = CALIBER_PLUGIN_ABI_VERSION;
  out->struct_size = CALIBER_PROVIDER_V1_BASE_SIZE;
  out->backend = CALIBER_BACKEND_HOST;
  out->detail = "test plugin: the struct before the config callbacks";
  out->state = (void*)(intptr_t)CORRECT;
  out->supports = supports;
  out->prepare = prepare;
  out->run = run;
  return CALIBER_OK;
}
EXPORT caliber_status caliber_test_half_config(uint32_t abi, const char* op, caliber_provider_v1* out, char* e,
                                               size_t s) {
  (void)abi, (void)op, (void)e, (void)s;
  fill(out, CORRECT, CALIBER_BACKEND_HOST, "test plugin: pin_config without chosen_config");
  out->pin_config = pin_config;
  return CALIBER_OK;
}
