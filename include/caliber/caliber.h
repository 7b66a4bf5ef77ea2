// The public API in one include.
#pragma once

#include "caliber/backend.h"
#include "caliber/caliber_check.h"
#include "caliber/clock.h"
#include "caliber/contract.h"
#include "caliber/device.h"
#include "caliber/errors.h"
#include "caliber/instrument_policy.h"
#include "caliber/measure.h"
#include "caliber/result.h"
#include "caliber/run_identity.h"
#include "caliber/statistics.h"
#include "caliber/telemetry.h"
