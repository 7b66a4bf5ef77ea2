// Attribution by identity and the per-sample reductions, on literal activity records. Every
// record a real tracer would deliver for a cold measurement is here: the cache flush (issued
// outside any window, sometimes with the very name of the measured kernel), the measured call's
// kernels on two streams, a fill the call itself issues, copies, and graph replays whose node ids
// differ from the captured template's.
#include <gtest/gtest.h>

#include "core/kernel_attribution.h"

namespace caliber {
namespace {

using Kind = DeviceActivity::Kind;

DeviceActivity record(Kind kind, std::string name, std::uint64_t start, std::uint64_t end,
                      std::uint32_t correlation, std::uint32_t stream = 7, std::uint64_t node = 0) {
  DeviceActivity a;
  a.kind = kind;
  a.name = std::move(name);
  a.start_ns = start;
  a.end_ns = end;
  a.correlation_id = correlation;
  a.stream_id = stream;
  a.graph_node_id = node;
  a.blocks = kind == Kind::kernel ? 1056 : 0;
  return a;
}

DeviceActivity kernel(std::string name, std::uint64_t start, std::uint64_t end, std::uint32_t correlation,
                      std::uint32_t stream = 7, std::uint64_t node = 0) {
  return record(Kind::kernel, std::move(name), start, end, correlation, stream, node);
}

const std::unordered_set<std::uint64_t> kNoOwnNodes;

std::vector<std::string> names(const std::vector<DeviceActivity>& v) {
  std::vector<std::string> out;
  for (const auto& a : v) out.push_back(a.name);
  return out;
}

TEST(KernelAttribution, TheFlushIsNeverCountedEvenUnderTheMeasuredKernelsName) {
  // The flush's API call (correlation 10) was issued outside every window: no external id.
  const std::vector<DeviceActivity> acts = {kernel("scale_kernel", 0, 40000, 10),
                                            kernel("scale_kernel", 41000, 41200, 11)};
  const std::vector<ExternalCorrelation> corr = {{11, 100}};
  const auto s = attribute_activity(acts, corr, 100, 1, kNoOwnNodes);
  ASSERT_EQ(s.size(), 1u);
  ASSERT_EQ(s[0].counted.size(), 1u);
  EXPECT_EQ(s[0].counted[0].start_ns, 41000u);
  EXPECT_TRUE(s[0].excluded.empty());
  EXPECT_DOUBLE_EQ(reduce_activity_ns(s[0].counted, CuptiReduction::busy), 200.0);
}

TEST(KernelAttribution, AFillTheCallIssuesItselfIsCounted) {
  // The user's memset and fill kernel run inside the call: they are the call's work.
  const std::vector<DeviceActivity> acts = {record(Kind::memset, "[memset]", 1000, 1100, 21),
                                            kernel("at::native::FillFunctor<int>", 1100, 1150, 22),
                                            kernel("my_kernel", 1150, 1400, 23)};
  const std::vector<ExternalCorrelation> corr = {{21, 200}, {22, 200}, {23, 200}};
  const auto s = attribute_activity(acts, corr, 200, 1, kNoOwnNodes);
  EXPECT_EQ(names(s[0].counted),
            (std::vector<std::string>{"[memset]", "at::native::FillFunctor<int>", "my_kernel"}));
  EXPECT_DOUBLE_EQ(reduce_activity_ns(s[0].counted, CuptiReduction::sum), 400.0);
}

TEST(KernelAttribution, ReductionsOfOverlappingKernels) {
  // [0,100) and [50,150) overlap; [200,250) stands apart after an idle gap of 50.
  const std::vector<DeviceActivity> acts = {kernel("a", 0, 100, 1), kernel("b", 50, 150, 2),
                                            kernel("c", 200, 250, 3)};
  EXPECT_DOUBLE_EQ(reduce_activity_ns(acts, CuptiReduction::sum), 250.0);   // 100 + 100 + 50
  EXPECT_DOUBLE_EQ(reduce_activity_ns(acts, CuptiReduction::busy), 200.0);  // 150 + 50
  EXPECT_DOUBLE_EQ(reduce_activity_ns(acts, CuptiReduction::span), 250.0);  // 0 .. 250
  EXPECT_DOUBLE_EQ(reduce_activity_ns({}, CuptiReduction::busy), 0.0);
}

TEST(KernelAttribution, BusyCountsAKernelInsideAnotherOnce) {
  const std::vector<DeviceActivity> acts = {kernel("outer", 10, 110, 1), kernel("inner", 20, 30, 2),
                                            kernel("touching", 110, 120, 3)};
  EXPECT_DOUBLE_EQ(reduce_activity_ns(acts, CuptiReduction::busy), 110.0);
  EXPECT_DOUBLE_EQ(reduce_activity_ns(acts, CuptiReduction::sum), 120.0);
}

TEST(KernelAttribution, KernelsOnTwoStreamsBothBelongToTheCall) {
  // A tiny kernel on the launching stream, a long one on a side stream, issued in one call.
  const std::vector<DeviceActivity> acts = {kernel("tiny_kernel", 1000, 1003, 31, 7),
                                            kernel("scale_kernel", 1001, 1200, 32, 9)};
  const std::vector<ExternalCorrelation> corr = {{31, 300}, {32, 300}};
  const auto s = attribute_activity(acts, corr, 300, 1, kNoOwnNodes);
  ASSERT_EQ(s[0].counted.size(), 2u);
  EXPECT_DOUBLE_EQ(reduce_activity_ns(s[0].counted, CuptiReduction::busy), 200.0);
  EXPECT_DOUBLE_EQ(reduce_activity_ns(s[0].counted, CuptiReduction::sum), 202.0);
  EXPECT_DOUBLE_EQ(reduce_activity_ns(s[0].counted, CuptiReduction::span), 200.0);
}

TEST(KernelAttribution, RecordsGoToTheSampleOfTheirExternalId) {
  const std::vector<DeviceActivity> acts = {kernel("k", 0, 10, 1), kernel("k", 20, 35, 2),
                                            kernel("k", 40, 60, 3), kernel("k", 70, 71, 4)};
  // 99 belongs to an earlier batch and 103 to a later one; 101 and 102 to samples 1 and 2.
  const std::vector<ExternalCorrelation> corr = {{1, 99}, {2, 101}, {3, 102}, {4, 103}};
  const auto s = attribute_activity(acts, corr, 100, 3, kNoOwnNodes);
  ASSERT_EQ(s.size(), 3u);
  EXPECT_TRUE(s[0].counted.empty());
  ASSERT_EQ(s[1].counted.size(), 1u);
  EXPECT_EQ(s[1].counted[0].start_ns, 20u);
  ASSERT_EQ(s[2].counted.size(), 1u);
  EXPECT_EQ(s[2].counted[0].start_ns, 40u);
}

TEST(KernelAttribution, ACopyIsFoundThroughItsRuntimeCorrelationId) {
  DeviceActivity copy = record(Kind::memcpy, "[memcpy DtoD]", 500, 900, 41);
  copy.runtime_correlation_id = 42;
  const std::vector<ExternalCorrelation> corr = {{42, 400}};  // only the runtime call was recorded
  const auto s = attribute_activity(std::vector<DeviceActivity>{copy}, corr, 400, 1, kNoOwnNodes);
  ASSERT_EQ(s[0].counted.size(), 1u);
  EXPECT_EQ(s[0].counted[0].name, "[memcpy DtoD]");
}

TEST(KernelAttribution, ExecutedNodeIdsThroughTheCloneCallback) {
  // As measured on the H200 (docs/cupti.md): template nodes 4294967296 and 4294967297 (graph 1),
  // executed as 8589934592 and 8589934593 (graph 2).
  const std::vector<std::uint64_t> templates = {4294967296ull};
  const std::unordered_map<std::uint64_t, std::uint64_t> clones = {{4294967296ull, 8589934592ull},
                                                                   {4294967297ull, 8589934593ull}};
  const ExecutedNodes e = executed_graph_nodes(templates, clones, 7);
  EXPECT_EQ(e.ids, std::vector<std::uint64_t>{8589934592ull});  // the callback wins over the index
  EXPECT_FALSE(e.by_index);
}

TEST(KernelAttribution, ExecutedNodeIdsFollowAChainOfClones) {
  const std::vector<std::uint64_t> templates = {4294967296ull};
  const std::unordered_map<std::uint64_t, std::uint64_t> clones = {{4294967296ull, 8589934592ull},
                                                                   {8589934592ull, 12884901888ull}};
  EXPECT_EQ(executed_graph_nodes(templates, clones, 3).ids, std::vector<std::uint64_t>{12884901888ull});
}

TEST(KernelAttribution, ExecutedNodeIdsByIndexWithoutTheCallback) {
  const std::vector<std::uint64_t> templates = {4294967296ull, 4294967298ull};
  const ExecutedNodes e = executed_graph_nodes(templates, {}, 2);
  EXPECT_EQ(e.ids, (std::vector<std::uint64_t>{8589934592ull, 8589934594ull}));
  EXPECT_TRUE(e.by_index);
}

TEST(KernelAttribution, GraphReplayExcludesTheCapturedFlushByExecutedNodeIdentity) {
  // One replay (graph launch, correlation 50) of flush -> call -> flush -> call. The flush nodes
  // carry the measured kernel's name on purpose: only identity decides.
  const std::unordered_set<std::uint64_t> own = {8589934592ull, 8589934594ull};
  const std::vector<DeviceActivity> acts = {
      kernel("scale_kernel", 0, 40000, 50, 7, 8589934592ull),
      kernel("scale_kernel", 40100, 40300, 50, 7, 8589934593ull),
      kernel("scale_kernel", 40400, 80400, 50, 7, 8589934594ull),
      kernel("scale_kernel", 80500, 80700, 50, 7, 8589934595ull)};
  const std::vector<ExternalCorrelation> corr = {{50, 500}};
  const auto s = attribute_activity(acts, corr, 500, 1, own);
  ASSERT_EQ(s[0].counted.size(), 2u);
  EXPECT_EQ(s[0].excluded.size(), 2u);
  EXPECT_DOUBLE_EQ(reduce_activity_ns(s[0].counted, CuptiReduction::sum), 400.0);
  const std::vector<std::size_t> per_graph = {2};
  EXPECT_EQ(why_attribution_failed(s, per_graph), std::nullopt);

  // Template ids (the graph before instantiation) match no executed record: the check refuses.
  const std::unordered_set<std::uint64_t> template_ids = {4294967296ull, 4294967298ull};
  const auto wrong = attribute_activity(acts, corr, 500, 1, template_ids);
  EXPECT_EQ(wrong[0].counted.size(), 4u);
  const auto why = why_attribution_failed(wrong, per_graph, 40);
  ASSERT_TRUE(why.has_value());
  EXPECT_EQ(*why,
            "graph-node identity check failed in sample 40: 0 of caliber's own nodes (the captured "
            "cache flush) were excluded, the graph holds 2; the flush could be counted or a kernel "
            "dropped");
}

// One replay of graph + cold with graph_calls = 3, as CUPTI reports it: every node carries the
// replay's correlation id (60); each call is preceded by the two flush kernels (overwrite, then
// read-back), whose executed node ids caliber recorded. Call 0 runs one kernel, calls 1 and 2 a
// kernel and an epilogue with an idle gap between them. Times in ns.
struct GraphColdReplay {
  std::unordered_set<std::uint64_t> own = {101, 102, 201, 202, 301, 302};
  std::vector<DeviceActivity> records = {
      kernel("caliber_l2_flush_kernel", 0, 30000, 60, 7, 101),
      kernel("caliber_l2_evict_kernel", 30100, 50000, 60, 7, 102),
      kernel("gemm", 50400, 51400, 60, 7, 103),                 // call 0: 1000
      kernel("caliber_l2_flush_kernel", 51600, 81600, 60, 7, 201),
      kernel("caliber_l2_evict_kernel", 81700, 101700, 60, 7, 202),
      kernel("gemm", 102000, 103000, 60, 7, 203),               // call 1: 1000 + gap 300 + 200
      kernel("epilogue", 103300, 103500, 60, 7, 204),
      kernel("caliber_l2_flush_kernel", 103800, 133800, 60, 7, 301),
      kernel("caliber_l2_evict_kernel", 133900, 153900, 60, 7, 302),
      kernel("epilogue", 154600, 154800, 60, 7, 304),           // call 2, delivered out of order
      kernel("gemm", 154200, 155200, 60, 7, 303)};               // call 2: [154200, 155200]
  std::vector<ExternalCorrelation> corr = {{60, 700}};

  SampleActivity sample() const { return attribute_activity(records, corr, 700, 1, own)[0]; }
};

TEST(KernelAttribution, GraphColdSplitsAReplayIntoCallsAtTheExcludedFlush) {
  const SampleActivity s = GraphColdReplay{}.sample();
  ASSERT_EQ(s.counted.size(), 5u);
  ASSERT_EQ(s.excluded.size(), 6u);
  const auto calls = calls_of_sample(s);
  ASSERT_EQ(calls.size(), 3u);
  EXPECT_EQ(names(calls[0]), (std::vector<std::string>{"gemm"}));
  EXPECT_EQ(names(calls[1]), (std::vector<std::string>{"gemm", "epilogue"}));
  EXPECT_EQ(names(calls[2]), (std::vector<std::string>{"gemm", "epilogue"}));  // in start order
  EXPECT_EQ(why_attribution_failed(std::vector<SampleActivity>{s}, std::vector<std::size_t>{6}), std::nullopt);
}

TEST(KernelAttribution, GraphColdReductionsArePerCallAndNeverCoverTheFlush) {
  const SampleActivity s = GraphColdReplay{}.sample();
  // sum: the five durations. busy: call 0 1000, call 1 1000 + 200, call 2 the gemm's 1000 (the
  // epilogue lies inside it).
  EXPECT_DOUBLE_EQ(reduce_sample_ns(s, CuptiReduction::sum), 1000 + 1000 + 200 + 1000 + 200);
  EXPECT_DOUBLE_EQ(reduce_sample_ns(s, CuptiReduction::busy), 1000 + 1200 + 1000);
  // span: first start to last end of each call, summed: 1000 + 1500 (with its 300 ns idle gap) +
  // 1000. Over the whole replay it would be 155200 - 50400 = 104800, the two flushes inside.
  EXPECT_DOUBLE_EQ(reduce_sample_ns(s, CuptiReduction::span), 1000 + 1500 + 1000);
  EXPECT_DOUBLE_EQ(reduce_activity_ns(s.counted, CuptiReduction::span), 104800);
  // busy and sum of the whole replay agree with the per-call values: the flush is in no record
  // they count.
  EXPECT_DOUBLE_EQ(reduce_activity_ns(s.counted, CuptiReduction::busy), 3200);
  EXPECT_DOUBLE_EQ(reduce_activity_ns(s.counted, CuptiReduction::sum), 3400);
}

TEST(KernelAttribution, WithoutExcludedRecordsTheSampleIsOnePiece) {
  // graph + warm: nothing marks the call boundaries, so span is the replay's first start to last
  // end (gaps between calls included) and the engine divides it by the calls per replay.
  SampleActivity s;
  s.counted = {kernel("k", 300, 400, 1, 7, 2), kernel("k", 100, 200, 1, 7, 1)};
  const auto calls = calls_of_sample(s);
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0][0].start_ns, 100u);
  EXPECT_DOUBLE_EQ(reduce_sample_ns(s, CuptiReduction::span), 300);
  EXPECT_DOUBLE_EQ(reduce_sample_ns(s, CuptiReduction::busy), 200);
}

TEST(KernelAttribution, AFlushRunningInsideACallsWorkIsRefused) {
  // Call 1's side-stream kernel (stream 9) runs on past the start of the next flush: no
  // reduction could keep the flush out, and it slowed the call; the batch fails.
  GraphColdReplay replay;
  replay.records[6] = kernel("side_scale", 102500, 110000, 60, 9, 204);
  const SampleActivity s = replay.sample();
  const auto why = why_attribution_failed(std::vector<SampleActivity>{s}, std::vector<std::size_t>{6}, 12);
  ASSERT_TRUE(why.has_value());
  EXPECT_EQ(*why,
            "caliber's own 'caliber_l2_flush_kernel' [103800, 133800] ns ran inside call 1 of sample 12 (its "
            "work spans [102000, 110000] ns): the cache flush overlapped the call, so it cannot be kept out "
            "of the sample");
  // Touching is not overlapping: a call may end exactly where the next flush starts.
  replay.records[6] = kernel("epilogue", 103300, 103800, 60, 7, 204);
  EXPECT_EQ(why_attribution_failed(std::vector<SampleActivity>{replay.sample()}, std::vector<std::size_t>{6}),
            std::nullopt);
  // Nor is timestamp skew: the call's last end recorded 95 ns after the dependent flush's start
  // (as measured on the H200), up to kFlushAdjacencySkewNs.
  replay.records[6] = kernel("epilogue", 103300, 103800 + 95, 60, 7, 204);
  EXPECT_EQ(why_attribution_failed(std::vector<SampleActivity>{replay.sample()}, std::vector<std::size_t>{6}),
            std::nullopt);
  // 1024 ns, seen on the H200 (kernel_attribution.h): still skew.
  replay.records[6] = kernel("epilogue", 103300, 103800 + 1024, 60, 7, 204);
  EXPECT_EQ(why_attribution_failed(std::vector<SampleActivity>{replay.sample()}, std::vector<std::size_t>{6}),
            std::nullopt);
  replay.records[6] = kernel("epilogue", 103300, 103800 + kFlushAdjacencySkewNs, 60, 7, 204);
  EXPECT_EQ(why_attribution_failed(std::vector<SampleActivity>{replay.sample()}, std::vector<std::size_t>{6}),
            std::nullopt);
  replay.records[6] = kernel("epilogue", 103300, 103800 + kFlushAdjacencySkewNs + 1, 60, 7, 204);
  EXPECT_TRUE(why_attribution_failed(std::vector<SampleActivity>{replay.sample()}, std::vector<std::size_t>{6}).has_value());
}

TEST(KernelAttribution, ASampleWithNoWorkOrAnUntimedRecordIsRefused) {
  std::vector<SampleActivity> s(2);
  s[0].counted.push_back(kernel("k", 5, 9, 1));
  auto why = why_attribution_failed(s, {}, 10);
  ASSERT_TRUE(why.has_value());
  EXPECT_EQ(*why,
            "no kernel, copy or fill was attributed to sample 11: the call launched no device work "
            "from the calling thread, or the tracer lost its records");
  s[1].counted.push_back(kernel("late", 0, 0, 2));
  why = why_attribution_failed(s, {}, 10);
  ASSERT_TRUE(why.has_value());
  EXPECT_EQ(*why, "the tracer could not time 'late' of sample 11 (start 0 ns, end 0 ns)");
}

TEST(KernelBreakdownTest, PerKernelTotalsAndTheKernelSetCheck) {
  KernelBreakdown b;
  SampleActivity s0, s1, s2;
  s0.counted = {kernel("gemm", 0, 1000, 1), kernel("epilogue", 1000, 1100, 1)};
  s1.counted = {kernel("gemm", 0, 1200, 2), kernel("epilogue", 1200, 1300, 2)};
  s2.counted = {kernel("gemm", 0, 800, 3), record(Kind::memset, "[memset]", 800, 820, 3),
                kernel("epilogue", 820, 920, 3)};
  b.add(s0);
  b.add(s1);
  b.add(s2);
  const auto stats = b.stats();
  ASSERT_EQ(stats.size(), 3u);
  EXPECT_EQ(stats[0].name, "gemm");
  EXPECT_EQ(stats[0].launches, 3);
  EXPECT_DOUBLE_EQ(stats[0].total_us, 3.0);
  EXPECT_DOUBLE_EQ(stats[0].mean_us, 1.0);
  EXPECT_EQ(stats[0].max_blocks, 1056u);
  EXPECT_EQ(stats[1].name, "epilogue");
  EXPECT_DOUBLE_EQ(stats[1].total_us, 0.3);
  EXPECT_EQ(stats[2].name, "[memset]");
  EXPECT_EQ(stats[2].launches, 1);
  EXPECT_EQ(stats[2].max_blocks, 0u);
  EXPECT_EQ(b.changed_samples(), 1);
  EXPECT_EQ(b.change_warning(),
            "kernel set changed in 1 of 3 samples: sample 0 ran {epilogue x1, gemm x1}, sample 2 ran "
            "{[memset] x1, epilogue x1, gemm x1}");
}

TEST(KernelBreakdownTest, NoWarningWhenEverySampleRanTheSameKernels) {
  KernelBreakdown b;
  SampleActivity s;
  s.counted = {kernel("k", 0, 10, 1), kernel("k", 10, 20, 1)};
  b.add(s);
  b.add(s);
  EXPECT_EQ(b.changed_samples(), 0);
  EXPECT_EQ(b.change_warning(), "");
  EXPECT_EQ(b.stats()[0].launches, 4);
}

}  // namespace
}  // namespace caliber
