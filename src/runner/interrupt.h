// SIGINT, SIGTERM and SIGHUP during caliber run: the first one asks the run to stop after the
// cell it is measuring (its row is kept, the CSV and run_summary.json are written, and the run
// says what it kept); a second one of any of them ends the process at once (the rows written so
// far are safe: each is fsynced).
#pragma once

namespace caliber::runner {

class InterruptRequests {
 public:
  InterruptRequests();   // installs the handlers
  ~InterruptRequests();  // restores the previous ones
  InterruptRequests(const InterruptRequests&) = delete;
  InterruptRequests& operator=(const InterruptRequests&) = delete;

  // The signal that asked to stop, or 0.
  int requested() const;
};

// "SIGINT", "SIGTERM", "SIGHUP".
const char* signal_name(int signo);

}  // namespace caliber::runner
