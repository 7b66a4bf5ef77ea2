// Which side runs first in each round. Alternating (A first in odd rounds) cancels a drift that
// moves one way through the campaign (warming, throttling); randomized-balanced does the same
// without a pattern a periodic disturbance could lock onto, and stays reproducible by its seed.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

namespace caliber {

enum class RoundOrder { alternate, random };
std::string_view to_string(RoundOrder o);
RoundOrder parse_round_order(std::string_view s);  // throws UsageError

// One {first, second} pair per round, each 'A' or 'B'. random: a shuffle (64-bit Mersenne Twister
// seeded with `seed`, index = engine() % (i + 1), so every platform gives the same order) of
// floor(n/2) AB rounds and floor(n/2) BA rounds, plus one more for odd n chosen by the same engine:
// each side goes first in floor(n/2) or ceil(n/2) rounds. Either way round 1 is AB (when the shuffle
// put BA there, it trades places with the first AB round): A's first cell records the configs
// the others replay.
std::vector<std::array<char, 2>> round_orders(RoundOrder order, int rounds, std::uint64_t seed);

}  // namespace caliber
