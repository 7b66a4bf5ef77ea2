// The census judged for a contract and a captured graph compared with it, on literal censuses.
#include <gtest/gtest.h>

#include "caliber/errors.h"
#include "integrity/census_check.h"

namespace caliber::integrity {
namespace {

namespace check = integrity_check;

DeviceWorkCensus observed(std::size_t kernels, std::optional<bool> ordered, std::size_t off_stream = 0) {
  DeviceWorkCensus c;
  c.applicable = true;
  c.observed = true;
  c.kernels = kernels;
  c.off_stream = off_stream;
  c.ordered = ordered;
  c.ordering_detail = "scripted";
  return c;
}

Contract cuda(Instrument i, Schedule s) {
  Contract c = default_contract(BackendKind::cuda);
  c.instrument = i;
  c.schedule = s;
  return c;
}

class Counts final : public GraphExec {
 public:
  explicit Counts(std::optional<GraphNodeCounts> c) : counts_(c) {}
  void launch() override {}
  std::optional<GraphNodeCounts> node_counts() const override { return counts_; }

 private:
  std::optional<GraphNodeCounts> counts_;
};

GraphNodeCounts kernels(std::size_t n) {
  GraphNodeCounts c;
  c.kernels = n;
  return c;
}

TEST(CensusCheck, DescribesTheWork) {
  DeviceWorkCensus c;
  c.kernels = 2;
  c.copies = 1;
  EXPECT_EQ(describe_work(c), "2 kernels, 1 copy, 0 fills");
}

TEST(CensusCheck, ASynchronousBackendRecordsNothing) {
  Integrity integ;
  DeviceWorkCensus c;
  c.applicable = false;
  judge_census(integ, c, cuda(Instrument::event, Schedule::per_iter));
  EXPECT_TRUE(integ.checks.empty());
}

TEST(CensusCheck, WorkOffTheStreamIsRefusedForEventsOnly) {
  Integrity events;
  EXPECT_THROW(judge_census(events, observed(2, false), cuda(Instrument::event, Schedule::per_iter)), IntegrityError);
  EXPECT_EQ(events.find(check::work_on_stream)->outcome, CheckOutcome::failed);
  Integrity cupti;
  judge_census(cupti, observed(2, false, 1), cuda(Instrument::cupti, Schedule::per_iter));
  EXPECT_EQ(cupti.find(check::work_on_stream)->detail,
            "1 of 2 operations on other streams: cupti attributes the call's work by identity, on any stream");
  EXPECT_EQ(cupti.find(check::device_work)->detail, "the untimed call issued 2 kernels, 0 copies, 0 fills");
}

TEST(CensusCheck, WorkOnAnotherDeviceOrContextIsRefusedForEveryInstrument) {
  for (const Instrument i : {Instrument::event, Instrument::cupti}) {
    Integrity integ;
    DeviceWorkCensus c = observed(3, true);
    c.off_device = 1;
    EXPECT_THROW(judge_census(integ, c, cuda(i, Schedule::per_iter)), IntegrityError);
    EXPECT_EQ(integ.find(check::work_on_device)->outcome, CheckOutcome::failed);
    EXPECT_EQ(integ.find(check::work_on_device)->detail,
              "1 of 3 operations of the call ran on another device or in another context than the measured stream's");
  }
  Integrity same;
  judge_census(same, observed(3, true), cuda(Instrument::event, Schedule::per_iter));
  EXPECT_EQ(same.find(check::work_on_device)->outcome, CheckOutcome::passed);
  EXPECT_EQ(same.find(check::work_on_device)->detail, "all 3 operations on the measured stream's device and context");
}

TEST(CensusCheck, UnderTheGraphScheduleTheGraphCheckJudgesTheStream) {
  Integrity integ;
  judge_census(integ, observed(1, false), cuda(Instrument::event, Schedule::graph));
  EXPECT_EQ(integ.find(check::work_on_stream), nullptr);
  EXPECT_EQ(integ.find(check::device_work)->outcome, CheckOutcome::passed);
}

TEST(CensusCheck, AnUnobservedCensusLeavesBothChecksNotRun) {
  Integrity integ;
  DeviceWorkCensus c;
  c.applicable = true;
  c.why_not_observed = "no tracer";
  judge_census(integ, c, cuda(Instrument::event, Schedule::per_iter));
  EXPECT_EQ(integ.find(check::device_work)->outcome, CheckOutcome::not_run);
  EXPECT_EQ(integ.find(check::work_on_stream)->detail, "no tracer");
  EXPECT_EQ(integ.find(check::work_on_device)->outcome, CheckOutcome::not_run);
}

TEST(CensusCheck, AShortGraphIsJudgedAgainstASteadyCallBeforeItIsRefused) {
  const DeviceWorkCensus first = observed(3, true);  // a first call with one-time work
  const DeviceWorkCensus steady = observed(1, true);
  int asked = 0;
  const auto steady_census = [&]() -> const DeviceWorkCensus& {
    ++asked;
    return steady;
  };
  Integrity integ;
  check_graph(integ, Counts(kernels(4)), 4, first, steady_census);
  EXPECT_EQ(asked, 1);
  EXPECT_EQ(integ.find(check::graph_complete)->detail,
            "4 kernel, 0 copy and 0 fill nodes for 4 calls; one call issues 1 kernel, 0 copies, 0 fills");
  Integrity refused;
  EXPECT_THROW(check_graph(refused, Counts(kernels(3)), 4, first, steady_census), IntegrityError);
  EXPECT_EQ(refused.find(check::graph_complete)->outcome, CheckOutcome::failed);
}

TEST(CensusCheck, AGraphWithoutWorkOrCountsIsRefusedOrNotJudged) {
  Integrity empty;
  EXPECT_THROW(check_graph(empty, Counts(kernels(0)), 2, observed(1, true), nullptr), IntegrityError);
  Integrity uncounted;
  check_graph(uncounted, Counts(std::nullopt), 2, observed(1, true), nullptr);
  EXPECT_EQ(uncounted.find(check::graph_complete)->outcome, CheckOutcome::not_run);
}

}  // namespace
}  // namespace caliber::integrity
