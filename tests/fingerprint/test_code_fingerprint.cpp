// Code fingerprints: per-kernel SASS hashes of real cubins (built by nvcc for the tests), the
// recorder that keeps only the kernels that ran, host library code hashes, and the file.
#include "fingerprint/code_fingerprint.h"

#include <elf.h>

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "caliber/errors.h"
#include "core/json_fields.h"
#include "fingerprint/elf_sections.h"
#include "support/run_cli.h"

namespace caliber {
namespace {

std::string cubin(int variant) {
#ifdef CALIBER_TEST_CUBIN_DIR
  return read_input_bytes(std::string(CALIBER_TEST_CUBIN_DIR) + "/two_kernels_v" + std::to_string(variant) + ".cubin",
                          kMaxBinaryInputBytes);
#else
  (void)variant;
  return {};
#endif
}

#define REQUIRE_CUBINS()                                                        \
  if (cubin(0).empty()) GTEST_SKIP() << "no CUDA toolkit at configure time: no cubins"

TEST(CodeFingerprint, CubinsSplitIntoPerKernelCodeHashes) {
  REQUIRE_CUBINS();
  std::map<std::string, std::string> v0, v1;
  std::string error;
  ASSERT_TRUE(cubin_kernel_code_hashes(cubin(0), &v0, &error)) << error;
  ASSERT_TRUE(cubin_kernel_code_hashes(cubin(1), &v1, &error)) << error;
  ASSERT_EQ(v0.size(), 2u);
  ASSERT_TRUE(v0.count("fixture_scale") && v0.count("fixture_variant"));
  EXPECT_EQ(v0.at("fixture_scale"), v1.at("fixture_scale"));      // unchanged source, unchanged SASS
  EXPECT_NE(v0.at("fixture_variant"), v1.at("fixture_variant"));  // the one kernel that changed
}

TEST(CodeFingerprint, OnlyTheKernelsThatRanCount) {
  REQUIRE_CUBINS();
  const auto fingerprint_of = [](int variant, const std::vector<std::string>& ran) {
    CodeFingerprintRecorder r;
    const std::string image = cubin(variant);
    r.on_module_loaded(7, image.data(), image.size());
    for (const auto& k : ran) r.on_kernel_executed(k);
    return r.fingerprint();
  };
  // The switch changed fixture_variant, but only fixture_scale ran: no code difference.
  EXPECT_EQ(fingerprint_of(0, {"fixture_scale"}).digest(), fingerprint_of(1, {"fixture_scale"}).digest());
  EXPECT_NE(fingerprint_of(0, {"fixture_scale", "fixture_variant"}).digest(),
            fingerprint_of(1, {"fixture_scale", "fixture_variant"}).digest());
  const CodeFingerprint f = fingerprint_of(0, {"fixture_variant", "not_in_any_module"});
  ASSERT_EQ(f.code.size(), 1u);
  EXPECT_EQ(f.code[0].name, "fixture_variant");
  EXPECT_EQ(f.unresolved, std::vector<std::string>{"not_in_any_module"});
  EXPECT_TRUE(fingerprint_of(0, {}).code.empty());  // nothing ran: the NO_KERNEL case
}

// A device server's next run (runner/device_server.h): the kernels the previous run executed are
// forgotten, the modules loaded before stay known, so a kernel of a module loaded during the
// previous run still resolves.
TEST(CodeFingerprint, ForgettingWhatRanKeepsTheModules) {
  REQUIRE_CUBINS();
  CodeFingerprintRecorder r;
  const std::string image = cubin(0);
  r.on_module_loaded(7, image.data(), image.size());
  r.on_kernel_executed("fixture_scale");
  ASSERT_EQ(r.fingerprint().code.size(), 1u);
  r.forget_executed();
  EXPECT_TRUE(r.fingerprint().code.empty());
  EXPECT_TRUE(r.fingerprint().unresolved.empty());
  r.on_kernel_executed("fixture_variant");
  const CodeFingerprint f = r.fingerprint();
  ASSERT_EQ(f.code.size(), 1u);
  EXPECT_EQ(f.code[0].name, "fixture_variant");
  EXPECT_TRUE(f.unresolved.empty());
}

TEST(CodeFingerprint, NonElfModulesAreHashedWhole) {
  CodeFingerprintRecorder r;
  const std::string ptx = ".version 8.0\n.target sm_90\n";
  r.on_module_loaded(1, ptx.data(), ptx.size());
  r.on_kernel_executed("jit_kernel");
  const CodeFingerprint f = r.fingerprint();
  ASSERT_EQ(f.code.size(), 1u);
  EXPECT_TRUE(f.unresolved.empty());
  std::vector<ElfSection> sections;
  std::string error;
  EXPECT_FALSE(read_elf_sections(ptx, &sections, &error));
  EXPECT_EQ(error, "not an ELF image");
}

TEST(CodeFingerprint, HostLibrariesHashTheirCodeNotTheirFile) {
  // fast and fast_copy: one source, one set of flags, two files (different names inside);
  // slow: three times the passes.
  const std::string fast = elf_code_sha256(CALIBER_AB_FIXTURE_FAST);
  EXPECT_EQ(fast, elf_code_sha256(CALIBER_AB_FIXTURE_FAST_COPY));
  EXPECT_NE(fast, elf_code_sha256(CALIBER_AB_FIXTURE_SLOW));
  EXPECT_NE(read_input_bytes(CALIBER_AB_FIXTURE_FAST, kMaxBinaryInputBytes),
            read_input_bytes(CALIBER_AB_FIXTURE_FAST_COPY, kMaxBinaryInputBytes));
  const std::string not_elf = testing_support::temp_path("not-elf.so");
  std::ofstream(not_elf) << "hello";
  EXPECT_THROW(elf_code_sha256(not_elf), InputError);
  const CodeFingerprint f = host_code_fingerprint({{"fixture", CALIBER_AB_FIXTURE_FAST}});
  ASSERT_EQ(f.code.size(), 1u);
  EXPECT_EQ(f.code[0].sha256, fast);
}

TEST(CodeFingerprint, CudaPluginsIncludeTheirDeviceCode) {
#ifdef CALIBER_AB_FIXTURE_CUDA_VEC4
  // The two builds differ only in device code (float4 vs float loads): the fatbinary counts.
  const std::string vec4 = elf_code_sha256(CALIBER_AB_FIXTURE_CUDA_VEC4);
  EXPECT_EQ(vec4, elf_code_sha256(CALIBER_AB_FIXTURE_CUDA_VEC4_COPY));
  EXPECT_NE(vec4, elf_code_sha256(CALIBER_AB_FIXTURE_CUDA_SCALAR));
#else
  GTEST_SKIP() << "no CUDA toolkit at configure time";
#endif
}

TEST(CodeFingerprint, MergingTheWorkersOfOneRunIsAUnion) {
  CodeFingerprint a;
  a.source = "cuda cubin .text sections of the kernels that ran";
  a.code = {{"_Z1av", "aa"}, {"_Z1bv", "bb"}};
  a.unresolved = {"_Z1cv", "_Z1dv"};
  CodeFingerprint b;
  b.source = a.source;
  b.code = {{"_Z1bv", "bb"}, {"_Z1cv", "cc"}};  // c resolved by the second worker
  b.unresolved = {"_Z1ev"};
  const CodeFingerprint m = merge_code_fingerprints(a, b);
  EXPECT_EQ(m.code, (std::vector<CodeObjectHash>{{"_Z1av", "aa"}, {"_Z1bv", "bb"}, {"_Z1cv", "cc"}}));
  EXPECT_EQ(m.unresolved, (std::vector<std::string>{"_Z1dv", "_Z1ev"}));
  EXPECT_EQ(merge_code_fingerprints(CodeFingerprint{}, b), b);
  CodeFingerprint host;
  host.source = "host ELF code sections of each provider library";
  EXPECT_THROW(merge_code_fingerprints(a, host), InputError);
}

TEST(CodeFingerprint, FileRoundTripsAndRefusesATamperedDigest) {
  CodeFingerprint f;
  f.source = "test";
  f.code = {{"k1", std::string(64, 'a')}, {"k2", std::string(64, 'b')}};
  f.unresolved = {"k3"};
  const std::string path = testing_support::temp_path("code_fingerprint.json");
  write_code_fingerprint(path, f);
  EXPECT_EQ(read_code_fingerprint(path), f);
  std::string text = read_text_file(path);
  text.replace(text.find(std::string(64, 'b')), 64, std::string(64, 'c'));
  std::ofstream(path) << text;
  try {
    read_code_fingerprint(path);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), path + ": field 'digest': does not match the listed code (edited or truncated file)");
  }
  // The digest is over names and hashes: order-independent, content-dependent.
  CodeFingerprint g = f;
  std::swap(g.code[0], g.code[1]);
  EXPECT_EQ(f.digest(), g.digest());
  g.unresolved.clear();
  EXPECT_NE(f.digest(), g.digest());
}

}  // namespace
}  // namespace caliber

namespace caliber {
namespace {

// A section header whose offset plus size wraps around 2^64 passed the bounds check, and the
// name table was then cut out of the image with std::string_view::substr: std::out_of_range.
TEST(ElfSections, OffsetsThatWrapAroundAreOutsideTheImage) {
  std::string image(sizeof(Elf64_Ehdr) + sizeof(Elf64_Shdr), '\0');
  Elf64_Ehdr eh{};
  std::memcpy(eh.e_ident, ELFMAG, SELFMAG);
  eh.e_ident[EI_CLASS] = ELFCLASS64;
  eh.e_ident[EI_DATA] = ELFDATA2LSB;
  eh.e_shentsize = sizeof(Elf64_Shdr);
  eh.e_shnum = 1;
  eh.e_shoff = sizeof(Elf64_Ehdr);
  eh.e_shstrndx = 0;
  Elf64_Shdr names{};
  names.sh_offset = ~std::uint64_t{0} - 1;
  names.sh_size = 4;
  std::memcpy(image.data(), &eh, sizeof eh);
  std::memcpy(image.data() + sizeof eh, &names, sizeof names);
  std::vector<ElfSection> sections;
  std::string error;
  EXPECT_FALSE(read_elf_sections(image, &sections, &error));
  EXPECT_EQ(error, "section name table outside the image");
}

}  // namespace
}  // namespace caliber
