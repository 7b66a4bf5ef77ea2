#include <gtest/gtest.h>

#include "core/demangle.h"

namespace caliber {
namespace {

TEST(Demangle, MangledKernelNamesBecomeReadable) {
  // scale_kernel(const float*, float*, unsigned long, float) as the Itanium ABI mangles it.
  EXPECT_EQ(demangle("_Z12scale_kernelPKfPfmf"),
            "scale_kernel(float const*, float*, unsigned long, float)");
  EXPECT_EQ(demangle("_ZN7caliber4cuda12_GLOBAL__N_111tiny_kernelEv"),
            "caliber::cuda::(anonymous namespace)::tiny_kernel()");
}

TEST(Demangle, OtherNamesComeBackUnchanged) {
  EXPECT_EQ(demangle("nvjet_hsh_128x256_64x4_1x2_h_bz_coopA_NNN"), "nvjet_hsh_128x256_64x4_1x2_h_bz_coopA_NNN");
  EXPECT_EQ(demangle("[memset]"), "[memset]");
  EXPECT_EQ(demangle(nullptr), "");
}

}  // namespace
}  // namespace caliber
