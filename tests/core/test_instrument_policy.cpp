// The instrument policy: a named instrument that cannot be used is an error, auto falls back with
// the reason recorded and a warning, and the host backend says "not applicable".
#include <gtest/gtest.h>

#include "caliber/errors.h"
#include "caliber/instrument_policy.h"

namespace caliber {
namespace {

InstrumentProbe cupti_missing(const std::string& why) {
  return [why](Instrument i) -> std::optional<std::string> {
    if (i == Instrument::cupti) return why;
    return std::nullopt;
  };
}

InstrumentProbe everything_available() {
  return [](Instrument) -> std::optional<std::string> { return std::nullopt; };
}

TEST(InstrumentPolicy, CuptiRequestedButUnavailableIsAContractError) {
  try {
    select_instrument("cupti", BackendKind::cuda, cupti_missing("CUPTI not loaded (no libcupti.so.13)"));
    FAIL() << "expected ContractError";
  } catch (const ContractError& e) {
    EXPECT_EQ(std::string(e.what()),
              "instrument cupti is not available: CUPTI not loaded (no libcupti.so.13) (use "
              "--instrument event, or auto to fall back to it with the reason recorded)");
  }
}

TEST(InstrumentPolicy, AutoFallsBackToEventWithTheReasonAndAWarning) {
  const InstrumentSelection s =
      select_instrument("auto", BackendKind::cuda, cupti_missing("disabled by CALIBER_CUPTI_LIBRARY=none"));
  EXPECT_EQ(s.instrument, Instrument::event);
  EXPECT_EQ(s.choice.requested, "auto");
  EXPECT_EQ(s.choice.reason, "auto: cupti unavailable (disabled by CALIBER_CUPTI_LIBRARY=none); fell back to event");
  EXPECT_EQ(s.warning,
            "instrument auto fell back to event because cupti is unavailable (disabled by "
            "CALIBER_CUPTI_LIBRARY=none): event pairs time the launching stream only, including gaps "
            "between the call's kernels");
}

TEST(InstrumentPolicy, AutoPrefersCupti) {
  const InstrumentSelection s = select_instrument("auto", BackendKind::cuda, everything_available());
  EXPECT_EQ(s.instrument, Instrument::cupti);
  EXPECT_EQ(s.choice.reason, "auto: cupti available");
  EXPECT_EQ(s.warning, "");
}

TEST(InstrumentPolicy, AutoOnTheHostIsNotApplicable) {
  const InstrumentSelection s = select_instrument("auto", BackendKind::host, cupti_missing("irrelevant"));
  EXPECT_EQ(s.instrument, Instrument::wallclock);
  EXPECT_EQ(s.choice.requested, "auto");
  EXPECT_EQ(s.choice.reason.rfind("not applicable: ", 0), 0u) << s.choice.reason;
  EXPECT_EQ(s.warning, "");
}

TEST(InstrumentPolicy, NamedAndDefaultInstruments) {
  const InstrumentSelection e = select_instrument("event", BackendKind::cuda, cupti_missing("x"));
  EXPECT_EQ(e.instrument, Instrument::event);
  EXPECT_EQ(e.choice.requested, "event");
  EXPECT_EQ(e.choice.reason, "requested");
  const InstrumentSelection d = select_instrument("", BackendKind::cuda, cupti_missing("x"));
  EXPECT_EQ(d.instrument, Instrument::event);
  EXPECT_EQ(d.choice.requested, "event");
  EXPECT_EQ(d.choice.reason, "default of the cuda backend");
  EXPECT_THROW(select_instrument("cuptii", BackendKind::cuda, everything_available()), UsageError);
}

}  // namespace
}  // namespace caliber
