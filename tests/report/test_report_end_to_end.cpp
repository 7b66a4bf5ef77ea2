// The reports end to end from a real host-backend run: rmsnorm providers timed with caliber::measure
// on the host backend, rows appended with BenchmarkResultsAppender, the host calibrated with
// `caliber calibrate`, then `caliber report` and the HTML in headless Chromium.
//
// Until issue 4's runner is merged this test makes the run through the library; the lead switches
// it to `caliber run --backend host` after the merge.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "backends/host/host_backend.h"
#include "backends/host/host_builtin_kernels.h"
#include "caliber/benchmark_results.h"
#include "caliber/measure.h"
#include "caliber/shape_ledger.h"
#include "support/headless_chromium.h"
#include "support/report_rows.h"
#include "support/run_cli.h"

namespace caliber {
namespace {

namespace fs = std::filesystem;
using testing_support::ledger_shape;

constexpr double kEps = 1e-6;

struct Problem {
  std::int64_t m, n;
  std::vector<float> x, w, y;
};

// y = x / sqrt(mean(x^2) + eps) * w, accumulated in double, one row at a time.
void rmsnorm_naive(Problem& p) {
  for (std::int64_t r = 0; r < p.m; ++r) {
    const float* x = &p.x[static_cast<std::size_t>(r * p.n)];
    double ss = 0;
    for (std::int64_t i = 0; i < p.n; ++i) ss += static_cast<double>(x[i]) * x[i];
    const double inv = 1.0 / std::sqrt(ss / static_cast<double>(p.n) + kEps);
    for (std::int64_t i = 0; i < p.n; ++i) {
      p.y[static_cast<std::size_t>(r * p.n + i)] = static_cast<float>(x[i] * inv * p.w[static_cast<std::size_t>(i)]);
    }
  }
}

// The same in float with four independent accumulators (vectorizes).
void rmsnorm_unrolled(Problem& p) {
  for (std::int64_t r = 0; r < p.m; ++r) {
    const float* x = &p.x[static_cast<std::size_t>(r * p.n)];
    float* y = &p.y[static_cast<std::size_t>(r * p.n)];
    float acc[4] = {0, 0, 0, 0};
    std::int64_t i = 0;
    for (; i + 4 <= p.n; i += 4) {
      for (int k = 0; k < 4; ++k) acc[k] += x[i + k] * x[i + k];
    }
    for (; i < p.n; ++i) acc[0] += x[i] * x[i];
    const float inv = 1.0f / std::sqrt((acc[0] + acc[1] + acc[2] + acc[3]) / static_cast<float>(p.n) + 1e-6f);
    for (std::int64_t j = 0; j < p.n; ++j) y[j] = x[j] * inv * p.w[static_cast<std::size_t>(j)];
  }
}

// Deliberately wrong: forgets the weight. Its row must be kept, marked incorrect, never averaged.
void rmsnorm_broken(Problem& p) {
  rmsnorm_unrolled(p);
  for (std::size_t i = 0; i < p.y.size(); ++i) p.y[i] /= p.w[i % static_cast<std::size_t>(p.n)];
}

// Largest relative error against an fp64 reference.
double max_relative_error(const Problem& p, double eps) {
  double worst = 0;
  for (std::int64_t r = 0; r < p.m; ++r) {
    double ss = 0;
    for (std::int64_t i = 0; i < p.n; ++i) {
      const double v = p.x[static_cast<std::size_t>(r * p.n + i)];
      ss += v * v;
    }
    const double inv = 1.0 / std::sqrt(ss / static_cast<double>(p.n) + eps);
    for (std::int64_t i = 0; i < p.n; ++i) {
      const auto k = static_cast<std::size_t>(r * p.n + i);
      const double ref = p.x[k] * inv * p.w[static_cast<std::size_t>(i)];
      worst = std::max(worst, std::abs(p.y[k] - ref) / std::abs(ref));
    }
  }
  return worst;
}

TEST(ReportEndToEnd, HostRunToSummaryCoverageAndHtml) {
  const std::string dir = testing_support::temp_path("e2e-report");
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::vector<ShapeRow> ledger = {
      ledger_shape(64, 1024, "test-model", Stage::prefill, SourceKind::model_config, DType::fp32),
      ledger_shape(256, 2048, "test-model", Stage::prefill, SourceKind::model_config, DType::fp32),
      ledger_shape(1, 2048, "test-model", Stage::decode, SourceKind::model_config, DType::fp32),
      ledger_shape(3, 1000, std::nullopt, Stage::synthetic, SourceKind::synthetic, DType::fp32),
  };
  write_shape_ledger(dir + "/shape_ledger.jsonl", ledger);

  host::HostBackend backend;
  Contract kernel_only = default_contract(BackendKind::host);
  kernel_only.cache = CachePolicy::warm;
  kernel_only.warmup = 2;
  kernel_only.iterations.mode = IterationRule::Mode::fixed;
  kernel_only.iterations.count = 15;
  const std::vector<std::pair<std::string, void (*)(Problem&)>> providers = {
      {"caliber", rmsnorm_unrolled}, {"naive", rmsnorm_naive}, {"broken", rmsnorm_broken}};
  {
    BenchmarkResultsAppender appender(dir + "/benchmark_results.jsonl");
    for (const ShapeRow& s : ledger) {
      Problem p;
      p.m = s.args["m"].get<std::int64_t>();
      p.n = s.args["n"].get<std::int64_t>();
      p.x.resize(static_cast<std::size_t>(p.m * p.n));
      p.w.resize(static_cast<std::size_t>(p.n));
      p.y.resize(p.x.size());
      host::fill_random(p.x.data(), p.x.size(), 1);
      host::fill_random(p.w.data(), p.w.size(), 2);
      for (const auto& [name, fn] : providers) {
        std::fill(p.y.begin(), p.y.end(), std::nanf(""));
        fn(p);
        const double error = max_relative_error(p, s.args["eps"].get<double>());
        MeasureOptions mo;
        mo.name = "rmsnorm/" + name;
        mo.keep_samples = true;
        auto call = fn;
        Result r = measure(backend, [&p, call](const LaunchContext&) { call(p); }, kernel_only, mo);
        BenchmarkResultRow row;
        row.run_id = "e2e-host";
        row.shape_id = s.shape_id;
        row.op_type = s.op_type;
        row.kernel_name = s.kernel_name;
        row.dtype = "fp32";
        row.args = s.args;
        row.provider = name;
        row.provider_detail = name + " host loop";
        row.candidate_commit = "test";
        row.harness_version = "test";
        row.backend = "host";
        row.gpu = backend.device().name;
        row.arch = backend.device().arch;
        row.driver_version = backend.device().driver_version;
        row.runtime_version = backend.device().runtime_version;
        row.correct = error < 1e-4;
        row.correctness = CorrectnessCheck{error, error / 1e-4, 0, p.m, p.m, 1e-4, 1e-4, 0};
        row.warmup_iters = kernel_only.warmup;
        row.repeat_iters = r.summary.n;
        row.benchmark_status = *row.correct ? BenchmarkStatus::ok : BenchmarkStatus::incorrect;
        if (!*row.correct) {
          row.status_reason = "output failed the correctness check";
          row.correctness_error = "max relative error " + std::to_string(error);
        }
        row.median_us = r.value_us;
        row.p10_us = r.summary.p10_us;
        row.p90_us = r.summary.p90_us;
        row.stable = r.stable;
        row.timing_method = "kernel_only=wallclock/isolated/warm";
        row.bytes = static_cast<std::uint64_t>((2 * p.m * p.n + p.n) * 4);
        row.flops = static_cast<std::uint64_t>(4 * p.m * p.n);
        row.kernel_only = std::move(r);
        row.finished_at = "2026-11-29T12:00:00Z";
        appender.append(row);
      }
    }
  }
  ASSERT_EQ(read_benchmark_results(dir + "/benchmark_results.jsonl").size(), 12u);

  const std::uint64_t copy = 4 * backend.device().llc_bytes;
  auto r = testing_support::run_cli("calibrate --backend host --out " + dir + "/device_ceilings.json --copy-size " +
                                    std::to_string(copy) + " --matmul-size 128 --max-time-ms 100");
  ASSERT_EQ(r.exit_code, 0) << r.err;

  r = testing_support::run_cli_in(dir,
                                  "report --shape-ledger shape_ledger.jsonl --results benchmark_results.jsonl "
                                  "--candidate caliber --ceilings device_ceilings.json --out reports");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string summary = testing_support::read_file_text(dir + "/reports/benchmark_summary.md");
  EXPECT_NE(summary.find("# Benchmark summary: rmsnorm, candidate `caliber`\n"), std::string::npos) << summary;
  EXPECT_NE(summary.find("- Shape ledger: `shape_ledger.jsonl` (4 shapes, 3 hot: model-derived)\n"), std::string::npos);
  EXPECT_NE(summary.find("- Ceilings: memory "), std::string::npos) << summary;  // this host was calibrated
  EXPECT_NE(summary.find("- Kernel-only contract: host wallclock/isolated/warm, median, warmup 2, iterations fixed:15\n"),
            std::string::npos)
      << summary;
  bool verdict = false;
  for (const char* v : {"promote", "promote_with_guardrails", "tune_needed", "rewrite_needed", "blocked"}) {
    verdict = verdict || summary.find(std::string("## Decision\n\n**") + v + "** (rule D") != std::string::npos;
  }
  EXPECT_TRUE(verdict) << summary;
  // The broken provider is listed, never averaged in.
  for (const ShapeRow& s : ledger) {
    EXPECT_NE(summary.find("| " + s.shape_id + " | broken | incorrect | false | incorrect: output failed the "
                           "correctness check; max relative error"),
              std::string::npos)
        << s.shape_id;
  }
  const std::string coverage = testing_support::read_file_text(dir + "/reports/coverage_matrix.md");
  EXPECT_NE(coverage.find("| incorrect | 0 | 0 | 4 | 4 |\n"), std::string::npos) << coverage;
  EXPECT_NE(coverage.find("| missing | 0 | 0 | 0 | 0 |\n"), std::string::npos) << coverage;

  const std::string chromium = testing_support::find_chromium();
  if (chromium.empty()) {
    GTEST_SKIP() << "chromium is not installed (Debian package 'chromium'): report.html was not opened";
  }
  testing_support::expect_report_page_renders(chromium, dir + "/reports/report.html", ledger.size(),
                                              /*require_comparisons=*/false);
}

}  // namespace
}  // namespace caliber
