// The ceilings a measurement is bounded by (docs/integrity.md, physically_possible): the
// theoretical ones (integrity/theoretical_ceilings.h), each refined by its calibrated
// counterpart when `caliber calibrate` measured one for the device.
#pragma once

#include "integrity/device_ceilings.h"

namespace caliber {

// Per ceiling (memory bandwidth, cache bandwidth, each matmul dtype): the calibrated one when it
// is available, else the theoretical one (a calibrated file without a dtype, or with a ceiling
// not available, keeps the theoretical ceiling there). Identity fields are the calibrated
// entry's when given. `calibrated` may be null.
DeviceCeilings refine_ceilings(DeviceCeilings theoretical, const DeviceCeilings* calibrated);

// Where a ceiling comes from, as a check's detail names it: "calibrated" or "theoretical".
const char* ceiling_source(const Ceiling& ceiling);

}  // namespace caliber
