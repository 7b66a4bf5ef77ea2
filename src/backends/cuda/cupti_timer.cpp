// The cupti instrument. start/stop push and pop an external correlation id around the timed call;
// collect_us flushes CUPTI (after the engine's device synchronize, outside every window),
// attributes records by identity (core/kernel_attribution) and reduces each sample per the
// contract's cupti_reduction. docs/cupti.md explains the rules and their limits.
#include "backends/cuda/cupti_timer.h"

#include <fmt/format.h>

#include "backends/cuda/cupti_session.h"
#include "caliber/errors.h"
#include "caliber/result.h"
#include "core/kernel_attribution.h"
#include "core/replay_calls.h"

namespace caliber::cuda {
namespace {

// docs/cupti.md ("What CUPTI costs", measured on the H200): on Hopper CUPTI timestamps kernels by
// software instrumentation that costs about 75 ps per block; from ~65,536 blocks the inflation
// reached +2%.
constexpr std::uint64_t kManyBlocks = 65536;

class CuptiTimer final : public SampleTimer {
 public:
  CuptiTimer(CuptiReduction reduction, std::shared_ptr<const OwnGraphNodes> own, std::size_t calls_per_sample)
      : reduction_(reduction), own_(std::move(own)), calls_per_sample_(calls_per_sample) {}

  Instrument instrument() const override { return Instrument::cupti; }

  void reset(std::size_t count) override {
    first_id_ = cupti::reserve_external_ids(count);
    count_ = count;
  }
  void start(std::size_t i) override {
    if (i >= count_) throw std::out_of_range("cupti timer: sample beyond reset()");
    cupti::push_external_id(first_id_ + i);
  }
  void stop(std::size_t) override { cupti::pop_external_id(); }
  bool reads_host_clock() const override { return false; }

  std::vector<double> collect_us(std::size_t count) override {
    cupti::Drained d = cupti::drain();
    if (d.dropped_records > 0) {
      throw DeviceError(fmt::format("CUPTI dropped {} activity records; the samples cannot be "
                                    "attributed",
                                    d.dropped_records));
    }
    const std::unordered_set<std::uint64_t> none;
    const auto samples = attribute_activity(d.activities, d.correlations, first_id_, count,
                                            own_ ? own_->executed_ids : none);
    const std::vector<std::size_t> no_graphs;
    if (auto why = why_attribution_failed(samples, own_ ? own_->per_graph : no_graphs,
                                          static_cast<std::size_t>(breakdown_.samples()))) {
      throw DeviceError("cupti: " + *why);
    }
    std::vector<double> us(count);
    for (std::size_t i = 0; i < count; ++i) {
      us[i] = reduce_sample_ns(samples[i], reduction_) / 1000.0;
      split_calls(samples[i], static_cast<std::size_t>(breakdown_.samples()));
      breakdown_.add(samples[i]);
      excluded_ += samples[i].excluded.size();
    }
    return us;
  }

  CallsWithinSamples calls_within_samples() const override { return within_; }

  void annotate(Result& r) const override {
    r.kernels = breakdown_.stats();
    r.kernel_set_changes = breakdown_.changed_samples();
    r.notes.push_back(fmt::format(
        "cupti ({}): {}; attributed by an external correlation id pushed around each timed call, "
        "never by kernel name",
        cupti::describe(), reduction_note()));
    if (excluded_ > 0 && own_) {
      r.notes.push_back(fmt::format("cupti: {} records of the cache flush captured into the graph were "
                                    "excluded by graph-node identity ({})",
                                    excluded_, own_->method));
    }
    if (const std::string w = breakdown_.change_warning(); !w.empty()) r.warnings.push_back(w);
    for (const KernelStat& k : r.kernels) {
      if (k.max_blocks >= kManyBlocks) {
        r.warnings.push_back(fmt::format(
            "{} runs {} blocks: CUPTI kernel tracing slows kernels in proportion to their block "
            "count on this architecture (+9% at 262,144 blocks on an H200, docs/cupti.md); compare "
            "with --instrument event",
            k.name, k.max_blocks));
      }
    }
  }

 private:
  // A graph replay's calls, told apart (core/replay_calls.h), into within_.
  void split_calls(const SampleActivity& sample, std::size_t index) {
    if (calls_per_sample_ < 2) return;
    SampleCalls calls = split_sample_calls(sample, calls_per_sample_, reduction_);
    within_.told_apart_by = "CUPTI's records of each replay";
    within_.work_compared = true;
    if (within_.unlike_work.empty() && !calls.unlike_work.empty()) {
      within_.unlike_work = fmt::format("in sample {}, {}", index, calls.unlike_work);
    }
    if (!calls.call_ns) {
      ++within_.not_told_apart;
      return;
    }
    std::vector<double> call_us;
    for (double ns : *calls.call_ns) call_us.push_back(ns / 1000.0);
    within_.call_us.push_back(std::move(call_us));
  }

  std::string reduction_note() const {
    switch (reduction_) {
      case CuptiReduction::busy: return "busy = union of the call's kernel, copy and fill intervals";
      case CuptiReduction::sum: return "sum of the call's kernel, copy and fill durations";
      case CuptiReduction::span: return "span = first start to last end of the call's device work";
    }
    return "?";
  }

  cupti::TracingLease lease_;  // tracing on for the timer's life
  CuptiReduction reduction_;
  std::shared_ptr<const OwnGraphNodes> own_;
  std::uint64_t first_id_ = 0;
  std::size_t count_ = 0;
  KernelBreakdown breakdown_;
  std::size_t excluded_ = 0;
  std::size_t calls_per_sample_ = 1;  // graph: the calls captured per replay
  CallsWithinSamples within_;
};

class CuptiTracing final : public ActivityTracing {
  cupti::TracingLease lease_;
};

}  // namespace

std::unique_ptr<SampleTimer> make_cupti_timer(CuptiReduction reduction,
                                              std::shared_ptr<const OwnGraphNodes> own_nodes,
                                              std::size_t calls_per_sample) {
  return std::make_unique<CuptiTimer>(reduction, std::move(own_nodes), calls_per_sample);
}

std::unique_ptr<ActivityTracing> keep_cupti_tracing_on() { return std::make_unique<CuptiTracing>(); }

}  // namespace caliber::cuda
