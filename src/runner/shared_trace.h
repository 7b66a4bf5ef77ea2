// The CUPTI trace that the untimed calls of consecutive shapes share (docs/runner.md, "The untimed
// calls of a shape"): taken at the first untimed call that shares it, ended once, before anything
// of those shapes is timed. Detaching CUPTI costs milliseconds: once per chain of shapes instead
// of once per cell.
#pragma once

#include <memory>

#include "caliber/backend.h"

namespace caliber::runner {

class SharedTrace {
 public:
  explicit SharedTrace(Backend& backend) : backend_(backend) {}

  // Holds the trace for the next untimed call, taking it when it is not held yet. False when
  // the backend cannot hold it (ContractError): that call traces itself, and so does every
  // later one of this trace's shapes (refused()). Other errors propagate.
  bool hold();
  bool on() const { return trace_ != nullptr; }
  bool refused() const { return refused_; }
  // Ends the trace (CUPTI detaches); returns the milliseconds that took (about 0 when none was
  // held).
  double end();

 private:
  Backend& backend_;
  std::unique_ptr<ActivityTracing> trace_;
  bool refused_ = false;
};

}  // namespace caliber::runner
