// The cupti instrument: kernel-only time of exactly the work each timed call issued.
// Declared without CUDA types; defined in cupti_timer.cu.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

#include "caliber/backend.h"

namespace caliber::cuda {

// caliber's own work captured into the graphs of one measurement (the cache flush of schedule
// graph with cache cold), by executed graph-node identity. Filled by the backend's capture,
// read by the timer that the same backend created for the measurement.
struct OwnGraphNodes {
  std::unordered_set<std::uint64_t> executed_ids;
  std::vector<std::size_t> per_graph;  // own nodes in each captured graph
  std::string method;                  // how template nodes were mapped to executed nodes
};

// Throws ContractError when CUPTI is unavailable or refuses to trace. calls_per_sample: the calls
// one sample holds (graph: the calls captured per replay), told apart in calls_within_samples().
std::unique_ptr<SampleTimer> make_cupti_timer(CuptiReduction reduction,
                                              std::shared_ptr<const OwnGraphNodes> own_nodes,
                                              std::size_t calls_per_sample = 1);

// Keeps CUPTI tracing on while alive (bench --cupti-tracing on). Throws ContractError.
std::unique_ptr<ActivityTracing> keep_cupti_tracing_on();

}  // namespace caliber::cuda
