// The C++ API example (examples/user_kernel) measured on the host backend.
#include <gtest/gtest.h>

#include "caliber/errors.h"
#include "user_kernel/saxpy.h"

namespace {

TEST(SaxpyExample, MeasuresAUserKernelWithAContract) {
  auto backend = caliber::open_backend(caliber::BackendKind::host);
  caliber::Contract c = caliber::default_contract(caliber::BackendKind::host);
  c.cache = caliber::CachePolicy::warm;
  c.iterations.mode = caliber::IterationRule::Mode::fixed;
  c.iterations.count = 25;
  const caliber::Result r = example::measure_saxpy(*backend, 1 << 16, c);
  EXPECT_EQ(r.name, "saxpy");
  EXPECT_EQ(r.params.at("n").integer(), 1 << 16);
  EXPECT_EQ(r.summary.n, 25);
  EXPECT_GT(r.value_us, 0.0);
  EXPECT_EQ(r.contract, c);
  // Declared buffers: the last timed call's output was verified, the inputs watched.
  EXPECT_EQ(r.integrity.verdict(), caliber::IntegrityVerdict::verified) << r.integrity.first_failure();
}

TEST(SaxpyExample, AnImpossibleContractIsRefusedBeforeAnythingRuns) {
  auto backend = caliber::open_backend(caliber::BackendKind::host);
  caliber::Contract c = caliber::default_contract(caliber::BackendKind::host);
  c.schedule = caliber::Schedule::graph;
  EXPECT_THROW(example::measure_saxpy(*backend, 1024, c), caliber::ContractError);
}

}  // namespace
