// A described host device for tests that build backends by hand: small, fixed numbers.
#pragma once

#include "caliber/backend.h"

namespace caliber::testing_support {

inline DeviceInfo test_host_device() {
  DeviceInfo d;
  d.backend = BackendKind::host;
  d.name = "test host";
  d.arch = "x86_64";
  d.llc_bytes = 1 << 20;
  d.multiprocessors = 1;
  return d;
}

}  // namespace caliber::testing_support
