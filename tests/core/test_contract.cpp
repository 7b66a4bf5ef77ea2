// The contract-validation table: every impossible combination refused with its reason, every
// valid one accepted.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "caliber/contract.h"
#include "caliber/errors.h"

namespace caliber {
namespace {

Contract cuda(Instrument i, Schedule s, CachePolicy c, const char* stat = "median") {
  Contract k = default_contract(BackendKind::cuda);
  k.instrument = i;
  k.schedule = s;
  k.cache = c;
  k.statistic = parse_statistic(stat);
  if (s == Schedule::pipelined) k.iterations.mode = IterationRule::Mode::fixed;
  return k;
}

Contract host(Instrument i, Schedule s, CachePolicy c, const char* stat = "median") {
  Contract k = cuda(i, s, c, stat);
  k.backend = BackendKind::host;
  return k;
}

struct Refusal {
  const char* label;
  Contract contract;
  bool per_call_prepare;
  const char* reason_fragment;  // a part of the reason that says why
};

// gtest prints the parameter in test listings: the label, not 136 bytes of hex.
void PrintTo(const Refusal& r, std::ostream* os) { *os << r.label; }

class RefusedContracts : public ::testing::TestWithParam<Refusal> {};

TEST_P(RefusedContracts, AreRefusedWithTheirReason) {
  const Refusal& r = GetParam();
  const auto why = why_invalid(r.contract, r.per_call_prepare);
  ASSERT_TRUE(why.has_value()) << r.label;
  EXPECT_NE(why->find(r.reason_fragment), std::string::npos) << r.label << ": " << *why;
  EXPECT_THROW(validate(r.contract, r.per_call_prepare), ContractError);
}

Contract with(Contract c, void (*edit)(Contract&)) {
  edit(c);
  return c;
}

INSTANTIATE_TEST_SUITE_P(
    Table, RefusedContracts,
    ::testing::Values(
        Refusal{"pipelined+median", cuda(Instrument::event, Schedule::pipelined, CachePolicy::warm, "median"),
                false, "only statistic mean"},
        Refusal{"pipelined+p90", cuda(Instrument::event, Schedule::pipelined, CachePolicy::warm, "p90"), false,
                "only statistic mean"},
        Refusal{"pipelined+min", cuda(Instrument::event, Schedule::pipelined, CachePolicy::warm, "min"), false,
                "only statistic mean"},
        Refusal{"pipelined+cold", cuda(Instrument::event, Schedule::pipelined, CachePolicy::cold, "mean"), false,
                "flush before each call would be inside"},
        Refusal{"pipelined+prepare", cuda(Instrument::event, Schedule::pipelined, CachePolicy::warm, "mean"),
                true, "per-call preparation"},
        Refusal{"pipelined+adaptive",
                with(cuda(Instrument::event, Schedule::pipelined, CachePolicy::warm, "mean"),
                     [](Contract& c) { c.iterations.mode = IterationRule::Mode::adaptive; }),
                false, "fixed call count"},
        Refusal{"host+graph", host(Instrument::wallclock, Schedule::graph, CachePolicy::warm), false,
                "graph capture"},
        Refusal{"host+cupti", host(Instrument::cupti, Schedule::isolated, CachePolicy::warm), false,
                "does not exist on the host backend"},
        Refusal{"host+event", host(Instrument::event, Schedule::per_iter, CachePolicy::warm), false,
                "does not exist on the host backend"},
        Refusal{"cuda+wallclock+per_iter", cuda(Instrument::wallclock, Schedule::per_iter, CachePolicy::warm),
                false, "launch + run + device sync"},
        Refusal{"cuda+wallclock+graph", cuda(Instrument::wallclock, Schedule::graph, CachePolicy::warm), false,
                "launch + run + device sync"},
        Refusal{"cuda+wallclock+pipelined",
                cuda(Instrument::wallclock, Schedule::pipelined, CachePolicy::warm, "mean"), false,
                "launch + run + device sync"},
        Refusal{"graph+cold+event", cuda(Instrument::event, Schedule::graph, CachePolicy::cold), false,
                "schedule graph with cache cold and 20 calls per graph needs the flush inside the graph between "
                "calls; only instrument cupti can exclude it"},
        Refusal{"graph+prepare", cuda(Instrument::event, Schedule::graph, CachePolicy::warm), true,
                "per-call host preparation"},
        Refusal{"warmup 0",
                with(cuda(Instrument::event, Schedule::isolated, CachePolicy::warm), [](Contract& c) { c.warmup = 0; }),
                false, "warmup must be >= 1"},
        Refusal{"warmup -3",
                with(cuda(Instrument::event, Schedule::isolated, CachePolicy::warm), [](Contract& c) { c.warmup = -3; }),
                false, "warmup must be >= 1 (got -3)"},
        Refusal{"iterations 0",
                with(cuda(Instrument::event, Schedule::isolated, CachePolicy::warm),
                     [](Contract& c) {
                       c.iterations.mode = IterationRule::Mode::fixed;
                       c.iterations.count = 0;
                     }),
                false, "iterations must be >= 1 (got 0)"},
        Refusal{"iterations -1",
                with(cuda(Instrument::event, Schedule::isolated, CachePolicy::warm),
                     [](Contract& c) {
                       c.iterations.mode = IterationRule::Mode::fixed;
                       c.iterations.count = -1;
                     }),
                false, "iterations must be >= 1 (got -1)"},
        Refusal{"graph calls 0",
                with(cuda(Instrument::event, Schedule::graph, CachePolicy::warm), [](Contract& c) { c.graph_calls = 0; }),
                false, "graph calls must be >= 1"},
        Refusal{"min samples 0",
                with(cuda(Instrument::event, Schedule::isolated, CachePolicy::warm),
                     [](Contract& c) { c.iterations.min_samples = 0; }),
                false, "min_samples (--min-samples) must be >= 6 with the adaptive rule (got 0)"},
        Refusal{"max time 0",
                with(cuda(Instrument::event, Schedule::isolated, CachePolicy::warm),
                     [](Contract& c) { c.iterations.max_time_ms = 0; }),
                false, "max time must be > 0"},
        Refusal{"min time > max time",
                with(cuda(Instrument::event, Schedule::isolated, CachePolicy::warm),
                     [](Contract& c) { c.iterations.min_time_ms = 2000; }),
                false, "exceeds max time"},
        Refusal{"target precision 0",
                with(cuda(Instrument::event, Schedule::isolated, CachePolicy::warm),
                     [](Contract& c) { c.iterations.target_rel_halfwidth = 0; }),
                false, "target precision must be in (0, 1)"},
        Refusal{"host dispatch with event",
                with(cuda(Instrument::event, Schedule::isolated, CachePolicy::warm),
                     [](Contract& c) { c.quantity = Quantity::host_dispatch; }),
                false, "instrument must be wallclock"},
        Refusal{"host dispatch per_iter",
                with(cuda(Instrument::wallclock, Schedule::per_iter, CachePolicy::warm),
                     [](Contract& c) { c.quantity = Quantity::host_dispatch; }),
                false, "schedule must be isolated"}),
    [](const ::testing::TestParamInfo<Refusal>& info) {
      std::string name = info.param.label;
      for (char& ch : name) {
        if (!isalnum(static_cast<unsigned char>(ch))) ch = '_';
      }
      return name;
    });

TEST(AcceptedContracts, EveryValidCombinationIsAccepted) {
  // cuda: event and cupti with every schedule/cache pair except the refused ones.
  for (Instrument i : {Instrument::event, Instrument::cupti}) {
    for (Schedule s : {Schedule::isolated, Schedule::per_iter, Schedule::graph}) {
      for (CachePolicy c : {CachePolicy::warm, CachePolicy::cold, CachePolicy::rotate}) {
        if (s == Schedule::graph && c == CachePolicy::cold && i == Instrument::event) continue;
        EXPECT_FALSE(why_invalid(cuda(i, s, c)).has_value())
            << to_string(i) << "/" << to_string(s) << "/" << to_string(c) << ": " << *why_invalid(cuda(i, s, c));
      }
    }
    for (CachePolicy c : {CachePolicy::warm, CachePolicy::rotate}) {
      EXPECT_FALSE(why_invalid(cuda(i, Schedule::pipelined, c, "mean")).has_value());
    }
  }
  EXPECT_FALSE(why_invalid(cuda(Instrument::cupti, Schedule::graph, CachePolicy::cold)).has_value());
  // One call per graph: the flush runs before each replay, outside the window, so events may time it.
  EXPECT_FALSE(why_invalid(with(cuda(Instrument::event, Schedule::graph, CachePolicy::cold), [](Contract& c) {
                 c.graph_calls = 1;
               })).has_value());
  EXPECT_FALSE(why_invalid(cuda(Instrument::wallclock, Schedule::isolated, CachePolicy::cold)).has_value());
  for (Schedule s : {Schedule::isolated, Schedule::per_iter}) {
    for (CachePolicy c : {CachePolicy::warm, CachePolicy::cold, CachePolicy::rotate}) {
      EXPECT_FALSE(why_invalid(host(Instrument::wallclock, s, c)).has_value());
    }
  }
  Contract dispatch = cuda(Instrument::wallclock, Schedule::isolated, CachePolicy::warm);
  dispatch.quantity = Quantity::host_dispatch;
  EXPECT_FALSE(why_invalid(dispatch).has_value());
  EXPECT_FALSE(why_invalid(default_contract(BackendKind::cuda)).has_value());
  EXPECT_FALSE(why_invalid(default_contract(BackendKind::host)).has_value());
}

TEST(ContractNames, RoundTripAndRefuseUnknownNames) {
  for (Schedule s : {Schedule::isolated, Schedule::per_iter, Schedule::pipelined, Schedule::graph}) {
    EXPECT_EQ(parse_schedule(to_string(s)), s);
  }
  for (CachePolicy c : {CachePolicy::warm, CachePolicy::cold, CachePolicy::rotate}) {
    EXPECT_EQ(parse_cache_policy(to_string(c)), c);
  }
  for (Instrument i : {Instrument::cupti, Instrument::event, Instrument::wallclock}) {
    EXPECT_EQ(parse_instrument(to_string(i)), i);
  }
  EXPECT_THROW(parse_schedule("pipelind"), UsageError);
  EXPECT_THROW(parse_cache_policy("hot"), UsageError);
  EXPECT_THROW(parse_instrument("Event"), UsageError);
  try {
    parse_schedule("bogus");
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_STREQ(e.what(), "unknown schedule 'bogus' (expected isolated|per_iter|pipelined|graph)");
  }
}

TEST(ContractNames, Statistics) {
  EXPECT_EQ(parse_statistic("median").kind, Statistic::Kind::median);
  EXPECT_EQ(parse_statistic("mean").kind, Statistic::Kind::mean);
  EXPECT_EQ(parse_statistic("min").kind, Statistic::Kind::min);
  const Statistic p90 = parse_statistic("p90");
  EXPECT_EQ(p90.kind, Statistic::Kind::quantile);
  EXPECT_DOUBLE_EQ(p90.quantile, 0.9);
  EXPECT_EQ(p90.name(), "p90");
  EXPECT_EQ(parse_statistic("p99.9").name(), "p99.9");
  EXPECT_THROW(parse_statistic("p0"), UsageError);
  EXPECT_THROW(parse_statistic("p100"), UsageError);
  EXPECT_THROW(parse_statistic("p"), UsageError);
  EXPECT_THROW(parse_statistic("p9x"), UsageError);
  EXPECT_THROW(parse_statistic("average"), UsageError);
}

// Below 6 samples no pair of order statistics is a 95% interval of the median (1 - 2^(1-n) <
// 0.95 for n <= 5), so the adaptive rule, which claims a precision from that interval, is refused.
TEST(AdaptiveRule, MinSamplesBelowTheSmallestExactIntervalIsRefused) {
  Contract c = cuda(Instrument::event, Schedule::isolated, CachePolicy::warm);
  for (std::int64_t n = 1; n <= 5; ++n) {
    c.iterations.min_samples = n;
    const auto why = why_invalid(c);
    ASSERT_TRUE(why.has_value()) << n;
    EXPECT_EQ(*why, fmt::format("min_samples (--min-samples) must be >= 6 with the adaptive rule (got {}): "
                                "below 6 samples no pair of order statistics is a 95% confidence interval "
                                "of the median, so no precision can be claimed; give a fixed count "
                                "(--iters) for fewer samples",
                                n));
    EXPECT_EQ(why->find('\n'), std::string::npos);
  }
  c.iterations.min_samples = 6;
  EXPECT_EQ(why_invalid(c), std::nullopt);
  // A fixed count claims no precision: any count is measurable.
  c.iterations.mode = IterationRule::Mode::fixed;
  c.iterations.count = 1;
  EXPECT_EQ(why_invalid(c), std::nullopt);
}

TEST(ContractNames, IterationRuleDescription) {
  IterationRule fixed;
  fixed.mode = IterationRule::Mode::fixed;
  fixed.count = 100;
  EXPECT_EQ(fixed.describe(), "fixed:100");
  IterationRule adaptive;
  EXPECT_EQ(adaptive.describe(),
            "adaptive:min_samples=20,min_time_ms=20,max_time_ms=1000,target_rel_halfwidth=0.005");
}

TEST(ContractNames, IterationRuleParsesItsDescription) {
  const IterationRule fixed = parse_iteration_rule("fixed:250");
  EXPECT_EQ(fixed.mode, IterationRule::Mode::fixed);
  EXPECT_EQ(fixed.count, 250);
  const IterationRule a =
      parse_iteration_rule("adaptive:min_samples=12,min_time_ms=2.5,max_time_ms=40,target_rel_halfwidth=0.01");
  EXPECT_EQ(a.mode, IterationRule::Mode::adaptive);
  EXPECT_EQ(a.min_samples, 12);
  EXPECT_DOUBLE_EQ(a.min_time_ms, 2.5);
  EXPECT_DOUBLE_EQ(a.max_time_ms, 40);
  EXPECT_DOUBLE_EQ(a.target_rel_halfwidth, 0.01);
  EXPECT_EQ(parse_iteration_rule(a.describe()), a);
  EXPECT_EQ(parse_iteration_rule(IterationRule{}.describe()), IterationRule{});
  for (const char* bad : {"fixed:", "fixed:1x", "adaptive:", "adaptive:min_samples=12",
                          "adaptive:min_time_ms=2,min_samples=12,max_time_ms=40,target_rel_halfwidth=0.01",
                          "adaptive:min_samples=12,min_time_ms=2,max_time_ms=40,target_rel_halfwidth=0.01,x=1",
                          "nvbench:min_samples=10", ""}) {
    EXPECT_THROW(parse_iteration_rule(bad), UsageError) << bad;
  }
}

TEST(ContractMismatch, BackendOfContractMustMatchTheBackend) {
  // Checked in measure(); here only that defaults differ per backend as documented.
  EXPECT_EQ(default_contract(BackendKind::cuda).instrument, Instrument::event);
  EXPECT_EQ(default_contract(BackendKind::cuda).schedule, Schedule::per_iter);
  EXPECT_EQ(default_contract(BackendKind::host).instrument, Instrument::wallclock);
  EXPECT_EQ(default_contract(BackendKind::host).schedule, Schedule::isolated);
  EXPECT_EQ(default_contract(BackendKind::host).cache, CachePolicy::cold);
}

}  // namespace
}  // namespace caliber
