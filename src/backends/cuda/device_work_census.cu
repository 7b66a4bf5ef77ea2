#include "backends/cuda/device_work_census.cuh"

#include <cstdint>
#include <optional>
#include <vector>

#include "backends/cuda/cuda_check.cuh"
#include "backends/cuda/cuda_integrity_kernels.cuh"
#include "backends/cuda/cupti_session.h"
#include "backends/cuda/graph_capture.cuh"
#include "backends/cuda/str_cat.h"
#include "core/kernel_attribution.h"

namespace caliber::cuda {
namespace {

// The device drained and its errors surfaced, as Backend::synchronize_device and check_errors do.
void synchronize_and_check() {
  CALIBER_CUDA_CHECK(cudaDeviceSynchronize());
  CALIBER_CUDA_CHECK(cudaGetLastError());
}

// Marker kernels on the measured stream before and after the call, each under its own id
// (first, first + 2; the call runs under first + 1): they name the measured stream's CUPTI id and
// bracket the call in device time.
void run_between_markers(cudaStream_t stream, const std::function<void()>& call, std::uint64_t first) {
  cupti::push_external_id(first);
  launch_census_marker(stream);
  cupti::pop_external_id();
  cupti::push_external_id(first + 1);
  try {
    call();
  } catch (...) {
    cupti::pop_external_id();
    throw;
  }
  cupti::pop_external_id();
  cupti::push_external_id(first + 2);
  launch_census_marker(stream);
  cupti::pop_external_id();
}

// Counts the call's work by kind and stream into `c`; returns how many operations on other
// streams were still running after the marker that follows the call had started.
std::size_t tally_call_work(const std::vector<SampleActivity>& parts, DeviceWorkCensus& c) {
  const DeviceActivity& before = parts[0].counted.front();
  const DeviceActivity& after = parts[2].counted.front();
  std::size_t late = 0;
  for (const DeviceActivity& a : parts[1].counted) {
    switch (a.kind) {
      case DeviceActivity::Kind::kernel:
        ++c.kernels;
        c.kernel_names.push_back(a.name);
        c.mangled_kernel_names.push_back(a.mangled_name);
        break;
      case DeviceActivity::Kind::memcpy: ++c.copies; break;
      case DeviceActivity::Kind::memset: ++c.fills; break;
    }
    if (a.device_id != before.device_id || a.context_id != before.context_id) ++c.off_device;
    if (a.stream_id != before.stream_id) {
      ++c.off_stream;
      if (a.end_ns > after.start_ns) ++late;
    }
  }
  return late;
}

// Off-stream work that ended in time in one run may still be unordered: capture one call of the
// measured stream. Work forked from it and joined back is captured; work on a stream it does
// not order runs outside the capture; a fork never joined makes the capture fail.
void establish_ordering_by_capture(cudaStream_t stream, const std::function<void()>& call, DeviceWorkCensus& c) {
  CALIBER_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  try {
    call();
  } catch (...) {
    end_failed_capture(stream);
    throw;
  }
  cudaGraph_t graph{};
  const cudaError_t ended = cudaStreamEndCapture(stream, &graph);
  if (ended != cudaSuccess) {
    if (graph) cudaGraphDestroy(graph);
    end_failed_capture(stream);
    CALIBER_CUDA_CHECK(cudaDeviceSynchronize());
    if (ended == cudaErrorStreamCaptureUnjoined) {
      c.ordered = false;
      c.ordering_detail = "work forked from the measured stream is not joined back to it before the call returns "
                          "(stream capture: cudaErrorStreamCaptureUnjoined)";
    } else {
      c.ordering_detail = str_cat("could not be established: ", c.off_stream,
                                  " operations ran on other streams and the call cannot be captured to prove their "
                                  "order (", cudaGetErrorName(ended), ")");
    }
    return;
  }
  GraphNodeCounts counts;
  try {
    counts = count_graph_nodes(graph);
  } catch (...) {
    cudaGraphDestroy(graph);
    throw;
  }
  cudaGraphDestroy(graph);
  CALIBER_CUDA_CHECK(cudaDeviceSynchronize());  // what ran outside the capture
  if (counts.work() < c.work()) {
    c.ordered = false;
    c.ordering_detail = str_cat(c.work() - counts.work(), " of ", c.work(),
                                " operations were launched on a stream the measured stream does not order (a capture "
                                "of the measured stream holds only ", counts.work(), ")");
  } else {
    c.ordered = true;
    c.ordering_detail = str_cat(c.off_stream, " of ", c.work(),
                                " operations run on other streams, forked from the measured stream and joined back "
                                "(proven by stream capture)");
  }
}

// Whether all of the observed call's work is ordered on the measured stream, and how that is known.
void judge_ordering(cudaStream_t stream, const std::function<void()>& call, std::size_t late, DeviceWorkCensus& c) {
  if (c.other_threads > 0) {
    c.ordered = false;
    c.ordering_detail = str_cat(c.other_threads, " device operations during the call were issued by another host "
                                                 "thread");
  } else if (c.off_stream == 0) {
    c.ordered = true;
    c.ordering_detail = str_cat("all ", c.work(), " operations of the call on the measured stream");
  } else if (late > 0) {
    c.ordered = false;
    c.ordering_detail = str_cat(late, " of ", c.off_stream,
                                " operations on other streams were still running after the measured stream had moved "
                                "past the call: work forked from it and never joined back");
  } else {
    establish_ordering_by_capture(stream, call, c);
  }
}

}  // namespace

DeviceWorkCensus census_device_work(cudaStream_t stream, const std::function<void()>& call) {
  DeviceWorkCensus c;
  std::optional<cupti::TracingLease> lease;
  if (auto why = cupti::unavailable_reason()) {
    c.why_not_observed = "CUPTI is not available: " + *why;
  } else {
    try {
      lease.emplace();
    } catch (const ContractError& e) {
      c.why_not_observed = e.what();
    }
  }
  if (!lease) {
    call();
    synchronize_and_check();
    c.ordering_detail = c.why_not_observed;
    return c;
  }
  CALIBER_CUDA_CHECK(cudaDeviceSynchronize());
  cupti::drain();  // earlier work belongs to no census
  const std::uint64_t first = cupti::reserve_external_ids(3);
  run_between_markers(stream, call, first);
  synchronize_and_check();
  const cupti::Drained d = cupti::drain();
  if (d.dropped_records > 0) {
    c.why_not_observed = str_cat("CUPTI dropped ", d.dropped_records, " activity records of the call");
    c.ordering_detail = c.why_not_observed;
    return c;
  }
  const std::vector<SampleActivity> parts = attribute_activity(d.activities, d.correlations, first, 3, {});
  if (parts[0].counted.empty() || parts[2].counted.empty()) {
    c.why_not_observed = "CUPTI did not report the census markers around the call";
    c.ordering_detail = c.why_not_observed;
    return c;
  }
  c.observed = true;
  const std::size_t late = tally_call_work(parts, c);
  const std::size_t attributed = parts[0].counted.size() + parts[1].counted.size() + parts[2].counted.size();
  c.other_threads = d.activities.size() - attributed;
  judge_ordering(stream, call, late, c);
  return c;
}

}  // namespace caliber::cuda
