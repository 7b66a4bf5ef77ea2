// The cache policies as one unit (docs: cache policy in the README's vocabulary): what `cold` and
// `rotate` need from the backend and the workload before anything runs, where a cold flush goes,
// and which input copy each call of a rotation uses. warm needs nothing.
#pragma once

#include <cstddef>
#include <cstdint>

#include "caliber/backend.h"
#include "caliber/contract.h"
#include "caliber/measure.h"

namespace caliber::measurement {

// What a measurement's cache policy set up: the bytes a cold flush overwrites (else 0) and the
// input copies a rotation cycles through (else 0).
struct CacheSetup {
  std::uint64_t flush_bytes = 0;
  std::size_t rotation_copies = 0;
};

// ContractError when the policy cannot be kept: cold needs a flush of >= 2x the last-level cache;
// rotate needs >= 2 input copies covering >= 2x the last-level cache.
CacheSetup set_up_cache_policy(const Backend& backend, const Contract& contract, const MeasureOptions& options);

// cold: a flush before each eager call, outside its window.
bool flushes_before_each_call(const Contract& contract);

// Where the cold flush goes under the graph schedule. With several calls per graph it is captured
// before each call (only the cupti instrument may time such a graph; the contract enforces it);
// with one call per graph it runs before each replay, outside the window, like an eager call's.
enum class GraphFlush { none, captured_before_each_call, before_each_replay };
GraphFlush graph_flush(const Contract& contract);

// The input copy of each call under cache rotate: calls cycle through the copies; 0 otherwise.
class InputRotation {
 public:
  explicit InputRotation(std::size_t copies = 0) : copies_(copies) {}
  std::size_t copies() const { return copies_; }
  bool rotates() const { return copies_ > 1; }
  std::size_t next() { return rotates() ? cursor_++ % copies_ : 0; }
  // The next call uses copy 0 (a verified sample's outputs are copy 0's).
  void rewind() { cursor_ = 0; }
  // Call `j` of graph `g` of `calls_per_graph`: graph g holds calls g*N .. g*N+N-1 of the rotation.
  std::size_t of_captured_call(std::size_t g, std::size_t calls_per_graph, std::size_t j) const {
    return (g * calls_per_graph + j) % copies_;
  }
  // Graphs needed so that every copy is captured once (1 without rotation).
  std::size_t graphs_needed(std::size_t calls_per_graph) const {
    return rotates() ? (copies_ + calls_per_graph - 1) / calls_per_graph : 1;
  }

 private:
  std::size_t copies_;
  std::size_t cursor_ = 0;
};

}  // namespace caliber::measurement
