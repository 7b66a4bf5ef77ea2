// What the cuda backend does with a captured device graph: count its device work, instantiate it
// (excluding caliber's own captured cache flushes from a cupti timer's view by node identity),
// and clean up after a capture that failed. Internal to the cuda backend.
#pragma once

#include <cuda_runtime.h>

#include <memory>
#include <vector>

#include "backends/cuda/cupti_timer.h"
#include "caliber/backend.h"

namespace caliber::cuda {

// Kernel, copy and fill nodes of a graph, child graphs counted through.
GraphNodeCounts count_graph_nodes(cudaGraph_t graph);

// After a capture that failed (the callable threw, or ending it failed: a fork never joined,
// a call that capture does not allow): end it if it is still active, drop what it left, and
// consume the error it set, so that the next measurement in this process starts clean.
void end_failed_capture(cudaStream_t stream) noexcept;

// Instantiates `graph`, captured on `stream`, as a graph replayed on `stream`; owns `graph` from
// here on (destroyed with the result, or on failure). `flush_nodes`: the cache flushes captured
// between the calls, counted as caliber's own nodes rather than kernels. `own_nodes`: set while a
// cupti timer measures; the flushes' executed node ids are added to it so that timer excludes
// them by identity (never by kernel name).
std::unique_ptr<GraphExec> instantiate_captured_graph(cudaGraph_t graph, cudaStream_t stream,
                                                      const std::vector<cudaGraphNode_t>& flush_nodes,
                                                      OwnGraphNodes* own_nodes);

}  // namespace caliber::cuda
