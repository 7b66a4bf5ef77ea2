// Sharding a campaign's shapes across device slots (docs/batch.md, "Sharding"): a shape's shard
// depends only on its shape id and the number of shards, never on the ledger's order or on which
// other shapes exist, so adding a shape to a ledger moves no other shape, and `caliber run
// --shard K/N` in any process (a Slurm task on another node) selects the same shapes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace caliber::campaign {

struct ShardSpec {
  std::size_t index = 0;  // 0-based
  std::size_t count = 1;
  friend bool operator==(const ShardSpec&, const ShardSpec&) = default;
};

// The stable hash: the first 8 bytes of SHA-256(shape_id), big-endian.
std::uint64_t shard_hash(const std::string& shape_id);

// shard_hash(shape_id) mod shards (shards >= 1).
std::size_t shard_of(const std::string& shape_id, std::size_t shards);

// "K/N" with 0 <= K < N, N >= 1. Throws UsageError naming `option`.
ShardSpec parse_shard(const std::string& text, const std::string& option);
std::string to_string(const ShardSpec& shard);  // "K/N"

}  // namespace caliber::campaign
