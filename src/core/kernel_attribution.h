// Kernel-only time from device activity records, attributed by identity.
//
// A tracer (CUPTI on cuda) reports every kernel, copy and fill the device ran, each with the
// correlation id of the API call that issued it. caliber pushes an external id around each timed
// call; the tracer reports which API calls were issued under which external id. A record counts
// for sample i exactly when its API call was issued under sample i's external id, and it is not
// one of caliber's own graph nodes (the cache flush captured into a graph). No kernel name is
// ever looked at to decide what counts. docs/cupti.md explains the rules.
//
// Pure and CUDA-free: the cuda backend converts CUPTI records into these structs; tests feed
// literal records.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <unordered_map>
#include <span>
#include <string>
#include <unordered_set>
#include <vector>

#include "caliber/contract.h"
#include "caliber/result.h"

namespace caliber {

// One piece of device work. Times in nanoseconds of the tracer's clock.
struct DeviceActivity {
  enum class Kind { kernel, memcpy, memset };
  Kind kind = Kind::kernel;
  std::string name;                          // demangled kernel name, "[memcpy DtoD]", "[memset]"
  std::uint64_t start_ns = 0;
  std::uint64_t end_ns = 0;
  std::uint32_t correlation_id = 0;          // the API call that issued it
  std::uint32_t runtime_correlation_id = 0;  // memcpy: the runtime API call; 0 when none
  std::uint32_t stream_id = 0;
  std::uint32_t device_id = 0;                // the device it ran on
  std::uint32_t context_id = 0;               // the context it ran in
  std::uint64_t graph_node_id = 0;           // the executed graph node; 0 outside graphs
  std::uint64_t blocks = 0;                  // kernels: blocks in the grid; 0 otherwise
  std::string mangled_name;                  // kernels: the name as compiled (code fingerprints)
};

// API call `correlation_id` was issued while `external_id` was pushed on its thread.
struct ExternalCorrelation {
  std::uint32_t correlation_id = 0;
  std::uint64_t external_id = 0;
};

// What one timed sample ran.
struct SampleActivity {
  std::vector<DeviceActivity> counted;   // the measured call's work
  std::vector<DeviceActivity> excluded;  // caliber's own work inside the window (graph flush nodes)
};

// Samples [0, samples) carried external ids first_external_id + i. Records whose API call carried
// no external id, or one outside that range, belong to no sample (warmup, the flush of a
// non-graph schedule, another batch). Records of a node in `own_graph_nodes` are excluded.
std::vector<SampleActivity> attribute_activity(std::span<const DeviceActivity> activities,
                                               std::span<const ExternalCorrelation> correlations,
                                               std::uint64_t first_external_id, std::size_t samples,
                                               const std::unordered_set<std::uint64_t>& own_graph_nodes);

// The calls of one sample. A graph replay under cache cold runs flush, call, flush, call, ...;
// its counted records are split into calls at caliber's own (excluded) records, in time order:
// a call is the counted work between two of caliber's records (the empty stretch between the two
// kernels of one flush is no call). Without excluded records the sample is one piece (one call,
// or a replay whose call boundaries nothing marks). Each call's records are in start order.
std::vector<std::vector<DeviceActivity>> calls_of_sample(const SampleActivity& sample);

// Why a batch's attribution cannot be trusted, or nullopt: a sample with no counted work (the
// call launched nothing on the timing thread, or records were lost), a counted record the tracer
// could not time (zero timestamps), a graph sample whose excluded own-node count matches no
// captured graph's (own_nodes_per_graph non-empty: the identity mapping failed, so the flush may
// be counted or a kernel dropped), or one of caliber's own records running inside a call's work
// (first start to last end): the flush overlapped the call, so no reduction could keep it out.
// An overlap of at most kFlushAdjacencySkewNs is timestamp skew, not overlap: CUPTI's timestamps
// on Hopper put a graph node's start before its predecessor's recorded end although the graph
// orders them (H200, 2026-12-02: 95 ns and 32 ns between a call's last kernel and the captured
// flush that depends on it; at 929deaa, 2 of 25 runs of CuptiTest.GraphColdExcludesTheCaptured-
// FlushByIdentity: a 1.5 us kernel recorded starting 960 ns before the eviction kernel it depends
// on ended, and a call recorded ending 1024 ns after the next flush started), far below the flush's
// own 30-40 us. The reductions count only the call's own records, so the skew never adds flush time
// to a value. `first_sample` numbers the samples in messages.
inline constexpr std::uint64_t kFlushAdjacencySkewNs = 2000;
std::optional<std::string> why_attribution_failed(std::span<const SampleActivity> samples,
                                                  std::span<const std::size_t> own_nodes_per_graph,
                                                  std::size_t first_sample = 0);

// The executed-node ids of template graph nodes after instantiation. Each id comes from `clones`
// (template id -> executed id, from CUPTI's graph-node-cloned callback; a chain of clones is
// followed to its end) when it has it; otherwise
// from the node index: CUPTI node ids are (graph id << 32 | node index) and instantiation keeps
// the index while the graph id becomes the executable graph's (measured on the H200,
// docs/cupti.md: 4294967296 -> 8589934592). by_index says whether any id had to be derived that way.
struct ExecutedNodes {
  std::vector<std::uint64_t> ids;
  bool by_index = false;
};
ExecutedNodes executed_graph_nodes(std::span<const std::uint64_t> template_ids,
                                   const std::unordered_map<std::uint64_t, std::uint64_t>& clones,
                                   std::uint32_t exec_graph_id);

// One duration from one call's records, in nanoseconds:
//  sum  - sum of durations;
//  busy - length of the union of the intervals (overlapping work counted once);
//  span - first start to last end (includes idle gaps between the call's kernels).
// 0 for no records.
double reduce_activity_ns(std::span<const DeviceActivity> activities, CuptiReduction reduction);

// One duration of a sample, in nanoseconds: reduce_activity_ns of each of its calls
// (calls_of_sample), summed. A graph replay's sample is this over its N calls (the engine divides
// by N): under cache cold no reduction, span included, ever covers the flush between the calls.
double reduce_sample_ns(const SampleActivity& sample, CuptiReduction reduction);

// Accumulates the per-kernel breakdown and checks that every sample ran the same set of kernels
// (the same names, the same number of times each) as the first sample.
class KernelBreakdown {
 public:
  void add(const SampleActivity& sample);
  // Sorted by total time, largest first.
  std::vector<KernelStat> stats() const;
  std::int64_t samples() const { return samples_; }
  std::int64_t changed_samples() const { return changed_samples_; }
  // "kernel set changed in 2 of 40 samples: sample 0 ran {a x1}, sample 7 ran {a x1, b x1}";
  // empty when it never changed.
  std::string change_warning() const;

 private:
  using KernelSet = std::map<std::string, std::int64_t>;  // name -> launches in one sample
  static std::string describe(const KernelSet& set);
  struct Totals {
    std::int64_t launches = 0;
    double total_ns = 0;
    std::uint64_t max_blocks = 0;
  };
  std::map<std::string, Totals> totals_;
  std::int64_t samples_ = 0;
  KernelSet first_set_;
  std::int64_t changed_samples_ = 0;
  std::int64_t first_change_index_ = -1;
  KernelSet first_change_set_;
};

}  // namespace caliber
