#include "integrity/census_check.h"

#include <fmt/format.h>

#include "caliber/errors.h"

namespace caliber::integrity {
namespace {

namespace check = integrity_check;

std::string plural(std::size_t n, std::string_view one, std::string_view many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

[[noreturn]] void refuse(Integrity& integ, std::string_view name, const std::string& recorded,
                         const std::string& thrown) {
  integ.record(name, CheckOutcome::failed, recorded);
  throw IntegrityError(std::string(name), thrown);
}

// work_on_stream for eager calls under `contract`: events around them see only what the measured
// stream orders; the other instruments see the call's work wherever it runs.
void judge_stream_order(Integrity& integ, const DeviceWorkCensus& c, const Contract& contract) {
  if (contract.instrument != Instrument::event) {
    integ.record(check::work_on_stream, CheckOutcome::passed,
                 fmt::format("{}: {}",
                             c.off_stream ? fmt::format("{} of {} operations on other streams", c.off_stream, c.work())
                                          : "all on the measured stream",
                             contract.instrument == Instrument::cupti
                                 ? "cupti attributes the call's work by identity, on any stream"
                                 : "the wall clock waits for the whole device"));
    return;
  }
  if (c.ordered == false) {
    refuse(integ, check::work_on_stream, c.ordering_detail,
           fmt::format("events on the measured stream cannot time this call: {}", c.ordering_detail));
  }
  if (!c.ordered) {
    integ.record(check::work_on_stream, CheckOutcome::not_run, c.ordering_detail);
    return;
  }
  integ.record(check::work_on_stream, CheckOutcome::passed, c.ordering_detail);
}

// work_on_device: work on another device or in another context is seen by no timer of the
// measured device (events, a graph of the measured stream, the device's telemetry), and a cupti
// number that includes it is not the measured device's time.
void judge_device(Integrity& integ, const DeviceWorkCensus& c, const Contract& contract) {
  if (c.off_device > 0) {
    const std::string why = fmt::format(
        "{} of {} operations of the call ran on another device or in another context than the measured stream's",
        c.off_device, c.work());
    refuse(integ, check::work_on_device, why,
           fmt::format("{}: the {} timer of the measured device cannot time that work", why,
                       to_string(contract.instrument)));
  }
  integ.record(check::work_on_device, CheckOutcome::passed,
               fmt::format("all {} operations on the measured stream's device and context", c.work()));
}

}  // namespace

std::string describe_work(const DeviceWorkCensus& c) {
  return fmt::format("{}, {}, {}", plural(c.kernels, "kernel", "kernels"), plural(c.copies, "copy", "copies"),
                     plural(c.fills, "fill", "fills"));
}

void judge_census(Integrity& integ, const DeviceWorkCensus& c, const Contract& contract) {
  if (!c.applicable) return;  // synchronous backend: the call is the work
  if (!c.observed) {
    integ.record(check::device_work, CheckOutcome::not_run, c.why_not_observed);
    integ.record(check::work_on_stream, CheckOutcome::not_run, c.why_not_observed);
    integ.record(check::work_on_device, CheckOutcome::not_run, c.why_not_observed);
    return;
  }
  if (c.work() == 0) {
    refuse(integ, check::device_work, "the untimed call launched no device work",
           fmt::format("the call launched no device work (no kernel, copy or fill): there is nothing for the {} "
                       "timer to measure",
                       to_string(contract.instrument)));
  }
  integ.record(check::device_work, CheckOutcome::passed, "the untimed call issued " + describe_work(c));
  judge_device(integ, c, contract);
  if (c.other_threads > 0) {
    const std::string why = fmt::format(
        "{} device operations were issued by another host thread while the call ran: no timer on the calling "
        "thread can attribute or order them",
        c.other_threads);
    refuse(integ, check::work_on_stream, why, why);
  }
  // A graph replay's work is what its capture holds: graph_complete judges that.
  if (contract.schedule == Schedule::graph) return;
  judge_stream_order(integ, c, contract);
}

void check_graph(Integrity& integ, const GraphExec& graph, std::size_t calls, const DeviceWorkCensus& census,
                 const std::function<const DeviceWorkCensus&()>& steady_census) {
  const std::optional<GraphNodeCounts> counts = graph.node_counts();
  if (!counts) {
    integ.record(check::graph_complete, CheckOutcome::not_run, "the backend cannot count a captured graph's nodes");
    return;
  }
  if (counts->work() == 0) {
    const std::string why = fmt::format(
        "the captured graph holds no device work of the call ({} calls captured{}): the call launched nothing while "
        "it was being captured",
        calls, counts->own ? fmt::format(", {} nodes of caliber's own", counts->own) : "");
    refuse(integ, check::graph_complete, why, why);
  }
  if (!census.observed) {
    integ.record(check::graph_complete, CheckOutcome::not_run,
                 fmt::format("the graph holds {} work nodes for {} calls; the call's own work is unknown ({})",
                             counts->work(), calls, census.why_not_observed));
    return;
  }
  const std::string graph_holds = fmt::format("{} kernel, {} copy and {} fill nodes for {} calls", counts->kernels,
                                              counts->copies, counts->fills, calls);
  const DeviceWorkCensus* per_call = &census;
  if (counts->work() < per_call->work() * calls) per_call = &steady_census();
  if (counts->work() < per_call->work() * calls) {
    const std::string why = fmt::format(
        "the captured graph holds {}, but one call issues {} when it runs: work escaped the capture (launched on a "
        "stream the capture does not follow, or skipped while capturing)",
        graph_holds, describe_work(*per_call));
    refuse(integ, check::graph_complete, why, why);
  }
  integ.record(check::graph_complete, CheckOutcome::passed,
               fmt::format("{}; one call issues {}", graph_holds, describe_work(*per_call)));
}

}  // namespace caliber::integrity
