// The bottleneck rule table: one case per rule (and its boundaries), exact categories, rule ids
// and evidence text; the shape class; the eager verdict; inputs built from a comparison.
#include <gtest/gtest.h>

#include "analysis/bottleneck_classification.h"
#include "ops/op_catalog.h"
#include "ops/op_description.h"
#include "support/report_rows.h"

namespace caliber {
namespace {

using testing_support::ledger_shape;
using testing_support::ok_result;

// A measured, stable, aligned candidate on a shape that fills a 132-SM device, at `speedup`.
ClassificationInput measured(double speedup) {
  ClassificationInput in;
  in.candidate_status = BenchmarkStatus::ok;
  in.candidate_stable = true;
  in.speedup_vs_best = speedup;
  in.best_baseline = "cublas";
  in.roofline_fraction = 0.30;
  in.roofline_bound = "memory";
  in.work_units = 4096;
  in.work_unit_name = "row(s)";
  in.device_parallelism = 132;
  in.vector_aligned = true;
  return in;
}

TEST(BottleneckClassification, CategoryNamesAreSeed001Strings) {
  std::vector<std::string> names;
  for (Bottleneck b : all_bottlenecks()) names.emplace_back(to_string(b));
  EXPECT_EQ(names, (std::vector<std::string>{"ok", "implementation_gap", "tuning_gap", "algorithm_gap", "codegen_gap",
                                             "launch_or_roofline_limited", "measurement_issue",
                                             "baseline_unfair_or_unmatched"}));
}

TEST(BottleneckClassification, RuleTable) {
  struct Case {
    const char* name;
    std::function<void(ClassificationInput&)> edit;
    Bottleneck category;
    const char* rule;
    const char* evidence;
  };
  const std::vector<Case> cases = {
      {"no candidate row", [](auto& in) { in = ClassificationInput{}; }, Bottleneck::measurement_issue, "C1",
       "candidate not measured (no row in the results)"},
      {"candidate not configured",
       [](auto& in) {
         in.candidate_status = BenchmarkStatus::not_configured;
         in.candidate_status_reason = "disabled";
       },
       Bottleneck::measurement_issue, "C1", "candidate not measured (not_configured: disabled)"},
      {"candidate incorrect",
       [](auto& in) {
         in.candidate_status = BenchmarkStatus::incorrect;
         in.candidate_status_reason = "3 NaN outputs";
       },
       Bottleneck::baseline_unfair_or_unmatched, "C2", "candidate failed correctness: 3 NaN outputs: its timing is not trusted"},
      {"candidate failed",
       [](auto& in) {
         in.candidate_status = BenchmarkStatus::failed;
         in.candidate_status_reason = "illegal address";
       },
       Bottleneck::implementation_gap, "C3", "candidate failed: illegal address"},
      {"candidate unsupported", [](auto& in) { in.candidate_status = BenchmarkStatus::unsupported; },
       Bottleneck::implementation_gap, "C3", "candidate unsupported"},
      {"unstable",
       [](auto& in) {
         in.candidate_stable = false;
         in.candidate_unstable_reason = "p90/p10 = 1.50 > 1.2";
       },
       Bottleneck::measurement_issue, "C4", "candidate timing unstable: p90/p10 = 1.50 > 1.2"},
      {"no usable baseline", [](auto& in) { in.speedup_vs_best.reset(); }, Bottleneck::measurement_issue, "C5",
       "no comparable baseline measured (none ok, correct and stable)"},
      {"parity boundary 0.95 is ok", [](auto& in) { in.speedup_vs_best = 0.95; }, Bottleneck::ok, "C6",
       "0.950x of best (cublas) >= 0.95"},
      {"ok wins over every later rule",
       [](auto& in) {
         in.speedup_vs_best = 1.3;
         in.work_units = 1;
         in.flags_difference = "x";
       },
       Bottleneck::ok, "C6", "1.300x of best (cublas) >= 0.95"},
      {"flags differ",
       [](auto& in) {
         in.speedup_vs_best = 0.9;
         in.flags_difference = "best baseline includes_jit=true, candidate false";
       },
       Bottleneck::baseline_unfair_or_unmatched, "C7",
       "0.900x of best (cublas); best baseline includes_jit=true, candidate false: not like for like"},
      {"at the roofline (boundary 0.80)",
       [](auto& in) {
         in.speedup_vs_best = 0.9;
         in.roofline_fraction = 0.80;
         in.work_units = 1;  // roofline comes before the shape class
       },
       Bottleneck::launch_or_roofline_limited, "C8",
       "0.900x of best (cublas); candidate reaches 80% of the memory roofline (>= 80%)"},
      {"too few rows",
       [](auto& in) {
         in.speedup_vs_best = 0.75;
         in.work_units = 131;
       },
       Bottleneck::implementation_gap, "C9",
       "0.750x of best (cublas); 131 row(s) < 132 multiprocessors: the device is under-filled"},
      {"rows equal to the SM count fill the device",
       [](auto& in) {
         in.speedup_vs_best = 0.75;
         in.work_units = 132;
       },
       Bottleneck::tuning_gap, "C13",
       "0.750x of best (cublas); 132 row(s) for 132 multiprocessors, vector-aligned, 30% of the memory roofline: "
       "no structural cause"},
      {"misses the vector path",
       [](auto& in) {
         in.speedup_vs_best = 0.8;
         in.vector_aligned = false;
         in.alignment_detail = "n = 4095 x 2 B = 8190 B is not a multiple of 16 B";
       },
       Bottleneck::implementation_gap, "C10",
       "0.800x of best (cublas); n = 4095 x 2 B = 8190 B is not a multiple of 16 B: misses the 16-byte vector path"},
      {"register spills in a profile",
       [](auto& in) {
         in.speedup_vs_best = 0.6;
         in.local_memory_bytes = 4096;
       },
       Bottleneck::codegen_gap, "C11",
       "0.600x of best (cublas); profile: 4096 bytes of local-memory traffic (register spills); 4096 row(s) for 132 "
       "multiprocessors, vector-aligned, 30% of the memory roofline"},
      {"a profile without spills is not codegen",
       [](auto& in) {
         in.speedup_vs_best = 0.6;
         in.local_memory_bytes = 0;
       },
       Bottleneck::tuning_gap, "C13",
       "0.600x of best (cublas); 4096 row(s) for 132 multiprocessors, vector-aligned, 30% of the memory roofline: no "
       "structural cause"},
      {"a gap beyond tuning",
       [](auto& in) {
         in.speedup_vs_best = 0.49;
         in.roofline_fraction.reset();
       },
       Bottleneck::algorithm_gap, "C12",
       "0.490x of best (cublas) < 0.5; 4096 row(s) for 132 multiprocessors, vector-aligned, roofline n/a: beyond what "
       "tuning recovers"},
      {"algorithm boundary 0.50 is tuning", [](auto& in) { in.speedup_vs_best = 0.50; }, Bottleneck::tuning_gap, "C13",
       "0.500x of best (cublas); 4096 row(s) for 132 multiprocessors, vector-aligned, 30% of the memory roofline: no "
       "structural cause"},
      {"unknown device fill is not a shape-class gap",
       [](auto& in) {
         in.speedup_vs_best = 0.8;
         in.device_parallelism = 0;
         in.work_units = 1;
       },
       Bottleneck::tuning_gap, "C13",
       "0.800x of best (cublas); device fill unknown, vector-aligned, 30% of the memory roofline: no structural cause"},
  };
  for (const Case& c : cases) {
    ClassificationInput in = measured(0.5);
    c.edit(in);
    const Classification got = classify(in);
    EXPECT_EQ(got.category, c.category) << c.name;
    EXPECT_EQ(got.rule, c.rule) << c.name;
    EXPECT_EQ(got.evidence, c.evidence) << c.name;
    EXPECT_FALSE(got.likely_fix.empty()) << c.name;
  }
}

TEST(BottleneckClassification, ShapeClassOfNormsAndGemm) {
  ShapeRow norm = ledger_shape(3, 4095);  // bf16: 8190 bytes per row
  ShapeClass c = shape_class(norm);
  EXPECT_EQ(c.work_units, 3);
  EXPECT_EQ(c.work_unit_name, "row(s)");
  EXPECT_EQ(c.vector_aligned, false);
  EXPECT_EQ(c.alignment_detail, "n = 4095 x 2 B = 8190 B is not a multiple of 16 B");
  norm = ledger_shape(4096, 4096);
  EXPECT_EQ(shape_class(norm).vector_aligned, true);

  ShapeRow gemm = ledger_shape(1, 1);
  gemm.op_type = "gemm";
  gemm.kernel_name = "gemm";
  gemm.args = {{"m", 1000}, {"n", 300}, {"k", 4100}};
  c = shape_class(gemm);
  EXPECT_EQ(c.work_units, 8 * 3);  // ceil(1000/128) x ceil(300/128)
  EXPECT_EQ(c.work_unit_name, "128x128 output tile(s)");
  EXPECT_EQ(c.vector_aligned, false);  // k = 4100 x 2 B = 8200 B
  EXPECT_EQ(c.alignment_detail, "k = 4100 x 2 B = 8200 B is not a multiple of 16 B");
}

// An op of your own gets the shape class its description's `work` gives, and none without it.
TEST(BottleneckClassification, ShapeClassOfAnOpOfYourOwnIsItsDescriptionsWork) {
  const std::string base =
      "schema_version: 1\nargs:\n  rows: integer\n  cols: integer\ninputs:\n  - {name: x, shape: [rows, cols]}\n"
      "outputs:\n  - {name: y, shape: [rows]}\nflops: rows * cols\nreference:\n  entrypoint: \"lib.so:ref\"\n";
  ops::register_op_description(ops::parse_op_description(
      "op: row_sums\n" + base + "work: {units: \"ceil(rows / 2)\", unit_name: \"row pair(s)\", vector_extents: [cols]}\n",
      "row_sums.op.yaml"));
  ops::register_op_description(ops::parse_op_description("op: row_sums_plain\n" + base, "row_sums_plain.op.yaml"));
  ShapeRow row = ledger_shape(1, 1);
  row.op_type = "row_sums";
  row.args = {{"rows", 5}, {"cols", 12}};  // bf16: 24 bytes per row
  const ShapeClass c = shape_class(row);
  EXPECT_EQ(c.work_units, 3);
  EXPECT_EQ(c.work_unit_name, "row pair(s)");
  EXPECT_EQ(c.vector_aligned, false);
  EXPECT_EQ(c.alignment_detail, "cols = 12 x 2 B = 24 B is not a multiple of 16 B");
  row.op_type = "row_sums_plain";
  EXPECT_FALSE(shape_class(row).work_units.has_value());
  EXPECT_FALSE(shape_class(row).vector_aligned.has_value());
}

TEST(BottleneckClassification, EagerVerdictIsSeparateAndNeedsHalfTheEagerTime) {
  EXPECT_EQ(eager_verdict(0.5), "launch_or_roofline_limited");
  EXPECT_EQ(eager_verdict(0.49), "");
  EXPECT_EQ(eager_verdict(std::nullopt), "");
}

TEST(BottleneckClassification, InputFromAComparison) {
  const ShapeRow s = ledger_shape(8192, 8192);
  BenchmarkResultRow cand = ok_result(s, "caliber", 80);
  cand.bytes = 268451840;  // at 80 us: 3.3556e12 B/s
  BenchmarkResultRow vendor = ok_result(s, "vendor", 74);
  vendor.includes_allocation = true;
  const auto set = compare_shapes({s}, {cand, vendor}, "caliber", "r.jsonl");
  DeviceCeilings ceilings;
  ceilings.memory_bandwidth = {true, 4.0e12, "bytes/s", "test", 0, std::nullopt, ""};
  const ClassificationInput in = classification_input(set.shapes[0], &ceilings, std::nullopt);
  EXPECT_EQ(in.candidate_status, BenchmarkStatus::ok);
  EXPECT_DOUBLE_EQ(*in.speedup_vs_best, 74.0 / 80.0);
  EXPECT_EQ(in.best_baseline, "vendor");
  EXPECT_EQ(in.flags_difference, "best baseline includes_allocation=true, candidate false");
  EXPECT_NEAR(*in.roofline_fraction, 0.838912, 1e-9);
  EXPECT_EQ(in.roofline_bound, "memory");
  EXPECT_EQ(in.work_units, 8192);
  EXPECT_EQ(in.device_parallelism, 132);
  EXPECT_EQ(in.device_parallelism_name, "multiprocessors");
  EXPECT_EQ(classify(in).category, Bottleneck::baseline_unfair_or_unmatched);  // C7 comes before the roofline
}

TEST(BottleneckClassification, HonestyFlagDifferences) {
  const ShapeRow s = ledger_shape(1, 2);
  BenchmarkResultRow a = ok_result(s, "a", 1), b = ok_result(s, "b", 1);
  EXPECT_EQ(honesty_flag_difference(a, b), "");
  a.includes_layout_conversion = true;
  b.includes_jit = true;
  EXPECT_EQ(honesty_flag_difference(a, b),
            "best baseline includes_layout_conversion=false, candidate true; best baseline includes_jit=true, "
            "candidate false");
  b = ok_result(s, "b", 1);
  b.kernel_only.reset();  // its median_us is its eager median
  EXPECT_EQ(honesty_flag_difference(ok_result(s, "a", 1), b),
            "best baseline timed eager only (no kernel-only measurement), candidate kernel-only");
}

}  // namespace
}  // namespace caliber
