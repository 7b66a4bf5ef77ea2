// The untimed call's census of device work, judged for a contract (device_work, work_on_stream),
// and a captured graph compared with it (graph_complete): docs/integrity.md. A contract that
// cannot time the call truthfully is refused with IntegrityError, after the failed check is
// recorded.
#pragma once

#include <cstddef>
#include <functional>
#include <string>

#include "caliber/backend.h"
#include "caliber/contract.h"
#include "caliber/integrity.h"

namespace caliber::integrity {

// "2 kernels, 1 copy, 0 fills".
std::string describe_work(const DeviceWorkCensus& census);

// Records device_work and work_on_stream for `contract`. Nothing on a synchronous backend (the call
// is the work).
void judge_census(Integrity& integ, const DeviceWorkCensus& census, const Contract& contract);

// Records graph_complete for a graph that captured `calls` calls. steady_census is asked for the
// census of a call after warmup only when the graph holds less work than the untimed call issued
// (a first call may do one-time work, a library initializing).
void check_graph(Integrity& integ, const GraphExec& graph, std::size_t calls, const DeviceWorkCensus& census,
                 const std::function<const DeviceWorkCensus&()>& steady_census);

}  // namespace caliber::integrity
