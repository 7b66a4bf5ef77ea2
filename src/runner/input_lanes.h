// The other input and output sets of a graph replay (docs/integrity.md, "Fresh inputs"): under
// the graph schedule each of the N calls captured into a graph runs on its own set, so no call of
// a replay sees values another call of it saw, and each writes its own outputs. Set 0 is the
// cell's working set (its inputs, its outputs); sets 1..N-1 live here while a graph measurement
// runs. Before each replay every set gets values drawn for it and its outputs are poisoned; an
// audit scans every set's outputs for the poison and judges one set, picked from the audit's seed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "caliber/backend.h"
#include "caliber/integrity.h"
#include "providers/provider.h"
#include "runner/shape_inputs.h"

namespace caliber::runner {

class InputLanes {
 public:
  // `outputs` are the op's outputs (in order; none is updated in place): their bytes, and the
  // dtype their poison is scanned in (none: poisoned bytewise, not scanned).
  InputLanes(Backend& backend, ShapeInputs& inputs, std::vector<BufferRef> outputs);

  // Holds `count` sets (set 0 being the cell's own): allocates sets 1..count-1, or frees them
  // when count <= 1. Returns how many sets there are: 1 when the device has no room for count.
  std::size_t resize(std::size_t count);
  std::size_t count() const { return 1 + lanes_.size(); }
  // The buffers of set `k` (0: `own`, the cell's).
  const providers::OpBuffers& buffers(std::size_t k, const providers::OpBuffers& own) const;
  // Draws the inputs of sets 1.. from `seed` (each its own seed) and poisons their outputs,
  // asynchronously, outside every window.
  void draw(std::uint64_t seed);
  // The set an audit with `seed` judges (0 .. count()-1), and the seed its inputs were drawn from.
  std::size_t picked(std::uint64_t seed) const;
  std::uint64_t seed_of(std::uint64_t seed, std::size_t k) const;
  // The first set 1.. whose outputs hold poison (a call of the replay skipped its work), or "".
  std::string nonfinite() const;

 private:
  struct Lane {
    std::vector<DeviceBuffer> inputs, outputs;
    providers::OpBuffers buffers;
  };
  Lane make_lane() const;

  Backend& backend_;
  ShapeInputs& inputs_;
  std::vector<BufferRef> outputs_;
  std::vector<Lane> lanes_;
};

}  // namespace caliber::runner
