// The brief lines the table prints under a result about how it was taken: the instrument choice,
// what a cupti sample ran, and the telemetry.
#include <gtest/gtest.h>

#include <sstream>

#include "caliber/result_table.h"

namespace caliber {
namespace {

std::vector<std::string> note_lines(const Result& r) {
  std::ostringstream out;
  write_results_table(out, {r});
  std::vector<std::string> notes;
  std::istringstream in(out.str());
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("  note ", 0) == 0 || line.rfind("  ! ", 0) == 0) notes.push_back(line);
  }
  return notes;
}

TEST(ResultTableNotes, CuptiResultShowsChoiceKernelsAndTelemetry) {
  Result r;
  r.name = "two_streams";
  r.contract = default_contract(BackendKind::cuda);
  r.contract.instrument = Instrument::cupti;
  r.contract.schedule = Schedule::isolated;
  r.timed_calls = 10;
  r.summary.n = 10;
  r.instrument = {"auto", "auto: cupti available", true};
  r.kernels = {{"scale_kernel(float const*, float*, unsigned long, float)", 10, 1990.0, 199.0, 2112},
               {"tiny_kernel(float const*, float*)", 10, 15.0, 1.5, 1}};
  r.telemetry = telemetry_unavailable("NVML not loaded");
  r.warnings = {"kernel set changed in 1 of 10 samples"};
  const std::vector<std::string> want = {
      "  note two_streams [cupti/isolated/cold/median]: instrument auto -> cupti: auto: cupti available",
      "  note two_streams [cupti/isolated/cold/median]: kernels: scale_kernel(float const*, float*, "
      "unsigned long, float) x1/call, mean 199.0 us; tiny_kernel(float const*, float*) x1/call, mean "
      "1.500 us",
      "  note two_streams [cupti/isolated/cold/median]: telemetry: unavailable (NVML not loaded)",
      "  ! two_streams [cupti/isolated/cold/median]: kernel set changed in 1 of 10 samples"};
  EXPECT_EQ(note_lines(r), want);
}

TEST(ResultTableNotes, TracingKeptOnUnderEventsIsSaid) {
  Result r;
  r.name = "tiny";
  r.contract = default_contract(BackendKind::cuda);
  r.instrument = {"event", "requested", true};
  r.telemetry = telemetry_unavailable("x");
  const auto notes = note_lines(r);
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_EQ(notes[0],
            "  note tiny [event/per_iter/cold/median]: CUPTI activity tracing was on while measuring (it "
            "slows kernels with many blocks)");
}

TEST(ResultTableNotes, FlagsArePrintedUnderTheRow) {
  Result r;
  r.name = "gemm_bf16";
  r.contract = default_contract(BackendKind::cuda);
  r.flags = {"throttled:sw_power_cap", "unstable:throttled"};
  r.telemetry = telemetry_unavailable("x");
  const auto notes = note_lines(r);
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_EQ(notes[0], "  note gemm_bf16 [event/per_iter/cold/median]: flags: throttled:sw_power_cap unstable:throttled");
}

}  // namespace
}  // namespace caliber
