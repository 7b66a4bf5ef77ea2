#include "backends/cuda/graph_capture.cuh"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>

#include "backends/cuda/cuda_check.cuh"
#include "backends/cuda/cupti_session.h"
#include "backends/cuda/str_cat.h"
#include "core/kernel_attribution.h"

namespace caliber::cuda {
namespace {

class CudaGraphExec final : public GraphExec {
 public:
  CudaGraphExec(cudaGraph_t graph, cudaGraphExec_t exec, cudaStream_t stream, GraphNodeCounts counts)
      : graph_(graph), exec_(exec), stream_(stream), counts_(counts) {}
  ~CudaGraphExec() override {
    cudaGraphExecDestroy(exec_);
    cudaGraphDestroy(graph_);
  }
  void launch() override { CALIBER_CUDA_CHECK(cudaGraphLaunch(exec_, stream_)); }
  std::optional<GraphNodeCounts> node_counts() const override { return counts_; }

 private:
  cudaGraph_t graph_;
  cudaGraphExec_t exec_;
  cudaStream_t stream_;
  GraphNodeCounts counts_;
};

// The graph's device work, the captured flushes counted apart (they are kernels).
GraphNodeCounts count_work_and_flushes(cudaGraph_t graph, std::size_t flushes) {
  GraphNodeCounts counts;
  try {
    counts = count_graph_nodes(graph);
  } catch (...) {
    cudaGraphDestroy(graph);
    throw;
  }
  counts.own = flushes;
  counts.kernels -= std::min(counts.kernels, counts.own);
  return counts;
}

// Which executed nodes the instantiation made of the captured flushes, and how that was learned.
void record_executed_flush_nodes(const std::vector<std::uint64_t>& flush_template_ids,
                                 const cupti::CloneTracking& clones, cudaGraphExec_t exec, OwnGraphNodes& own) {
  const ExecutedNodes executed = executed_graph_nodes(flush_template_ids, clones.clones(), cupti::graph_exec_id(exec));
  own.executed_ids.insert(executed.ids.begin(), executed.ids.end());
  own.per_graph.push_back(executed.ids.size());
  std::string why_no_callback;
  if (executed.by_index) {
    cupti::CloneTracking::available(&why_no_callback);
    own.method = str_cat("node index within the graph; the graph-node-cloned callback ",
                         why_no_callback.empty() ? "did not report these nodes" : "is unavailable: " + why_no_callback);
  } else if (own.method.empty()) {
    own.method = "template nodes mapped to executed nodes by CUPTI's graph-node-cloned callback";
  }
}

}  // namespace

GraphNodeCounts count_graph_nodes(cudaGraph_t graph) {
  GraphNodeCounts counts;
  std::size_t n = 0;
  CALIBER_CUDA_CHECK(cudaGraphGetNodes(graph, nullptr, &n));
  std::vector<cudaGraphNode_t> nodes(n);
  if (n) CALIBER_CUDA_CHECK(cudaGraphGetNodes(graph, nodes.data(), &n));
  for (cudaGraphNode_t node : nodes) {
    cudaGraphNodeType type{};
    CALIBER_CUDA_CHECK(cudaGraphNodeGetType(node, &type));
    switch (type) {
      case cudaGraphNodeTypeKernel: ++counts.kernels; break;
      case cudaGraphNodeTypeMemcpy: ++counts.copies; break;
      case cudaGraphNodeTypeMemset: ++counts.fills; break;
      case cudaGraphNodeTypeGraph: {
        cudaGraph_t child{};
        CALIBER_CUDA_CHECK(cudaGraphChildGraphNodeGetGraph(node, &child));
        const GraphNodeCounts c = count_graph_nodes(child);
        counts.kernels += c.kernels;
        counts.copies += c.copies;
        counts.fills += c.fills;
        break;
      }
      default: break;  // event records and waits, empty and host nodes: no device work
    }
  }
  return counts;
}

void end_failed_capture(cudaStream_t stream) noexcept {
  cudaStreamCaptureStatus status{};
  if (cudaStreamIsCapturing(stream, &status) == cudaSuccess && status != cudaStreamCaptureStatusNone) {
    cudaGraph_t broken{};
    cudaStreamEndCapture(stream, &broken);
    if (broken) cudaGraphDestroy(broken);
  }
  cudaGetLastError();
}

std::unique_ptr<GraphExec> instantiate_captured_graph(cudaGraph_t graph, cudaStream_t stream,
                                                      const std::vector<cudaGraphNode_t>& flush_nodes,
                                                      OwnGraphNodes* own_nodes) {
  const GraphNodeCounts counts = count_work_and_flushes(graph, flush_nodes.size());
  // The cupti timer of this measurement excludes the captured flush nodes by identity: their
  // template ids now, their executed ids once instantiation has cloned them.
  std::vector<std::uint64_t> flush_template_ids;
  std::optional<cupti::CloneTracking> clones;
  if (own_nodes) {
    for (cudaGraphNode_t node : flush_nodes) flush_template_ids.push_back(cupti::graph_node_id(node));
    clones.emplace();
  }
  cudaGraphExec_t exec{};
  const cudaError_t e = cudaGraphInstantiate(&exec, graph, 0);
  if (e != cudaSuccess) {
    cudaGraphDestroy(graph);
    throw_cuda_error(e, "cudaGraphInstantiate(&exec, graph, 0)", __FILE__, __LINE__);
  }
  auto result = std::make_unique<CudaGraphExec>(graph, exec, stream, counts);
  if (own_nodes) record_executed_flush_nodes(flush_template_ids, *clones, exec, *own_nodes);
  return result;
}

}  // namespace caliber::cuda
