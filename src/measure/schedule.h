// The schedules (the loop shapes isolated, per_iter, pipelined and graph, and host dispatch: the
// host clock around the launch only) as units behind one interface, one file each. What each
// keeps (tests/measure/test_schedule_*.cpp pin it):
//  - nothing but the call is inside a timed window: preparation, cache flushes and device
//    synchronization happen before start() or after stop();
//  - it produces the samples it promises (isolated, per_iter, host dispatch: one per call;
//    pipelined: one per window; graph: one per replay).
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <vector>

#include "caliber/backend.h"
#include "measure/call_site.h"

namespace caliber::measurement {

class ScheduleUnit {
 public:
  virtual ~ScheduleUnit() = default;
  // Untimed, after the warmup: what must exist before the first timed sample (graph: the
  // captured graphs, uploaded and replayed once).
  virtual void set_up() {}
  // Times `count` samples (pipelined: one window of `count` calls, which is one sample) and
  // returns their durations per call, in microseconds; each sample's host window goes to the
  // call site. verified: the batch is a verified sample (graph: it replays graph 0, whose first
  // call uses input copy 0).
  virtual std::vector<double> run(std::size_t count, bool verified) = 0;
  // Graph with an audit graph: replays it once, untimed, and synchronizes (true); the other
  // schedules have nothing to replay (false): an audit judges their last timed call. (A graph
  // whose timer marks calls replays its marked copy here, after the audit: false too.)
  virtual bool replay_audit() { return false; }
};

// Sees each captured graph and how many calls it holds, before its first replay; may throw to
// refuse it.
using GraphCaptured = std::function<void(const GraphExec& graph, std::size_t calls)>;

// Under the graph schedule, what separates the calls of the audit graph (docs/integrity.md,
// "Audited calls"): captured between each two calls, so that every call starts from poisoned
// outputs. Empty: no audit graph.
using PoisonBetweenCalls = std::function<void()>;

// The unit for the contract at `site`: host dispatch for the quantity host_dispatch (timer
// unused, may be null), else the contract's schedule timed by `timer`. `audited`: audits will
// replay (replay_audit), so a graph gets the timer's marks between its calls there.
std::unique_ptr<ScheduleUnit> make_schedule(CallSite& site, SampleTimer* timer, GraphCaptured on_graph_captured,
                                            PoisonBetweenCalls poison = {}, bool audited = false);

std::unique_ptr<ScheduleUnit> isolated_schedule(CallSite& site, SampleTimer& timer);
std::unique_ptr<ScheduleUnit> per_iter_schedule(CallSite& site, SampleTimer& timer);
std::unique_ptr<ScheduleUnit> pipelined_schedule(CallSite& site, SampleTimer& timer);
std::unique_ptr<ScheduleUnit> graph_schedule(CallSite& site, SampleTimer& timer, GraphCaptured on_graph_captured,
                                             PoisonBetweenCalls poison = {}, bool audited = false);
std::unique_ptr<ScheduleUnit> host_dispatch_schedule(CallSite& site);

// Closes window `sample`; a timer that reads the host clock sees the device's work only once the
// device is drained, so it drains it first.
void stop_window(CallSite& site, SampleTimer& timer, std::size_t sample);
// The durations of the batch's `count` windows, after the backend reported no error.
std::vector<double> collect_samples(CallSite& site, SampleTimer& timer, std::size_t count);

}  // namespace caliber::measurement
