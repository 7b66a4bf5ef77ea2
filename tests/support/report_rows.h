// Literal ledger and results rows for the report tests.
#pragma once

#include <optional>
#include <string>

#include "results/benchmark_results.h"
#include "ledger/shape_ledger.h"

namespace caliber::testing_support {

inline ShapeRow ledger_shape(std::int64_t m, std::int64_t n, std::optional<std::string> model = "llama-3-8b",
                             Stage stage = Stage::prefill, SourceKind kind = SourceKind::model_config,
                             DType dtype = DType::bf16) {
  ShapeRow s;
  s.op_type = "rmsnorm";
  s.kernel_name = "rmsnorm";
  s.model = std::move(model);
  s.stage = stage;
  s.arch = "sm_90";
  s.gpu = "NVIDIA H200";
  s.dtype = dtype;
  s.args = {{"m", m}, {"n", n}, {"eps", 1e-6}};
  s.source.kind = kind;
  s.source.origin = "test";
  s.shape_id = stable_shape_id(s);
  return s;
}

inline Result kernel_only_measurement(double median_us, int multiprocessors = 132) {
  Result r;
  r.name = "rmsnorm";
  r.device.backend = BackendKind::cuda;
  r.device.name = "NVIDIA H200";
  r.device.arch = "sm_90";
  r.device.uuid = "GPU-test";
  r.device.multiprocessors = multiprocessors;
  r.contract = default_contract(BackendKind::cuda);
  r.contract.schedule = Schedule::graph;
  r.contract.cache = CachePolicy::warm;
  r.value_us = median_us;
  r.summary.n = 3;
  r.summary.min_us = r.summary.p10_us = r.summary.p25_us = median_us * 0.99;
  r.summary.median_us = median_us;
  r.summary.p75_us = r.summary.p90_us = r.summary.max_us = median_us * 1.01;
  r.summary.mean_us = median_us;
  r.stable = true;
  r.samples_us = {median_us * 0.99, median_us, median_us * 1.01};
  return r;
}

// A correct, stable, timed row.
inline BenchmarkResultRow ok_result(const ShapeRow& shape, const std::string& provider, double median_us,
                                    std::optional<double> eager_us = std::nullopt) {
  BenchmarkResultRow r;
  r.run_id = "run-1";
  r.shape_id = shape.shape_id;
  r.op_type = shape.op_type;
  r.kernel_name = shape.kernel_name;
  r.dtype = std::string(to_string(shape.dtype));
  r.args = shape.args;
  r.provider = provider;
  r.provider_detail = provider + " kernel";
  r.backend = "cuda";
  r.gpu = "NVIDIA H200";
  r.arch = "sm_90";
  r.correct = true;
  r.benchmark_status = BenchmarkStatus::ok;
  r.median_us = median_us;
  r.p10_us = median_us * 0.99;
  r.p90_us = median_us * 1.01;
  r.stable = true;
  r.kernel_only = kernel_only_measurement(median_us);
  r.integrity.record(integrity_check::output_after_timing, CheckOutcome::passed, "the fixture's rows are verified");
  if (eager_us) {
    r.eager_median_us = eager_us;
    r.host_overhead_us = *eager_us - median_us;
  }
  return r;
}

// A row that did not produce a timing.
inline BenchmarkResultRow status_result(const ShapeRow& shape, const std::string& provider, BenchmarkStatus status,
                                        const std::string& reason) {
  BenchmarkResultRow r = ok_result(shape, provider, 1.0);
  r.benchmark_status = status;
  r.status_reason = reason;
  r.correct.reset();
  r.median_us.reset();
  r.p10_us.reset();
  r.p90_us.reset();
  r.stable.reset();
  r.kernel_only.reset();
  return r;
}

}  // namespace caliber::testing_support
