#include "runner/shape_inputs.h"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "backends/host/host_backend.h"
#include "ops/op_catalog.h"
#include "support/test_host_device.h"

namespace caliber::runner {
namespace {

// A host backend that says it is asynchronous (the sets are then kept "on the device" too, as on a
// GPU) and has `memory_bytes` of memory (0: unknown).
class SmallDevice : public host::HostBackend {
 public:
  SmallDevice(bool asynchronous, std::uint64_t memory_bytes)
      : HostBackend(steady_clock(), device_with(memory_bytes)), asynchronous_(asynchronous) {}
  bool asynchronous() const override { return asynchronous_; }

 private:
  static DeviceInfo device_with(std::uint64_t memory_bytes) {
    DeviceInfo d = testing_support::test_host_device();
    d.memory_bytes = memory_bytes;
    return d;
  }
  bool asynchronous_;
};

ops::OpShape rmsnorm(std::int64_t m, std::int64_t n) {
  return ops::parse_shape("rmsnorm", DType::fp32, "row_major", {{"m", m}, {"n", n}, {"eps", 1e-6}}, "(test)", 0, "args");
}

std::uint64_t input_bytes(const ShapeInputs& inputs) {
  std::uint64_t b = 0;
  for (const ops::TensorSpec& t : inputs.input_specs()) b += t.bytes();
  return b;
}

bool same_bytes(const DeviceBuffer& working, const ops::HostTensor& t) {
  return working.bytes() == t.bytes() && std::memcmp(working.get(), t.data(), t.bytes()) == 0;
}

const ShapeSeeds kSeeds = shape_seeds("sha1:3818b886b870d9a2", 1, 0x1234);

TEST(ShapeSeeds, EachShapeDrawsItsOwnAndTheRowsFollowOnlyTheVerificationSeed) {
  const ShapeSeeds other_shape = shape_seeds("sha1:1ddd7fefc2c69379", 1, 0x1234);
  EXPECT_NE(kSeeds.inputs, other_shape.inputs);
  EXPECT_NE(kSeeds.rows, other_shape.rows);
  EXPECT_NE(kSeeds.inputs, kSeeds.fresh);
  const ShapeSeeds other_run = shape_seeds("sha1:3818b886b870d9a2", 2, 0x1234);
  EXPECT_NE(kSeeds.inputs, other_run.inputs);
  EXPECT_NE(kSeeds.fresh, other_run.fresh);
  EXPECT_EQ(kSeeds.rows, other_run.rows);
  EXPECT_NE(kSeeds.rows, shape_seeds("sha1:3818b886b870d9a2", 1, 0x1235).rows);
  // Only the 16 hex digits after the colon count.
  EXPECT_EQ(shape_seeds("sha1:3818b886b870d9a2ffff", 1, 0x1234).inputs, kSeeds.inputs);
}

TEST(ShapeInputs, OnTheHostBothSetsAreDrawnAndTheWorkingBuffersHoldTheOriginal) {
  host::HostBackend backend(steady_clock(), testing_support::test_host_device());
  const ops::OpShape shape = rmsnorm(64, 32);
  std::unique_ptr<providers::DescribedReference> described;
  ShapeInputs inputs(backend, shape, kSeeds, described);
  EXPECT_FALSE(inputs.ready());
  EXPECT_GE(inputs.build_once(), 0.0);
  ASSERT_TRUE(inputs.ready());
  EXPECT_FALSE(inputs.failure().has_value());
  EXPECT_EQ(inputs.build_once(), 0.0);  // built once
  ASSERT_EQ(inputs.working().size(), inputs.input_specs().size());
  ASSERT_EQ(inputs.original().host.size(), inputs.working().size());
  ASSERT_TRUE(inputs.fresh().present());
  EXPECT_TRUE(inputs.original().device.empty());  // a synchronous device reads the host tensors
  EXPECT_EQ(inputs.rows().size(), 64u);           // every row of a small shape
  for (std::size_t k = 0; k < inputs.working().size(); ++k) {
    EXPECT_TRUE(same_bytes(inputs.working()[k], inputs.original().host[k])) << k;
    EXPECT_FALSE(same_bytes(inputs.working()[k], inputs.fresh().host[k])) << k;
  }
  inputs.load(inputs.fresh());
  for (std::size_t k = 0; k < inputs.working().size(); ++k) {
    EXPECT_TRUE(same_bytes(inputs.working()[k], inputs.fresh().host[k])) << k;
  }
  inputs.load(inputs.original());
  for (std::size_t k = 0; k < inputs.working().size(); ++k) {
    EXPECT_TRUE(same_bytes(inputs.working()[k], inputs.original().host[k])) << k;
  }
}

TEST(ShapeInputs, EachSetsReferenceIsComputedOnceAndDescribed) {
  host::HostBackend backend(steady_clock(), testing_support::test_host_device());
  const ops::OpShape shape = rmsnorm(64, 32);
  std::unique_ptr<providers::DescribedReference> described;
  ShapeInputs inputs(backend, shape, kSeeds, described);
  inputs.build_once();
  EXPECT_FALSE(inputs.provider_reference());
  EXPECT_FALSE(inputs.original().has_reference());
  inputs.ensure_reference(inputs.original());
  ASSERT_TRUE(inputs.original().reference);
  const ops::Reference* first = inputs.original().reference.get();
  EXPECT_EQ(inputs.ensure_reference(inputs.original()), 0.0);
  EXPECT_EQ(inputs.original().reference.get(), first);
  EXPECT_FALSE(inputs.fresh().has_reference());
  EXPECT_EQ(inputs.judge_description(),
            fmt::format("fp64 reference on the host, on 64 of 64 rows, drawn at random (seed {:016x})", kSeeds.rows));
}

// Each cell selects the rows its checks compare; a set's reference follows the selection (and a
// described op's reference provider is not run again for it).
TEST(ShapeInputs, TheSelectedRowsAreTheOnesEachReferenceHolds) {
  host::HostBackend backend(steady_clock(), testing_support::test_host_device());
  const ops::OpShape shape =
      ops::parse_shape("gemm", DType::fp32, "row_major", {{"m", 128}, {"n", 2048}, {"k", 2048}}, "(test)", 0, "args");
  std::unique_ptr<providers::DescribedReference> described;
  ShapeInputs inputs(backend, shape, kSeeds, described);
  inputs.build_once();
  EXPECT_EQ(inputs.rows_seed(), kSeeds.rows);
  inputs.ensure_reference(inputs.original());
  const std::vector<std::int64_t> shape_rows = inputs.original().reference->rows();
  const std::uint64_t a = cell_rows_seed(kSeeds, "a");
  const std::uint64_t b = cell_rows_seed(kSeeds, "b");
  EXPECT_NE(a, b);
  EXPECT_EQ(a, cell_rows_seed(kSeeds, "a"));
  inputs.select_rows(a);
  EXPECT_GT(inputs.ensure_reference(inputs.original()), -1.0);
  const std::vector<std::int64_t> rows_a = inputs.original().reference->rows();
  EXPECT_EQ(rows_a, inputs.rows());
  EXPECT_NE(rows_a, shape_rows);
  EXPECT_EQ(inputs.ensure_reference(inputs.original()), 0.0);  // kept while the selection stays
  inputs.select_rows(b);
  inputs.ensure_reference(inputs.original());
  EXPECT_NE(inputs.original().reference->rows(), rows_a);
  inputs.select_rows(a);
  inputs.ensure_reference(inputs.original());
  EXPECT_EQ(inputs.original().reference->rows(), rows_a);  // reproducible from the seed
  EXPECT_NE(inputs.judge_description().find(fmt::format("seed {:016x}", a)), std::string::npos);
}

// Where every row is checked whatever the seed (a small shape), another cell's selection keeps the
// set's reference: nothing is computed again.
TEST(ShapeInputs, ASelectionOfTheSameRowsKeepsTheReference) {
  host::HostBackend backend(steady_clock(), testing_support::test_host_device());
  const ops::OpShape shape = rmsnorm(64, 32);
  std::unique_ptr<providers::DescribedReference> described;
  ShapeInputs inputs(backend, shape, kSeeds, described);
  inputs.build_once();
  inputs.ensure_reference(inputs.original());
  const ops::Reference* first = inputs.original().reference.get();
  inputs.select_rows(cell_rows_seed(kSeeds, "another provider"));
  EXPECT_EQ(inputs.rows().size(), 64u);
  EXPECT_EQ(inputs.ensure_reference(inputs.original()), 0.0);
  EXPECT_EQ(inputs.original().reference.get(), first);
}

// An audited call is judged on rows drawn from its own seed, not the verification seed's: a
// provider that learned the run's verification seed cannot compute only the rows it names.
TEST(ShapeInputs, AnAuditSetIsJudgedOnRowsOfItsOwn) {
  host::HostBackend backend(steady_clock(), testing_support::test_host_device());
  // A gemm whose reference affords 64 of its 128 rows (ops::rows_to_check).
  const ops::OpShape shape =
      ops::parse_shape("gemm", DType::fp32, "row_major", {{"m", 128}, {"n", 2048}, {"k", 2048}}, "(test)", 0, "args");
  std::unique_ptr<providers::DescribedReference> described;
  ShapeInputs inputs(backend, shape, kSeeds, described);
  inputs.build_once();
  ASSERT_LT(inputs.rows().size(), static_cast<std::size_t>(shape.m));  // a subset is checked
  double ms = 0;
  const std::vector<std::int64_t> first = inputs.audit_set(11, ms).reference->rows();
  EXPECT_EQ(first.size(), inputs.rows().size());
  EXPECT_NE(first, inputs.rows());
  EXPECT_NE(inputs.audit_set(12, ms).reference->rows(), first);
  EXPECT_EQ(inputs.audit_set(11, ms).reference->rows(), first);  // reproducible from the seed
}

TEST(ShapeInputs, AnAsynchronousDeviceKeepsBothSetsWhenThreeCopiesFit) {
  const ops::OpShape shape = rmsnorm(64, 32);
  std::unique_ptr<providers::DescribedReference> described;
  SmallDevice backend(true, 0);
  ShapeInputs inputs(backend, shape, kSeeds, described);
  inputs.build_once();
  ASSERT_TRUE(inputs.ready());
  // The host backend draws nothing on the device: drawn on the host, then copied.
  EXPECT_EQ(inputs.original().device.size(), inputs.input_specs().size());
  EXPECT_EQ(inputs.fresh().device.size(), inputs.input_specs().size());
  EXPECT_EQ(inputs.judge_description().find("no fresh inputs"), std::string::npos);
}

TEST(ShapeInputs, WithoutRoomForThreeCopiesThereIsNoFreshSetAndTheDescriptionSaysSo) {
  const ops::OpShape shape = rmsnorm(64, 32);
  std::unique_ptr<providers::DescribedReference> described;
  host::HostBackend probe(steady_clock(), testing_support::test_host_device());
  ShapeInputs sizes(probe, shape, kSeeds, described);
  const std::uint64_t in_bytes = input_bytes(sizes);
  SmallDevice backend(true, ops::op_of(shape).bytes(shape) + 2 * in_bytes - 1);
  ShapeInputs inputs(backend, shape, kSeeds, described);
  inputs.build_once();
  ASSERT_TRUE(inputs.ready());
  EXPECT_FALSE(inputs.fresh().present());
  inputs.ensure_reference(inputs.original());
  EXPECT_EQ(inputs.judge_description(),
            fmt::format("fp64 reference on the host, on 64 of 64 rows, drawn at random (seed {:016x}); no fresh "
                        "inputs: three copies of the {} input bytes do not fit",
                        kSeeds.rows, in_bytes));
}

TEST(ShapeInputs, AShapeLargerThanTheDeviceIsOomForEveryCell) {
  const ops::OpShape shape = rmsnorm(64, 32);
  const std::uint64_t need = ops::op_of(shape).bytes(shape);
  std::unique_ptr<providers::DescribedReference> described;
  SmallDevice backend(true, need - 1);
  ShapeInputs inputs(backend, shape, kSeeds, described);
  inputs.build_once();
  EXPECT_FALSE(inputs.ready());
  ASSERT_TRUE(inputs.failure().has_value());
  EXPECT_EQ(inputs.failure()->status, BenchmarkStatus::oom);
  EXPECT_EQ(inputs.failure()->reason,
            fmt::format("inputs and output need {} bytes; the device has {} bytes", need, need - 1));
  EXPECT_FALSE(inputs.device_lost());
  EXPECT_EQ(inputs.build_once(), 0.0);  // not tried again
  EXPECT_TRUE(inputs.working().empty());
}

}  // namespace
}  // namespace caliber::runner
