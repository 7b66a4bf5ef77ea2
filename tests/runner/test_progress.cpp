// Progress output with injected time: plain log lines off a terminal, one rewritten line with an
// ETA on a terminal.
#include <gtest/gtest.h>

#include <sstream>

#include "runner/progress.h"

namespace caliber::runner {
namespace {

BenchmarkResultRow row(BenchmarkStatus s, std::optional<double> median) {
  BenchmarkResultRow r;
  r.provider = "caliber";
  r.benchmark_status = s;
  r.median_us = median;
  if (s != BenchmarkStatus::ok) r.status_reason = "why";
  return r;
}

TEST(Progress, LogLinesWhenNotATerminal) {
  std::ostringstream out;
  ManualClock clock;
  Progress p(out, false, clock, 4, 1);
  p.started("rmsnorm bf16 m=1 n=8 [decode]", "caliber");
  clock.advance_us(2e6);
  p.finished(row(BenchmarkStatus::ok, 12.345), "rmsnorm bf16 m=1 n=8 [decode]");
  p.finished(row(BenchmarkStatus::unsupported, std::nullopt), "rmsnorm bf16 m=1 n=8 [decode]");
  BenchmarkResultRow eager = row(BenchmarkStatus::ok, 15.0);
  eager.eager_median_us = 15.0;
  eager.capture_failure = CaptureFailure{CaptureFailureClass::recoverable, "graph capture refused"};
  p.finished(eager, "rmsnorm bf16 m=1 n=8 [decode]");
  EXPECT_EQ(out.str(),
            "[2/4] rmsnorm bf16 m=1 n=8 [decode] caliber: ok 12.35 us\n"
            "[3/4] rmsnorm bf16 m=1 n=8 [decode] caliber: unsupported: why\n"
            "[4/4] rmsnorm bf16 m=1 n=8 [decode] caliber: ok 15.00 us (eager only: kernel-only recoverable)\n");
}

TEST(Progress, OneLineWithEtaOnATerminal) {
  std::ostringstream out;
  ManualClock clock;
  Progress p(out, true, clock, 10, 0);
  EXPECT_EQ(p.eta(), "?");
  clock.advance_us(30e6);
  p.finished(row(BenchmarkStatus::ok, 1.0), "x");
  // 30 s for one cell, 9 left: 4m30s.
  EXPECT_EQ(p.eta(), "4m30s");
  p.started("gemm bf16 k=8 m=8 n=8 [synthetic]", "cublas");
  EXPECT_NE(out.str().find("\r\033[K[1/10] 10% ETA 4m30s gemm bf16 k=8 m=8 n=8 [synthetic] / cublas"), std::string::npos)
      << out.str();
  EXPECT_EQ(out.str().find('\n'), std::string::npos);  // nothing scrolls
}

TEST(Progress, ShapeLabelNamesOpDtypeArgsStageAndModel) {
  ShapeRow r;
  r.op_type = "gemm";
  r.dtype = DType::bf16;
  r.args = {{"m", 1}, {"n", 2}, {"k", 3}};
  r.stage = Stage::decode;
  r.model = "llama-3-8b";
  EXPECT_EQ(shape_label(r), "gemm bf16 k=3 m=1 n=2 [decode llama-3-8b]");
}

}  // namespace
}  // namespace caliber::runner
