#include "runner/input_lanes.h"

#include <fmt/format.h>

#include "caliber/errors.h"
#include "integrity/subject_buffers.h"
#include "ops/uniform_draw.h"

namespace caliber::runner {

InputLanes::InputLanes(Backend& backend, ShapeInputs& inputs, std::vector<BufferRef> outputs)
    : backend_(backend), inputs_(inputs), outputs_(std::move(outputs)) {}

InputLanes::Lane InputLanes::make_lane() const {
  Lane lane;
  for (const DeviceBuffer& b : inputs_.working()) {
    lane.inputs.emplace_back(backend_, b.bytes());
    lane.buffers.inputs.push_back(lane.inputs.back().get());
  }
  for (const BufferRef& o : outputs_) {
    lane.outputs.emplace_back(backend_, o.bytes);
    lane.buffers.outputs.push_back(lane.outputs.back().get());
  }
  lane.buffers.output = lane.buffers.outputs.empty() ? nullptr : lane.buffers.outputs.front();
  return lane;
}

std::size_t InputLanes::resize(std::size_t count) {
  lanes_.clear();
  try {
    while (count > 1 && lanes_.size() + 1 < count) lanes_.push_back(make_lane());
  } catch (const OutOfMemoryError&) {
    lanes_.clear();  // no room for one set per call: the calls of a replay share set 0
  }
  return this->count();
}

const providers::OpBuffers& InputLanes::buffers(std::size_t k, const providers::OpBuffers& own) const {
  return k == 0 || k > lanes_.size() ? own : lanes_[k - 1].buffers;
}

std::uint64_t InputLanes::seed_of(std::uint64_t seed, std::size_t k) const {
  return k == 0 ? seed : ops::splitmix64(seed ^ ops::splitmix64(0x6c616e65ull + k));
}

std::size_t InputLanes::picked(std::uint64_t seed) const {
  return static_cast<std::size_t>(ops::splitmix64(seed ^ 0x7069636bull) % count());
}

void InputLanes::draw(std::uint64_t seed) {
  for (std::size_t k = 0; k < lanes_.size(); ++k) {
    inputs_.draw_buffers(lanes_[k].inputs, seed_of(seed, k + 1));
    for (std::size_t o = 0; o < outputs_.size(); ++o) {
      if (outputs_[o].dtype) {
        integrity::poison_async(backend_, lanes_[k].outputs[o].get(), *outputs_[o].dtype, outputs_[o].bytes);
      } else {
        backend_.fill_bytes(lanes_[k].outputs[o].get(), integrity::kPoisonByte, outputs_[o].bytes);
      }
    }
  }
}

std::string InputLanes::nonfinite() const {
  for (std::size_t k = 0; k < lanes_.size(); ++k) {
    for (std::size_t o = 0; o < outputs_.size(); ++o) {
      if (!outputs_[o].dtype) continue;
      const std::size_t elements = outputs_[o].bytes / dtype_size_bytes(*outputs_[o].dtype);
      const std::uint64_t bad = backend_.count_nonfinite(lanes_[k].outputs[o].get(), elements, *outputs_[o].dtype);
      if (bad > 0) {
        return fmt::format("{} of {} elements of output {} of call {} of the graph replay are NaN or infinite "
                           "(poison left: work skipped)",
                           bad, elements, o, k + 1);
      }
    }
  }
  return {};
}

}  // namespace caliber::runner
