// graph: N calls captured into a device graph, replayed; one sample per replay = replay time / N
// (host launch overhead removed: kernel-only). Under cache rotate there are enough graphs to
// cover every input copy once, replayed round-robin. Fresh inputs are drawn before each replay.
// With a poison between calls, an audit graph holds the same N calls, each after the poison, and
// is replayed untimed at the audits: a call that skips its work in a graph leaves poison. A timer
// that tells a replay's calls apart only by marks (events) gets them in the graph replayed at the
// audits (the audit graph, else a marked copy of graph 0): each call's own duration.
#include "measure/schedule.h"

#include <utility>

namespace caliber::measurement {
namespace {

class Graph final : public ScheduleUnit {
 public:
  Graph(CallSite& site, SampleTimer& timer, GraphCaptured on_captured, PoisonBetweenCalls poison, bool audited)
      : site_(site), timer_(timer), on_captured_(std::move(on_captured)), poison_(std::move(poison)),
        audited_(audited), calls_per_graph_(static_cast<std::size_t>(site.contract().graph_calls)) {}

  // Graph g holds calls g*N .. g*N+N-1 of the rotation (cache_policy.h).
  void set_up() override {
    Backend& backend = site_.backend();
    const std::size_t n = calls_per_graph_;
    const std::size_t count = site_.rotation().graphs_needed(n);
    for (std::size_t g = 0; g < count; ++g) {
      // By value: a backend may keep the recorder and replay it after this frame is gone (the
      // scripted device of the integrity tests does).
      graphs_.push_back(backend.capture_graph([this, g] { record_calls(g, false); }));
      if (on_captured_) on_captured_(*graphs_.back(), n);
    }
    const bool marks = audited_ && timer_.marks_calls() && n > 1;
    if (poison_) {
      audit_graph_ = backend.capture_graph([this, marks] { record_calls(0, true, marks); });
      audit_graph_->launch();
    } else if (marks) {
      marked_graph_ = backend.capture_graph([this] { record_calls(0, false, true); });
      marked_graph_->launch();
    }
    marks_ = marks;
    for (auto& graph : graphs_) graph->launch();  // upload + first replay, untimed
    backend.synchronize_device();
    backend.check_errors();
  }

  // The audit graph's replay, for the audit to judge; or (per-call input sets) the marked copy's,
  // after the audit judged the timed replay: it only times the calls, nothing new to judge.
  bool replay_audit() override {
    GraphExec* graph = audit_graph_ ? audit_graph_.get() : marked_graph_.get();
    if (!graph) return false;
    graph->launch();
    site_.backend().synchronize_device();
    site_.backend().check_errors();
    if (marks_) timer_.read_marked_replay(calls_per_graph_);
    return graph == audit_graph_.get();
  }

  std::vector<double> run(std::size_t count, bool verified) override {
    const bool flush_per_replay = graph_flush(site_.contract()) == GraphFlush::before_each_replay;
    std::vector<double> begins;  // host time each window opened; closed by the batch's sync
    begins.reserve(count);
    timer_.reset(count);
    for (std::size_t i = 0; i < count; ++i) {
      site_.refresh();  // fresh inputs, before the flush: the draw must not warm the cache
      if (flush_per_replay) site_.backend().flush_cache();
      begins.push_back(site_.clock().now_us());
      timer_.start(i);
      graphs_[verified ? 0 : i % graphs_.size()]->launch();
      stop_window(site_, timer_, i);
    }
    site_.backend().synchronize_device();
    site_.close_windows(begins);
    site_.count_timed_calls(count * calls_per_graph_);
    std::vector<double> d = collect_samples(site_, timer_, count);
    for (double& x : d) x /= static_cast<double>(calls_per_graph_);
    return d;
  }

 private:
  // What graph g captures: its N calls, each after a captured flush when the policy says so (the
  // audit graph: and after the poison), between the timer's marks when `marks`.
  void record_calls(std::size_t g, bool audit, bool marks = false) {
    const bool flush_each = graph_flush(site_.contract()) == GraphFlush::captured_before_each_call;
    InputRotation& rotation = site_.rotation();
    for (std::size_t j = 0; j < calls_per_graph_; ++j) {
      if (audit) poison_();
      if (flush_each) site_.backend().flush_cache();
      LaunchContext ctx = site_.next_context();
      if (rotation.rotates()) ctx.rotation = rotation.of_captured_call(g, calls_per_graph_, j);
      if (marks) timer_.mark_call(j, false);
      site_.call(ctx);
      if (marks) timer_.mark_call(j, true);
    }
  }

  CallSite& site_;
  SampleTimer& timer_;
  GraphCaptured on_captured_;
  PoisonBetweenCalls poison_;
  bool audited_;
  std::size_t calls_per_graph_;
  std::vector<std::unique_ptr<GraphExec>> graphs_;
  std::unique_ptr<GraphExec> audit_graph_;
  std::unique_ptr<GraphExec> marked_graph_;  // the calls between marks, where no audit graph holds them
  bool marks_ = false;
};

}  // namespace

std::unique_ptr<ScheduleUnit> graph_schedule(CallSite& site, SampleTimer& timer, GraphCaptured on_graph_captured,
                                             PoisonBetweenCalls poison, bool audited) {
  return std::make_unique<Graph>(site, timer, std::move(on_graph_captured), std::move(poison), audited);
}

}  // namespace caliber::measurement
