// graph: N calls captured into a graph, replayed; one sample per replay = replay time / N.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>

#include "measure/schedule.h"
#include "support/fixed_contract.h"
#include "support/schedule_harness.h"

namespace caliber::measurement {
namespace {

using testing_support::BasicScheduleHarness;
using testing_support::RecordingBackend;
using testing_support::ScheduleHarness;

// Logs which of the captured graphs each replay launches ("graph0", "graph1", ...).
class NumberedGraph final : public GraphExec {
 public:
  NumberedGraph(RecordingBackend& b, std::unique_ptr<GraphExec> inner, std::size_t number)
      : backend_(b), inner_(std::move(inner)), number_(number) {}
  void launch() override {
    backend_.log("graph" + std::to_string(number_));
    inner_->launch();
  }

 private:
  RecordingBackend& backend_;
  std::unique_ptr<GraphExec> inner_;
  std::size_t number_;
};

class NumberingBackend final : public RecordingBackend {
 public:
  std::unique_ptr<GraphExec> capture_graph(const std::function<void()>& record) override {
    return std::make_unique<NumberedGraph>(*this, RecordingBackend::capture_graph(record), captured_++);
  }

 private:
  std::size_t captured_ = 0;
};

Contract graph_contract(CachePolicy cache, std::int64_t calls_per_graph) {
  Contract c = testing_support::fixed_cuda_contract(Schedule::graph, cache, 2, 1);
  c.graph_calls = calls_per_graph;
  return c;
}

std::vector<std::string> after(const std::vector<std::string>& events, const std::string& first) {
  const auto at = std::find(events.begin(), events.end(), first);
  return {at, events.end()};
}

TEST(ScheduleGraph, SetUpCapturesUploadsAndReplaysOnceUntimed) {
  ScheduleHarness h(graph_contract(CachePolicy::warm, 3));
  std::vector<std::size_t> seen;
  auto unit = graph_schedule(h.site, *h.timer, [&](const GraphExec&, std::size_t calls) { seen.push_back(calls); });
  unit->set_up();
  const std::vector<std::string> want = {"begin_capture", "capture:call", "capture:call", "capture:call", "end_capture",
                                         "graph_launch",  "replay:call",  "replay:call",  "replay:call",  "sync"};
  EXPECT_EQ(h.backend.events, want);
  EXPECT_EQ(seen, std::vector<std::size_t>{3});  // before the first replay
  EXPECT_EQ(h.site.timed_calls(), 0u);
}

TEST(ScheduleGraph, ASampleIsOneReplayOverItsCalls) {
  ScheduleHarness h(graph_contract(CachePolicy::warm, 3));
  auto unit = graph_schedule(h.site, *h.timer, {});
  unit->set_up();
  h.backend.events.clear();
  const std::vector<double> d = unit->run(2, false);
  EXPECT_EQ(d, (std::vector<double>{5.0, 5.0}));  // 15 us per replay of 3 calls
  EXPECT_EQ(h.site.timed_calls(), 6u);
  EXPECT_EQ(std::count(h.backend.events.begin(), h.backend.events.end(), "replay:call"), 6);
  EXPECT_EQ(h.backend.events.front(), "start0");
  EXPECT_EQ(h.backend.events[1], "graph_launch");
  EXPECT_EQ(h.backend.events.back(), "sync");
}

TEST(ScheduleGraph, RotationCapturesEnoughGraphsToCoverEveryCopy) {
  ScheduleHarness h(graph_contract(CachePolicy::rotate, 2));
  h.site.rotation() = InputRotation(5);
  graph_schedule(h.site, *h.timer, {})->set_up();
  // ceil(5 / 2) = 3 graphs; their calls cover copies 0..4 and wrap.
  EXPECT_EQ(std::count(h.backend.events.begin(), h.backend.events.end(), "begin_capture"), 3);
  std::vector<std::size_t> rot;
  for (const LaunchContext& ctx : h.backend.calls) rot.push_back(ctx.rotation);
  EXPECT_EQ(rot, (std::vector<std::size_t>{0, 1, 2, 3, 4, 0}));
}

TEST(ScheduleGraph, SamplesReplayTheGraphsRoundRobinAndAVerifiedOneTheFirst) {
  BasicScheduleHarness<NumberingBackend> h(graph_contract(CachePolicy::rotate, 2));
  h.site.rotation() = InputRotation(5);
  auto unit = graph_schedule(h.site, *h.timer, {});
  unit->set_up();
  const auto launched = [&h] {
    std::vector<std::string> g;
    for (const std::string& e : h.backend.events) {
      if (e.rfind("graph", 0) == 0 && e != "graph_launch") g.push_back(e);
    }
    h.backend.events.clear();
    return g;
  };
  launched();
  unit->run(4, false);
  EXPECT_EQ(launched(), (std::vector<std::string>{"graph0", "graph1", "graph2", "graph0"}));
  unit->run(1, true);  // graph 0's first call uses input copy 0, as a verified sample must
  EXPECT_EQ(launched(), std::vector<std::string>{"graph0"});
}

TEST(ScheduleGraph, ColdWithOneCallPerGraphFlushesBeforeEachReplayOutsideTheWindow) {
  ScheduleHarness h(graph_contract(CachePolicy::cold, 1));
  auto unit = graph_schedule(h.site, *h.timer, {});
  unit->set_up();
  EXPECT_EQ(std::count(h.backend.events.begin(), h.backend.events.end(), "capture:flush"), 0);
  h.backend.events.clear();
  const std::vector<double> d = unit->run(2, false);
  EXPECT_EQ(d, (std::vector<double>{5.0, 5.0}));  // no flush (1000 us) inside
  const std::vector<std::string> want = {"flush", "start0", "graph_launch", "replay:call", "stop0",
                                         "flush", "start1", "graph_launch", "replay:call", "stop1", "sync"};
  EXPECT_EQ(h.backend.events, want);
}

TEST(ScheduleGraph, ColdWithSeveralCallsPerGraphCapturesAFlushBeforeEachCall) {
  ScheduleHarness h(graph_contract(CachePolicy::cold, 2));
  auto unit = graph_schedule(h.site, *h.timer, {});
  unit->set_up();
  const std::vector<std::string> want = {"begin_capture", "capture:flush", "capture:call", "capture:flush",
                                         "capture:call", "end_capture"};
  EXPECT_EQ(std::vector<std::string>(h.backend.events.begin(), h.backend.events.begin() + 6), want);
  h.backend.events.clear();
  unit->run(1, false);
  EXPECT_EQ(after(h.backend.events, "start0"),
            (std::vector<std::string>{"start0", "graph_launch", "replay:flush", "replay:call", "replay:flush",
                                      "replay:call", "stop0", "sync"}));
}

TEST(ScheduleGraph, ARefusedCaptureStopsTheSetUpBeforeAnyReplay) {
  ScheduleHarness h(graph_contract(CachePolicy::warm, 1));
  auto unit = graph_schedule(h.site, *h.timer, [](const GraphExec&, std::size_t) { throw std::runtime_error("no"); });
  EXPECT_THROW(unit->set_up(), std::runtime_error);
  EXPECT_EQ(std::count(h.backend.events.begin(), h.backend.events.end(), "graph_launch"), 0);
}

}  // namespace
}  // namespace caliber::measurement

namespace caliber::measurement {
namespace {

TEST(ScheduleGraph, FreshInputsAreDrawnBeforeEachReplayAndBeforeItsFlush) {
  ScheduleHarness h(graph_contract(CachePolicy::cold, 1));
  h.before_call = [&h] { h.backend.log("draw"); };
  auto unit = graph_schedule(h.site, *h.timer, {});
  unit->set_up();
  h.backend.events.clear();
  unit->run(2, false);
  const std::vector<std::string>& e = h.backend.events;
  ASSERT_GE(e.size(), 3u);
  EXPECT_EQ(e[0], "draw");
  EXPECT_EQ(e[1], "flush");  // the draw must not warm the cache the flush just emptied
  EXPECT_EQ(std::count(e.begin(), e.end(), "draw"), 2);
  h.backend.events.clear();
  h.site.set_refreshing(false);  // a verified sample runs on the integrity layer's own inputs
  unit->run(1, true);
  EXPECT_EQ(std::count(h.backend.events.begin(), h.backend.events.end(), "draw"), 0);
}

TEST(ScheduleGraph, TheAuditGraphPoisonsBeforeEveryCallAndIsReplayedOnlyForAnAudit) {
  ScheduleHarness h(graph_contract(CachePolicy::warm, 3));
  auto unit = graph_schedule(h.site, *h.timer, {}, [&h] { h.backend.log("poison"); });
  unit->set_up();
  const std::vector<std::string> audit_capture = {"begin_capture", "poison", "capture:call", "poison", "capture:call",
                                                  "poison",        "capture:call", "end_capture"};
  const auto at = std::search(h.backend.events.begin(), h.backend.events.end(), audit_capture.begin(),
                              audit_capture.end());
  EXPECT_NE(at, h.backend.events.end());
  h.backend.events.clear();
  unit->run(1, false);
  EXPECT_EQ(std::count(h.backend.events.begin(), h.backend.events.end(), "graph_launch"), 1);
  h.backend.events.clear();
  EXPECT_TRUE(unit->replay_audit());
  EXPECT_EQ(h.backend.events.front(), "graph_launch");
  EXPECT_EQ(h.backend.events.back(), "sync");
  EXPECT_EQ(h.site.timed_calls(), 3u);  // the audit replay is no sample
  ScheduleHarness plain(graph_contract(CachePolicy::warm, 3));
  auto without = graph_schedule(plain.site, *plain.timer, {});
  without->set_up();
  EXPECT_FALSE(without->replay_audit());
}

// A timer that tells a replay's calls apart only by marks (events): the audit graph holds each
// call between two marks, after its poison, and its replay at an audit gives each call's time.
TEST(ScheduleGraph, AMarkingTimerTimesEachCallOfTheAuditReplayBetweenMarksAfterItsPoison) {
  ScheduleHarness h(graph_contract(CachePolicy::warm, 3));
  h.backend.event_marks = true;
  auto unit = graph_schedule(h.site, *h.timer, {}, [&h] { h.backend.log("poison"); }, /*audited=*/true);
  unit->set_up();
  const std::vector<std::string> audit_capture = {
      "begin_capture", "poison",        "capture:mark0", "capture:call", "capture:mark1", "poison",
      "capture:mark2", "capture:call",  "capture:mark3", "poison",       "capture:mark4", "capture:call",
      "capture:mark5", "end_capture"};
  EXPECT_NE(std::search(h.backend.events.begin(), h.backend.events.end(), audit_capture.begin(), audit_capture.end()),
            h.backend.events.end());
  // the timed graph holds no marks
  EXPECT_EQ(std::count_if(h.backend.events.begin(), h.backend.events.end(),
                          [](const std::string& e) { return e.rfind("capture:mark", 0) == 0; }),
            6);
  unit->run(1, false);
  EXPECT_TRUE(h.timer->calls_within_samples().call_us.empty());  // a timed replay is not split
  EXPECT_TRUE(unit->replay_audit());
  EXPECT_EQ(h.timer->calls_within_samples().call_us, (std::vector<std::vector<double>>{{5, 5, 5}}));
}

// Calls with input sets of their own have no audit graph: a marked copy of the graph is replayed
// after the audit judged the timed replay, for the calls' times only (nothing more to judge).
TEST(ScheduleGraph, WithoutAnAuditGraphAMarkedCopyIsReplayedAtTheAuditForTheTimesOnly) {
  ScheduleHarness h(graph_contract(CachePolicy::warm, 2));
  h.backend.event_marks = true;
  auto unit = graph_schedule(h.site, *h.timer, {}, {}, /*audited=*/true);
  unit->set_up();
  EXPECT_EQ(std::count(h.backend.events.begin(), h.backend.events.end(), "begin_capture"), 2);
  h.backend.events.clear();
  EXPECT_FALSE(unit->replay_audit());
  EXPECT_EQ(std::count(h.backend.events.begin(), h.backend.events.end(), "graph_launch"), 1);
  EXPECT_EQ(h.backend.events.back(), "sync");
  EXPECT_EQ(h.timer->calls_within_samples().call_us, (std::vector<std::vector<double>>{{5, 5}}));
  EXPECT_EQ(h.site.timed_calls(), 0u);  // the marked replay is no sample
}

TEST(ScheduleGraph, NoMarksWhereNoAuditReplaysAndNoneForOneCallPerGraph) {
  ScheduleHarness unaudited(graph_contract(CachePolicy::warm, 3));
  unaudited.backend.event_marks = true;
  auto unit = graph_schedule(unaudited.site, *unaudited.timer, {});
  unit->set_up();
  EXPECT_EQ(std::count(unaudited.backend.events.begin(), unaudited.backend.events.end(), "begin_capture"), 1);
  EXPECT_FALSE(unit->replay_audit());
  ScheduleHarness single(graph_contract(CachePolicy::warm, 1));
  single.backend.event_marks = true;
  auto one = graph_schedule(single.site, *single.timer, {}, {}, /*audited=*/true);
  one->set_up();
  EXPECT_EQ(std::count(single.backend.events.begin(), single.backend.events.end(), "begin_capture"), 1);
}

}  // namespace
}  // namespace caliber::measurement
