// Device telemetry during one measurement, as the engine sees it (docs/telemetry.md): started
// before the warmup, stopped once the samples are taken, then asked to judge the samples by the
// host windows they ran in. The engine knows only this interface; the background sampler of
// src/telemetry is plugged in by watch_device_telemetry (throttle_watch.cpp), and tests plug in
// their own.
#pragma once

#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "caliber/backend.h"
#include "caliber/clock.h"
#include "caliber/contract.h"
#include "caliber/measure.h"
#include "caliber/result.h"
#include "measure/call_site.h"

namespace caliber::measurement {

class SampleTelemetry {
 public:
  virtual ~SampleTelemetry() = default;
  virtual void start() = 0;
  virtual void stop() = 0;
  // Fills Result::telemetry and applies the contract's throttle policy to the samples: flag (a
  // warning and flags), discard (removes the flagged samples) or fail (DeviceError).
  // windows_us[i] is where samples_us[i] ran. Returns true when too many samples were flagged for
  // the result to be stable.
  virtual bool judge(Result& r, std::vector<double>& samples_us, std::span<const HostWindow> windows_us) = 0;
};

// The telemetry of one measurement, not yet started; or null, with Result::telemetry saying why
// there is none. Throws ContractError for options it cannot honour.
using TelemetrySource = std::function<std::unique_ptr<SampleTelemetry>(
    Backend& backend, Clock& clock, const Contract& contract, const MeasureOptions& options, Result& r)>;

// The backend's telemetry reader, read in the background at the options' period, judged by the
// options' throttle rule (docs/telemetry.md).
std::unique_ptr<SampleTelemetry> watch_device_telemetry(Backend& backend, Clock& clock, const Contract& contract,
                                                        const MeasureOptions& options, Result& r);

}  // namespace caliber::measurement
