/*
 * caliber's C API: the measurement engine behind a small, stable C ABI (libcaliber_c.so).
 *
 * It exists for callers that are not C++ built with this compiler: the Python package
 * (python/caliber, loaded with ctypes, so one build serves every Python version), and any
 * language with a C foreign-function interface. docs/python.md explains the choice.
 *
 * Requests and results cross as JSON text (UTF-8, NUL-terminated), so the ABI does not change
 * when a contract field is added: the request names the contract fields it sets, the result is
 * exactly the object `caliber bench --json` writes for one result (schemas/results.schema.json).
 * The timer, the contract checks and the integrity checks are the C++ core's (caliber::measure).
 *
 * Every function is thread-compatible (no global state besides the backends' own); none throws.
 */
#ifndef CALIBER_C_API_H
#define CALIBER_C_API_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Bumped when a function is added or a function's signature or meaning changes.
 * 2: caliber_measure_checked_json (fresh inputs drawn by the caller, docs/integrity.md).
 * 3: caliber_run_identity_json (the identity caliber compare needs beside results).
 */
#define CALIBER_C_API_VERSION 3

/* Return codes of caliber_measure_json and caliber_measure_checked_json. */
#define CALIBER_OK 0
#define CALIBER_ERROR 1 /* *error_json says what: {"kind", "message", "fields"} */

/*
 * One call of the measured function. `stream`: where to launch (a cudaStream_t on the cuda
 * backend, NULL on the host backend). call_index increases by one per call, warmup included;
 * rotation is the input copy to use under cache=rotate (0 otherwise).
 * Return 0 on success; anything else stops the measurement, and caliber_measure_json returns
 * CALIBER_ERROR with kind "callable" (the caller keeps its own record of what went wrong).
 */
typedef int (*caliber_call_fn)(void* user_data, void* stream, uint64_t call_index, uint64_t rotation);

/*
 * Fresh inputs (docs/integrity.md, "Fresh inputs" and "Audited calls"), for
 * caliber_measure_checked_json. Both run outside every timed window.
 *
 * caliber_draw_fn writes new input values, a function of `seed` alone, into the declared inputs
 * (same addresses). caliber calls it before every call that is not a verified one. Return 0 on
 * success; anything else stops the measurement like a failed call (kind "callable").
 *
 * caliber_check_fn judges the outputs of an audited timed call whose inputs the draw wrote from
 * `seed`. Return 0 when they are right for those inputs; 1 when they are wrong, with a one-line
 * reason written to `why` (why_size bytes, NUL-terminated; it holds "" on entry; the result
 * escapes control characters and invalid UTF-8 in it); anything else when the check itself
 * failed, which stops the measurement (kind "callable").
 */
typedef int (*caliber_draw_fn)(void* user_data, uint64_t seed);
typedef int (*caliber_check_fn)(void* user_data, uint64_t seed, char* why, size_t why_size);

/* The C API version this library implements (CALIBER_C_API_VERSION when it was built). */
int caliber_c_api_version(void);

/* The harness version and build, e.g. "0.1.0 (git 1b06e35a1c2d, Release)". Static storage. */
const char* caliber_version_string(void);

/*
 * Measures `call` under the contract of `request_json` (docs/python.md, "Request"):
 *   {"backend": "auto"|"host"|"cuda", "device": 0, "name": "...", "params": {...},
 *    "instrument", "schedule", "cache", "statistic", "warmup", "iterations" | "min_samples",
 *    "min_time_ms", "max_time_ms", "target_precision", "graph_calls", "cupti_reduction",
 *    "cupti_value", "throttle_policy", "measure": "device"|"host-dispatch", "samples": false,
 *    "telemetry": true, "integrity_checks": true, "rtol", "atol",
 *    "rotation_copies", "working_set_bytes" (both with "cache": "rotate", and only then),
 *    "inputs": [{"name", "data": <address>, "bytes", "dtype": "fp32"|"bf16"|"fp16"|null}],
 *    "outputs": [...], "in_place": [...] (read and written by each call, docs/integrity.md)}
 * Absent contract fields take the backend's defaults (caliber::default_contract).
 *
 * On CALIBER_OK, *result_json is the result; on CALIBER_ERROR, *error_json is
 *   {"kind": "usage"|"contract"|"integrity"|"device"|"callable"|"internal",
 *    "message": "...", "fields": ["schedule", ...]}
 * where fields names the request fields that caused a usage or contract error (for a refused
 * contract: the given fields whose default would have made it valid). Both strings are
 * allocated by the library and released with caliber_free_string; either pointer may be NULL.
 */
int caliber_measure_json(const char* request_json, caliber_call_fn call, void* user_data,
                         char** result_json, char** error_json);

/*
 * caliber_measure_json with fresh inputs (C API version 2): before every call that is not a
 * verified one caliber asks `draw` for new input values, and judges the timed calls it audits
 * (drawn at random, after they ran) with `check`; user_data is handed to all three functions.
 * With both, the result's fresh_inputs and audited_calls checks run and its verdict can be
 * "verified"; an audited call that `check` finds wrong makes it "failed". Both NULL: exactly
 * caliber_measure_json (fresh_inputs not_run, the verdict at best "partial"). One of them NULL is a
 * usage error whose fields name the missing one ("draw" or "check").
 */
int caliber_measure_checked_json(const char* request_json, caliber_call_fn call, caliber_draw_fn draw,
                                 caliber_check_fn check, void* user_data, char** result_json,
                                 char** error_json);

/*
 * The results document `caliber bench --json` writes ({"schema_version", "kind", "generator",
 * "complete", "results": [...]}) for a JSON array of results as caliber_measure_json returns
 * them, so that caliber compare and report read results measured through this API.
 * Same return codes and ownership as caliber_measure_json.
 */
int caliber_results_document_json(const char* results_array_json, char** document_json, char** error_json);

/*
 * The run identity (docs/identity.md) of results measured through this API (C API version 3),
 * as caliber bench writes it beside its results file (<stem>.run_identity.json), so that caliber
 * compare accepts them. `request_json`:
 *   {"backend": "host"|"cuda", "device": 0, "harness": "<file whose SHA-256 identifies the
 *    harness, e.g. this library>", "start": <an identity this function returned>,
 *    "results": [<results as caliber_measure_json returns them>], "outputs": ["file names"]}
 * Without "start", the identity is collected now: the device, its clocks and the other processes
 * on it, this process's command line (collect it before measuring, as caliber bench does); with
 * it, that identity is kept. "results" sets its contracts, "outputs" its files.
 * Same return codes and ownership as caliber_measure_json.
 */
int caliber_run_identity_json(const char* request_json, char** identity_json, char** error_json);

/* The backends compiled in and whether each can be opened here, as a JSON array. */
int caliber_backends_json(char** backends_json, char** error_json);

void caliber_free_string(char* s);

/*
 * Python providers (docs/python.md, "Python providers"): a baseline matrix entry
 * `python:FILE.py:NAME` is an object of a Python file, run by a measuring worker that a Python
 * process hosts. That process registers one plugin entry per provider, then runs the worker.
 *
 * caliber_register_provider_entry: `entry` is a caliber_plugin_entry_v1 or _v2
 * (include/caliber/plugin_abi.h; it is called with the ABI version it must fill) serving the
 * provider NAME of the Python file `file` (as the run resolves the matrix's path; compared as a
 * canonical path). Returns CALIBER_OK, or CALIBER_ERROR for a NULL argument.
 *
 * caliber_run_worker: what `caliber __run-worker` runs, with the same arguments (argv[0..argc),
 * no program name), in this process: `caliber run` starts it and speaks its protocol on stdin and
 * the --events-fd descriptor. Returns the worker's exit code.
 *
 * caliber_set_worker_token: the channel token of the first line `caliber run` sent on stdin
 * ({"token": "..."}), for a process that read that line itself before it imported any provider
 * code (the Python worker); caliber_run_worker then takes it instead of reading the line.
 * Returns CALIBER_OK, or CALIBER_ERROR for a NULL or empty token.
 */
int caliber_register_provider_entry(const char* file, const char* name, void* entry);
int caliber_set_worker_token(const char* token);
int caliber_run_worker(int argc, const char* const* argv);

#ifdef __cplusplus
}
#endif

#endif /* CALIBER_C_API_H */
