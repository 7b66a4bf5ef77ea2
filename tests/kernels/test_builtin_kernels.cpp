#include <gtest/gtest.h>

#include "backends/host/host_backend.h"
#include "kernels/workload.h"
#include "caliber/errors.h"
#include "modules/builtins.h"

namespace caliber::bench {
namespace {

TEST(BuiltinKernels, HostKernelsComputeTheirReference) {
  host::HostBackend b;
  for (const char* k : {"copy", "scale", "tiny"}) {
    auto w = make_builtin_workload(b, k, 4096 + 4, 3, 11);
    EXPECT_EQ(w->rotation_copies, 3u);
    // Poisoned and not yet run: every element fails the check.
    EXPECT_NE(w->verify(), "") << k;
    w->launch({nullptr, 0, 0});
    EXPECT_EQ(w->verify(), "") << k;
    w->poison_outputs();
    EXPECT_NE(w->verify().find("differ from the reference"), std::string::npos) << k;
  }
}

TEST(BuiltinKernels, WorkingSetAndParams) {
  host::HostBackend b;
  auto w = make_builtin_workload(b, "copy", 1 << 20, 1, 1);
  EXPECT_EQ(w->working_set_bytes, 2u << 20);
  EXPECT_EQ(w->params.at("size_bytes").integer(), 1 << 20);
  EXPECT_EQ(builtin_working_set_bytes("copy", 1 << 20), 2u << 20);
  EXPECT_EQ(builtin_working_set_bytes("tiny", 123), 2 * kTinyElements * sizeof(float));
  EXPECT_EQ(make_builtin_workload(b, "tiny", 999, 1, 1)->params.at("size_bytes").integer(), 1024);
}

TEST(BuiltinKernels, RefusesBadSizesAndUnknownNames) {
  host::HostBackend b;
  EXPECT_THROW(make_builtin_workload(b, "copy", 3, 1, 1), UsageError);
  EXPECT_THROW(make_builtin_workload(b, "copy", 0, 1, 1), UsageError);
  EXPECT_THROW(make_builtin_workload(b, "fault", 16, 1, 1), UsageError);  // cuda-only self-test
  EXPECT_THROW(make_builtin_workload(b, "gemm", 16, 1, 1), UsageError);
  std::vector<std::string> names;
  for (const auto& k : builtin_kernels(BackendKind::host)) names.push_back(k.name);
  EXPECT_EQ(names, (std::vector<std::string>{"copy", "scale", "tiny"}));
}

}  // namespace
}  // namespace caliber::bench
