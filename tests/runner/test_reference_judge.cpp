#include "runner/reference_judge.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "backends/host/host_backend.h"
#include "ops/op_catalog.h"
#include "providers/provider.h"
#include "support/test_host_device.h"
#include "modules/builtins.h"

namespace caliber::runner {
namespace {

CorrectnessCheck check(double max_scaled_error) {
  CorrectnessCheck c;
  c.max_scaled_error = max_scaled_error;
  c.tolerance_rel_fro = 1;
  c.checked_rows = 4;
  c.total_rows = 4;
  return c;
}

TEST(CombineChecks, AllPassedKeepsTheWorstOutput) {
  const Judgement j = combine_checks({check(0.2), check(0.5), check(0.3)}, {"a", "b", "c"});
  EXPECT_TRUE(j.passed());
  EXPECT_EQ(j.failure, "");
  EXPECT_EQ(j.check, check(0.5));
}

TEST(CombineChecks, TheFirstFailingOutputIsKeptAndNamed) {
  const Judgement j = combine_checks({check(0.2), check(3), check(7)}, {"a", "b", "c"});
  EXPECT_FALSE(j.passed());
  EXPECT_EQ(j.check, check(3));
  EXPECT_EQ(j.failure, "output b: " + ops::failure_reason(check(3)));
}

TEST(CombineChecks, TheOnlyOutputIsNotNamed) {
  const Judgement j = combine_checks({check(3)}, {"y"});
  EXPECT_EQ(j.check, check(3));
  EXPECT_EQ(j.failure, ops::failure_reason(check(3)));
  EXPECT_FALSE(j.failure.empty());
}

TEST(KeepInRow, TheRowKeepsTheFirstCheckOrTheFirstFailingOne) {
  std::optional<CorrectnessCheck> row;
  keep_in_row(row, Judgement{check(0.2), ""});
  EXPECT_EQ(row, check(0.2));
  keep_in_row(row, Judgement{check(0.4), ""});  // a later pass changes nothing
  EXPECT_EQ(row, check(0.2));
  keep_in_row(row, Judgement{check(3), "too far"});  // the first failure replaces it
  EXPECT_EQ(row, check(3));
  keep_in_row(row, Judgement{check(9), "further"});  // a later failure does not
  EXPECT_EQ(row, check(3));
}

// The naive host rmsnorm's output on the original inputs: right against the original set's
// reference, wrong against the fresh set's (the same addresses, other values).
TEST(ReferenceJudge, JudgesOutputsAgainstTheSetTheyWereComputedFrom) {
  host::HostBackend backend(steady_clock(), testing_support::test_host_device());
  const ops::OpShape shape =
      ops::parse_shape("rmsnorm", DType::fp32, "row_major", {{"m", 64}, {"n", 32}, {"eps", 1e-6}}, "(test)", 0, "args");
  std::unique_ptr<providers::DescribedReference> described;
  ShapeInputs inputs(backend, shape, shape_seeds("sha1:3818b886b870d9a2", 1, 0x1234), described);
  inputs.build_once();
  ASSERT_TRUE(inputs.ready());
  inputs.ensure_reference(inputs.original());
  inputs.ensure_reference(inputs.fresh());

  std::unique_ptr<providers::Provider> naive = providers::make_builtin_provider(BackendKind::host, shape.op, "naive");
  ASSERT_TRUE(naive);
  naive->prepare(shape, backend);
  DeviceBuffer out(backend, inputs.output_specs().at(0).bytes());
  providers::OpBuffers buffers;
  for (const DeviceBuffer& b : inputs.working()) buffers.inputs.push_back(b.get());
  buffers.output = out.get();
  buffers.outputs = {out.get()};
  naive->run(shape, buffers, nullptr);

  ReferenceJudge judge(backend, inputs);
  const Judgement right = judge.judge(inputs.original(), buffers.outputs);
  EXPECT_TRUE(right.passed()) << right.failure;
  EXPECT_EQ(right.check.checked_rows, 64);
  const Judgement wrong = judge.judge(inputs.fresh(), buffers.outputs);
  EXPECT_FALSE(wrong.passed());
  EXPECT_FALSE(ops::passed(wrong.check));
  naive->release();
}

}  // namespace
}  // namespace caliber::runner
