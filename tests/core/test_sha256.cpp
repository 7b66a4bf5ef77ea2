#include "core/sha256.h"

#include <gtest/gtest.h>

#include <fstream>

#include "caliber/errors.h"
#include "support/run_cli.h"

namespace caliber {
namespace {

// Test vectors of FIPS 180-2, Appendix B (SHA-256 of "abc" and of the 448-bit message), and the
// well-known hash of the empty string.
TEST(Sha256, MatchesFipsVectors) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST(Sha256, FileHashEqualsDataHashAcrossChunks) {
  const std::string path = testing_support::temp_path("sha256.bin");
  std::string data(200000, '\0');  // longer than one 64 KiB read
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<char>(i * 131 % 251);
  std::ofstream(path, std::ios::binary) << data;
  EXPECT_EQ(sha256_file_hex(path), sha256_hex(data));
  EXPECT_THROW(sha256_file_hex(path + ".missing"), InputError);
}

}  // namespace
}  // namespace caliber
