#include "ab/round_order.h"

#include <algorithm>
#include <random>
#include <string>

#include <fmt/format.h>

#include "caliber/errors.h"

namespace caliber {

std::string_view to_string(RoundOrder o) { return o == RoundOrder::alternate ? "alternate" : "random"; }

RoundOrder parse_round_order(std::string_view s) {
  if (s == "alternate") return RoundOrder::alternate;
  if (s == "random") return RoundOrder::random;
  throw UsageError(fmt::format("unknown round order '{}' (expected alternate|random)", s));
}

std::vector<std::array<char, 2>> round_orders(RoundOrder order, int rounds, std::uint64_t seed) {
  std::vector<std::array<char, 2>> out;
  if (rounds <= 0) return out;
  constexpr std::array<char, 2> kAB{'A', 'B'}, kBA{'B', 'A'};
  if (order == RoundOrder::alternate) {
    for (int k = 1; k <= rounds; ++k) out.push_back(k % 2 == 1 ? kAB : kBA);
    return out;
  }
  std::mt19937_64 engine(seed);
  for (int k = 0; k < rounds / 2; ++k) {
    out.push_back(kAB);
    out.push_back(kBA);
  }
  if (rounds % 2 == 1) out.push_back(engine() % 2 == 0 ? kAB : kBA);
  for (std::size_t i = out.size() - 1; i > 0; --i) {
    const std::size_t j = static_cast<std::size_t>(engine() % (i + 1));
    std::swap(out[i], out[j]);
  }
  // Round 1 runs A first: A's first cell records the configs every other cell replays (docs/ab.md,
  // "Configs: recorded once, replayed everywhere"). Swapping it with the first AB round keeps the
  // counts.
  if (out[0] == kBA) {
    const auto ab = std::find(out.begin() + 1, out.end(), kAB);
    if (ab != out.end()) {
      std::swap(out[0], *ab);
    } else {
      out[0] = kAB;  // one round: A first is still "each side first in floor or ceil of n/2 rounds"
    }
  }
  return out;
}

}  // namespace caliber
