// The shard hash is stable: exact values (SHA-256 of the shape id, first 8 bytes big-endian),
// so a change of the rule shows here before it silently re-shards campaigns.
#include <gtest/gtest.h>

#include "caliber/errors.h"
#include "ledger/shard.h"

namespace caliber::campaign {
namespace {

TEST(ShardHash, IsTheFirstEightBytesOfSha256) {
  // sha256("sha1:0123456789abcdef") = 5f7b58626bc1dce5...
  EXPECT_EQ(shard_hash("sha1:0123456789abcdef"), 0x5f7b58626bc1dce5ull);
  EXPECT_EQ(shard_hash("sha1:ffffffffffffffff"), 0x918bed26c9853ad6ull);
}

TEST(ShardHash, ShardIsTheHashModuloTheCount) {
  EXPECT_EQ(shard_of("sha1:0123456789abcdef", 1), 0u);
  EXPECT_EQ(shard_of("sha1:0123456789abcdef", 2), 1u);
  EXPECT_EQ(shard_of("sha1:0123456789abcdef", 7), 6u);
  EXPECT_EQ(shard_of("sha1:ffffffffffffffff", 2), 0u);
  EXPECT_EQ(shard_of("sha1:ffffffffffffffff", 7), 4u);
  EXPECT_THROW(shard_of("x", 0), UsageError);
}

TEST(ShardSpec, ParsesKOfN) {
  EXPECT_EQ(parse_shard("0/2", "--shard"), (ShardSpec{0, 2}));
  EXPECT_EQ(parse_shard("3/4", "--shard"), (ShardSpec{3, 4}));
  EXPECT_EQ(to_string(ShardSpec{1, 2}), "1/2");
  for (const char* bad : {"2/2", "0/0", "1", "a/2", "-1/2", "1/2/3", "/2", "1/"}) {
    EXPECT_THROW(parse_shard(bad, "--shard"), UsageError) << bad;
  }
}

}  // namespace
}  // namespace caliber::campaign
