/* caliber provider plugins: a versioned C ABI (docs/plugins.md).
 *
 * A plugin is a shared library that exports one entry function per provider. The baseline
 * matrix names it as `entrypoint: path/to/libfoo.so:symbol`; caliber dlopens the library,
 * looks the symbol up and calls it with the ABI version it speaks and the op it needs. The
 * entry fills a caliber_provider_v1. caliber then calls supports() per shape, prepare() once per
 * shape outside every timed window, run() once per call (inside the timed windows), and
 * destroy() at the end. A provider that chooses a configuration per shape also fills
 * pin_config() and chosen_config(), so its choice is recorded and can be replayed.
 *
 * Rules:
 *  - The entry function must not touch the device: it is called in a process that has not
 *    initialized CUDA (the runner's parent) as well as in the measuring worker.
 *  - run() launches only the work under test. cuda: enqueue on `buffers->stream`
 *    (a cudaStream_t), do not synchronize, do not allocate; host: compute and return.
 *    Work that run() does beyond the op (allocation, layout conversion, JIT) must be declared
 *    with the CALIBER_INCLUDES_* flags; results rows carry them.
 *  - Pointers in caliber_buffers_v1 are device pointers on the cuda backend, host pointers on
 *    the host backend; tensors are contiguous, row-major, in the problem's dtype. Every pointer
 *    (inputs and outputs, v1 and v2, every call, the fresh and rotated copies included) starts
 *    at a multiple of CALIBER_BUFFER_ALIGNMENT_HOST bytes on the host backend and of
 *    CALIBER_BUFFER_ALIGNMENT_CUDA on the cuda backend (what cudaMalloc returns): vector loads
 *    of up to 64 bytes (AVX-512) and 16-byte CUDA loads need no peeling at a tensor's start.
 *  - Inputs, in order: rmsnorm: x[m,n], weight[n]; layernorm: x[m,n], weight[n], bias[n];
 *    softmax: x[m,n]; gemm: a[m,k], b[k,n]. Output: y[m,n] (gemm: c[m,n]). fp32 accumulation.
 *  - Strings a plugin returns (detail) must stay valid until destroy().
 *  - Error and reason texts are written NUL-terminated into the caller's buffer (one line).
 *
 * The above is version 1, the ABI of the four shipped ops. Version 2 (below) is for ops of your
 * own, defined by an op description (docs/user-ops.md): its entry fills a caliber_provider_v2,
 * whose callbacks get a caliber_problem_v2 (the op's args by name, any number of input and output
 * tensors with their extents) and a caliber_buffers_v2 (one pointer per tensor). v1 plugins still
 * load for the shipped ops.
 */
#ifndef CALIBER_PLUGIN_ABI_H
#define CALIBER_PLUGIN_ABI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CALIBER_PLUGIN_ABI_VERSION 1u
/* The alignment, in bytes, of every buffer pointer caliber passes to a provider (see Rules). */
#define CALIBER_BUFFER_ALIGNMENT_HOST 64u
#define CALIBER_BUFFER_ALIGNMENT_CUDA 256u

typedef enum caliber_dtype {
  CALIBER_DTYPE_FP32 = 1,
  CALIBER_DTYPE_BF16 = 2,
  CALIBER_DTYPE_FP16 = 3,
  CALIBER_DTYPE_FP64 = 4,
  /* The element types only a described op's tensors name (ABI v2, input_dtypes/output_dtypes). */
  CALIBER_DTYPE_FP8_E4M3 = 5, /* OCP fp8 e4m3 ("fn": no infinity, max 448) */
  CALIBER_DTYPE_FP8_E5M2 = 6, /* OCP fp8 e5m2 */
  CALIBER_DTYPE_INT8 = 7,
  CALIBER_DTYPE_UINT8 = 8,
  CALIBER_DTYPE_INT32 = 9,
  CALIBER_DTYPE_INT64 = 10,
  CALIBER_DTYPE_BOOL = 11 /* one byte, 0 or 1 */
} caliber_dtype;

typedef enum caliber_backend {
  CALIBER_BACKEND_HOST = 1,
  CALIBER_BACKEND_CUDA = 2
} caliber_backend;

typedef enum caliber_status {
  CALIBER_OK = 0,
  CALIBER_UNSUPPORTED = 1, /* supports(): this shape is not supported; entry: op not offered */
  CALIBER_ERROR = 2        /* anything else; the text says what */
} caliber_status;

/* A plugin may declare the compiler flags it was built with; caliber records them in its rows'
 * provider_detail ("... (built with: -O3 -march=x86-64-v3)"), so that numbers of builds with
 * other flags never read the same. In one source file of the library, at file scope:
 *   CALIBER_DECLARE_BUILD_FLAGS("-O3 -mavx2 -mfma")
 * (a build system passes its own: -DPLUGIN_FLAGS="\"${CMAKE_C_FLAGS}\"" and
 * CALIBER_DECLARE_BUILD_FLAGS(PLUGIN_FLAGS)). One line, at most 512 bytes are recorded. */
#define CALIBER_BUILD_FLAGS_SYMBOL "caliber_plugin_build_flags"
#ifdef __cplusplus
#define CALIBER_DECLARE_BUILD_FLAGS(flags) \
  extern "C" __attribute__((visibility("default"))) const char caliber_plugin_build_flags[] = flags;
#else
#define CALIBER_DECLARE_BUILD_FLAGS(flags) \
  __attribute__((visibility("default"))) const char caliber_plugin_build_flags[] = flags;
#endif

/* Honesty flags: what run() does besides the op. */
#define CALIBER_INCLUDES_ALLOCATION 1u
#define CALIBER_INCLUDES_LAYOUT_CONVERSION 2u
#define CALIBER_INCLUDES_JIT 4u

typedef struct caliber_problem_v1 {
  const char* op_type; /* "rmsnorm" | "layernorm" | "softmax" | "gemm" */
  caliber_dtype dtype;
  const char* layout;  /* "row_major" */
  int64_t m;           /* rows (gemm: rows of A and C) */
  int64_t n;           /* columns (gemm: columns of B and C) */
  int64_t k;           /* gemm: reduction dimension; 0 otherwise */
  double eps;          /* rmsnorm, layernorm; 0 otherwise */
  const char* args_json; /* the ledger row's args as compact JSON, e.g. {"eps":1e-06,"m":8,"n":64} */
} caliber_problem_v1;

typedef struct caliber_buffers_v1 {
  const void* const* inputs; /* input_count pointers, in the op's order (see above) */
  int32_t input_count;
  void* output;
  void* stream; /* cudaStream_t on the cuda backend; NULL on the host backend */
} caliber_buffers_v1;

typedef struct caliber_provider_v1 {
  uint32_t abi_version; /* CALIBER_PLUGIN_ABI_VERSION the plugin was built against */
  uint32_t struct_size; /* sizeof(caliber_provider_v1) */
  caliber_backend backend;
  uint32_t flags;       /* CALIBER_INCLUDES_* */
  const char* detail;   /* provider_detail in results rows: what runs, e.g. "cblas_sgemm (OpenBLAS 0.3.21)" */
  void* state;          /* passed back to every callback */
  /* CALIBER_OK or CALIBER_UNSUPPORTED (with a reason); must not crash on any shape. NULL: all. */
  caliber_status (*supports)(void* state, const caliber_problem_v1* problem, char* reason,
                             size_t reason_size);
  /* Once per shape before any run(), outside timing. NULL: nothing to prepare. */
  caliber_status (*prepare)(void* state, const caliber_problem_v1* problem, char* error,
                            size_t error_size);
  /* One call of the op. */
  caliber_status (*run)(void* state, const caliber_problem_v1* problem,
                        const caliber_buffers_v1* buffers, char* error, size_t error_size);
  /* Releases `state`. NULL: nothing to release. */
  void (*destroy)(void* state);

  /* Configs recorded and replayed (docs/plugins.md, "A provider that chooses"): for a provider
   * that chooses a configuration per shape (an autotuner). Both NULL, or struct_size ==
   * CALIBER_PROVIDER_V1_BASE_SIZE (a plugin built before they existed): it chooses none.
   * pin_config(): before prepare(); `config` is a text chosen_config() wrote earlier (perhaps in
   * another process), and the next prepare() must use it instead of choosing, or pin_config()
   * returns CALIBER_ERROR saying why it cannot. NULL `config`: choose freely again.
   * chosen_config(): after prepare(); writes the choice as one line (NUL-terminated, at most
   * config_size bytes) into `config` and a description for people into `description`, or returns
   * CALIBER_UNSUPPORTED when it chose nothing for this shape. */
  caliber_status (*pin_config)(void* state, const char* config, char* error, size_t error_size);
  caliber_status (*chosen_config)(void* state, char* config, size_t config_size, char* description,
                                  size_t description_size);
} caliber_provider_v1;

/* The size of caliber_provider_v1 before pin_config and chosen_config: plugins that report it
 * keep loading. */
#define CALIBER_PROVIDER_V1_BASE_SIZE (offsetof(caliber_provider_v1, pin_config))

/* The entry function a matrix entrypoint names. `caliber_abi_version` is the version caliber
 * speaks; a plugin that cannot serve it returns CALIBER_ERROR. Return CALIBER_UNSUPPORTED when
 * the plugin does not offer `op_type`. */
typedef caliber_status (*caliber_plugin_entry_v1)(uint32_t caliber_abi_version, const char* op_type,
                                                  caliber_provider_v1* provider, char* error,
                                                  size_t error_size);

/* ---------------------------------------------------------------------------------------------
 * ABI version 2: providers of a described op (docs/user-ops.md).
 *
 * An op that is not one of the four shipped ops is defined by an op description (a YAML file the
 * baseline matrix names): its arguments, its input and output tensors (shapes as formulas of the
 * arguments), its byte and flop counts and its reference. Its providers are plugins that export a
 * caliber_plugin_entry_v2. caliber calls a matrix entrypoint as a v2 entry exactly when the
 * matrix's op is described; the four shipped ops keep calling v1 entries, so v1 plugins keep
 * loading unchanged.
 *
 * The rules of version 1 hold (no device work in the entry, run() only enqueues on
 * buffers->stream on cuda, strings valid until destroy(), one-line texts), and:
 *  - Every tensor is contiguous and row-major; dims[] are its extents, outermost first. Its
 *    element type is input_dtypes[k] / output_dtypes[k]: the problem's dtype unless the
 *    description names another for it (docs/user-ops.md, "Tensor dtypes"); in a reference
 *    problem, every floating-point tensor is in the reference's precision, integer tensors in
 *    their own type.
 *  - Inputs and outputs come in the order of the description. run() writes every element of
 *    every output and reads the inputs only: caliber checks both. An output the description
 *    updates in place (`in_place: NAME`) is that input's buffer: outputs[k] == inputs[j]; write
 *    the result through it (caliber restores its original values before each verified call).
 * --------------------------------------------------------------------------------------------- */

#define CALIBER_PLUGIN_ABI_VERSION_2 2u

typedef struct caliber_tensor_v2 {
  const char* name;     /* as the description names it */
  int32_t rank;         /* number of dims */
  const int64_t* dims;  /* rank extents, outermost first */
  int64_t elements;     /* product of dims */
} caliber_tensor_v2;

typedef struct caliber_problem_v2 {
  const char* op_type;   /* the description's op name, e.g. "add_rmsnorm" */
  caliber_dtype dtype;   /* the shape's dtype: of every tensor the description gives no dtype of */
  const char* layout;    /* "row_major" */
  const char* args_json; /* the ledger row's args as compact JSON, keys sorted */
  int32_t arg_count;
  const char* const* arg_names; /* arg_count names, in the description's order */
  const double* arg_values;     /* their values (integers are exact) */
  int32_t input_count;
  const caliber_tensor_v2* inputs;
  int32_t output_count;
  const caliber_tensor_v2* outputs;
  const char* description_sha256; /* hex SHA-256 of the description file's bytes */
  /* Each tensor's element type, in the order of inputs and outputs (appended after the fields
   * above: a plugin built before them reads none of them and sees the same layout). */
  const caliber_dtype* input_dtypes;
  const caliber_dtype* output_dtypes;
} caliber_problem_v2;

typedef struct caliber_buffers_v2 {
  const void* const* inputs; /* input_count pointers, in the description's order */
  int32_t input_count;
  void* const* outputs;      /* output_count pointers, in the description's order */
  int32_t output_count;
  void* stream;              /* cudaStream_t on the cuda backend; NULL on the host backend */
} caliber_buffers_v2;

/* Arg values by name, for plugins: the value of `name`, or `fallback` when there is none. */
static inline double caliber_arg_v2(const caliber_problem_v2* p, const char* name, double fallback) {
  for (int32_t i = 0; i < p->arg_count; ++i) {
    const char* a = p->arg_names[i];
    const char* b = name;
    while (*a && *a == *b) {
      ++a;
      ++b;
    }
    if (*a == 0 && *b == 0) return p->arg_values[i];
  }
  return fallback;
}

typedef struct caliber_provider_v2 {
  uint32_t abi_version; /* CALIBER_PLUGIN_ABI_VERSION_2 */
  uint32_t struct_size; /* sizeof(caliber_provider_v2) */
  caliber_backend backend;
  uint32_t flags;       /* CALIBER_INCLUDES_* */
  const char* detail;   /* provider_detail in results rows */
  void* state;          /* passed back to every callback */
  /* As in v1, with the v2 problem. supports() NULL: every problem. prepare() NULL: nothing. */
  caliber_status (*supports)(void* state, const caliber_problem_v2* problem, char* reason,
                             size_t reason_size);
  caliber_status (*prepare)(void* state, const caliber_problem_v2* problem, char* error,
                            size_t error_size);
  caliber_status (*run)(void* state, const caliber_problem_v2* problem,
                        const caliber_buffers_v2* buffers, char* error, size_t error_size);
  void (*destroy)(void* state);
  /* As in v1: both NULL (it chooses nothing) or both set. */
  caliber_status (*pin_config)(void* state, const char* config, char* error, size_t error_size);
  caliber_status (*chosen_config)(void* state, char* config, size_t config_size, char* description,
                                  size_t description_size);
} caliber_provider_v2;

/* The entry function of a described op's provider. caliber passes CALIBER_PLUGIN_ABI_VERSION_2
 * and the op's name; return CALIBER_UNSUPPORTED when the plugin does not offer that op. */
typedef caliber_status (*caliber_plugin_entry_v2)(uint32_t caliber_abi_version, const char* op_type,
                                                  caliber_provider_v2* provider, char* error,
                                                  size_t error_size);

#ifdef __cplusplus
}
#endif

#endif /* CALIBER_PLUGIN_ABI_H */
