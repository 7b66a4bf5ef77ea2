// The results table of a multi-shape run: one line per (shape, provider) built from literal rows,
// laid out for a terminal and for markdown, with exact text.
#include <gtest/gtest.h>

#include <sstream>

#include "report/shape_results_table.h"
#include "support/report_rows.h"

namespace caliber {
namespace {

using testing_support::ledger_shape;
using testing_support::ok_result;
using testing_support::status_result;

// Two bf16 rows (one unstable) and an fp32 row of the same args that was not timed.
std::vector<BenchmarkResultRow> rows() {
  const ShapeRow bf16 = ledger_shape(4096, 8192);
  const ShapeRow fp32 = ledger_shape(4096, 8192, "llama-3-8b", Stage::prefill, SourceKind::model_config, DType::fp32);
  BenchmarkResultRow fast = ok_result(bf16, "caliber", 20);
  fast.bytes = 40000000;    // 2000 GB/s at 20 us
  fast.flops = 20000000000;  // 1000 TFLOP/s at 20 us
  fast.kernel_only->median_ci95_us = Interval{19.5, 20.5};
  BenchmarkResultRow noisy = ok_result(bf16, "naive", 40);
  noisy.bytes = 40000000;
  noisy.stable = false;
  noisy.p10_us = 30;
  noisy.p90_us = 50;
  BenchmarkResultRow eager = ok_result(fp32, "caliber", 12.5);
  eager.kernel_only.reset();
  eager.eager = testing_support::kernel_only_measurement(12.5);
  return {fast, noisy, eager, status_result(fp32, "naive", BenchmarkStatus::unsupported, "fp32 is not supported")};
}

DeviceCeilings ceilings() {
  DeviceCeilings c;
  c.memory_bandwidth = {true, 4.0e12, "bytes/s", "test", 0, std::nullopt, ""};
  c.matmul["bf16"] = {true, 1.25e15, "flop/s", "test", 0, std::nullopt, ""};
  return c;
}

TEST(ResultsTable, OneLinePerShapeAndProviderWithTheDtypeInTheShape) {
  ResultsTableBuilder b(nullptr, "no ceilings file (run caliber calibrate)");
  for (const BenchmarkResultRow& r : rows()) b.add(r);
  const ResultsTable t = b.build();
  ASSERT_EQ(t.lines.size(), 4u);
  EXPECT_EQ(t.lines[0].shape, "bf16 m=4096 n=8192");
  EXPECT_EQ(t.lines[2].shape, "fp32 m=4096 n=8192");  // same args, another dtype: never the same label
  std::ostringstream out;
  write_results_table_text(out, t);
  const std::string legend =
      "median us: the row's primary median (kernel-only; \"(eager)\": timed eagerly); 95% CI us: its interval; "
      "GB/s and TFLOP/s: bytes and flops per call over that median; roofline: the fraction of the device's "
      "measured roofline and the resource nearer its ceiling\n";
  EXPECT_EQ(out.str(),
            legend +
                "shape               provider  status           median us     95% CI us    GB/s   TFLOP/s  roofline  stability\n"
                "bf16 m=4096 n=8192  caliber   ok                   20.00  19.50..20.50  2000.0  1000.000  -         stable\n"
                "bf16 m=4096 n=8192  naive     ok                   40.00             -  1000.0         -  -         unstable\n"
                "fp32 m=4096 n=8192  caliber   ok           12.50 (eager)             -       -         -  -         stable\n"
                "fp32 m=4096 n=8192  naive     unsupported              -             -       -         -  -         -\n"
                "note: roofline -: no ceilings file (run caliber calibrate)\n"
                "note: unstable: bf16 m=4096 n=8192 naive: p90/p10 = 1.67 > 1.2\n");
}

TEST(ResultsTable, RooflineAgainstTheCeilingsAndMarkdown) {
  const DeviceCeilings c = ceilings();
  ResultsTableBuilder b(&c, "unused");
  const std::vector<BenchmarkResultRow> all = rows();
  b.add(all[0], "caliber (candidate)");
  b.add(all[1]);
  const ResultsTable t = b.build();
  EXPECT_EQ(t.lines[0].roofline, "80% compute");  // 1000 of 1250 TFLOP/s, nearer than 2000 of 4000 GB/s
  EXPECT_EQ(t.lines[1].roofline, "25% memory");
  std::ostringstream out;
  write_results_table_markdown(out, t);
  EXPECT_NE(out.str().find("| shape | provider | status | median us | 95% CI us | GB/s | TFLOP/s | roofline | stability |\n"
                           "|---|---|---|---|---|---|---|---|---|\n"
                           "| bf16 m=4096 n=8192 | caliber (candidate) | ok | 20.00 | 19.50..20.50 | 2000.0 | 1000.000 | "
                           "80% compute | stable |\n"
                           "| bf16 m=4096 n=8192 | naive | ok | 40.00 | - | 1000.0 | - | 25% memory | unstable |\n\n"
                           "- unstable: bf16 m=4096 n=8192 naive: p90/p10 = 1.67 > 1.2\n"),
            std::string::npos)
      << out.str();
}

TEST(ResultsTable, ARowMeasuredAgainReplacesItsCellInPlace) {
  ResultsTableBuilder b(nullptr, "none");
  const std::vector<BenchmarkResultRow> all = rows();
  b.add(all[0]);
  b.add(all[1]);
  BenchmarkResultRow again = all[0];
  again.median_us = 25;
  b.add(again);
  const ResultsTable t = b.build();
  ASSERT_EQ(t.lines.size(), 2u);
  EXPECT_EQ(t.lines[0].provider, "caliber");
  EXPECT_EQ(t.lines[0].latency, "25.00");
}

}  // namespace
}  // namespace caliber
