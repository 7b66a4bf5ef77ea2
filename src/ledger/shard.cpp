#include "ledger/shard.h"

#include <charconv>

#include <fmt/format.h>

#include "caliber/errors.h"
#include "core/sha256.h"

namespace caliber::campaign {

std::uint64_t shard_hash(const std::string& shape_id) {
  const std::string hex = sha256_hex(shape_id).substr(0, 16);
  std::uint64_t value = 0;
  std::from_chars(hex.data(), hex.data() + hex.size(), value, 16);
  return value;
}

std::size_t shard_of(const std::string& shape_id, std::size_t shards) {
  if (shards == 0) throw UsageError("shard_of: zero shards");
  return static_cast<std::size_t>(shard_hash(shape_id) % shards);
}

ShardSpec parse_shard(const std::string& text, const std::string& option) {
  const auto slash = text.find('/');
  ShardSpec s;
  const auto number = [&](const std::string& part, std::size_t& out) {
    const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), out);
    return ec == std::errc() && end == part.data() + part.size() && !part.empty();
  };
  if (slash == std::string::npos || !number(text.substr(0, slash), s.index) ||
      !number(text.substr(slash + 1), s.count) || s.count == 0 || s.index >= s.count) {
    throw UsageError(fmt::format("{} '{}': expected K/N with 0 <= K < N (e.g. 0/2)", option, text));
  }
  return s;
}

std::string to_string(const ShardSpec& shard) { return fmt::format("{}/{}", shard.index, shard.count); }

}  // namespace caliber::campaign
