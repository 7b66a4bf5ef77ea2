#include "runner/interrupt.h"

#include <signal.h>


namespace caliber::runner {
namespace {

constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};
volatile sig_atomic_t g_requested = 0;
struct sigaction g_previous[3];

// Records the request and gives all three signals back their default effect, so the next one
// ends the process (sigaction is async-signal-safe).
void on_signal(int signo) {
  g_requested = signo;
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  for (int s : kSignals) sigaction(s, &dfl, nullptr);
}

}  // namespace

InterruptRequests::InterruptRequests() {
  g_requested = 0;
  for (int i = 0; i < 3; ++i) {
    struct sigaction sa {};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    // No SA_RESTART: a wait in poll() returns early (EINTR) and sees the request.
    sa.sa_flags = 0;
    for (int s : kSignals) sigaddset(&sa.sa_mask, s);
    sigaction(kSignals[i], &sa, &g_previous[i]);
  }
}

InterruptRequests::~InterruptRequests() {
  for (int i = 0; i < 3; ++i) sigaction(kSignals[i], &g_previous[i], nullptr);
}

int InterruptRequests::requested() const { return g_requested; }

const char* signal_name(int signo) {
  switch (signo) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
  }
  return "a signal";
}

}  // namespace caliber::runner
