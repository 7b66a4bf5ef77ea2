// One schedule unit at a recording call site (src/measure/schedule.h): the backend that logs every
// operation in order and moves a manual clock, the callable that logs "call", and the timer the
// backend makes for the contract. Tests read what each window held from the backend's events.
#pragma once

#include <functional>
#include <memory>
#include <utility>

#include "caliber/contract.h"
#include "measure/call_site.h"
#include "support/recording_backend.h"

namespace caliber::testing_support {

template <class RecordingDouble>
struct BasicScheduleHarness {
  explicit BasicScheduleHarness(Contract c) : contract(std::move(c)) {}

  RecordingDouble backend;
  Contract contract;
  std::function<void()> prepare;
  std::function<void()> before_call;  // the integrity layer's hook (fresh inputs)
  Callable call = [this](const LaunchContext& ctx) { backend.run_call(ctx); };
  measurement::CallSite site{backend, call, contract, prepare, before_call, backend.clock};
  std::unique_ptr<SampleTimer> timer = backend.make_timer_for(contract);
};

using ScheduleHarness = BasicScheduleHarness<RecordingBackend>;

}  // namespace caliber::testing_support
