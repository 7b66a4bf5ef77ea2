// The caliber check: every caliber field's mismatch is refused (exit 4 at the CLI), the override
// prints and proceeds, hazards warn, informative fields never stop a comparison.
#include "caliber/caliber_check.h"

#include <gtest/gtest.h>

#include <functional>
#include <set>
#include <sstream>

#include "caliber/errors.h"
#include "support/caliber_mutations.h"
#include "support/sample_identity.h"

namespace caliber {
namespace {

using testing_support::sample_identity;

using testing_support::caliber_mutations;
using testing_support::Mutation;

Contract& kernel_only(RunIdentity& id) { return id.contracts[0].contract; }

std::string refused_output(const RunIdentity& a, const RunIdentity& b) {
  std::ostringstream out;
  EXPECT_THROW(require_same_caliber(compare_identities(a, b), false, out), CaliberMismatchError);
  return out.str();
}

TEST(CaliberCheck, TheMutationsCoverEveryCaliberField) {
  std::set<std::string> tested, defined;
  for (const Mutation& m : caliber_mutations()) tested.insert(m.field);
  for (const std::string& f : caliber_field_names()) defined.insert(f);
  EXPECT_EQ(tested, defined) << "a caliber field was added or removed: add its mismatch test here";
}

TEST(CaliberCheck, EveryCaliberFieldMismatchIsRefused) {
  for (const Mutation& m : caliber_mutations()) {
    RunIdentity b = sample_identity();
    m.apply(b);
    const std::string out = refused_output(sample_identity(), b);
    EXPECT_NE(out.find(m.line + "\n"), std::string::npos) << m.field << "\n" << out;
    EXPECT_NE(out.find("!!! [caliber] refused: 1 caliber field(s) differ"), std::string::npos) << out;
  }
}

TEST(CaliberCheck, EveryContractFieldMismatchIsRefusedByName) {
  const std::vector<std::pair<std::function<void(Contract&)>, std::string>> cases = {
      {[](Contract& c) { c.quantity = Quantity::host_dispatch; }, "quantity: A=device_time, B=host_dispatch"},
      {[](Contract& c) { c.instrument = Instrument::wallclock; }, "instrument: A=event, B=wallclock"},
      {[](Contract& c) { c.schedule = Schedule::isolated; }, "schedule: A=graph, B=isolated"},
      {[](Contract& c) { c.cache = CachePolicy::cold; }, "cache: A=warm, B=cold"},
      {[](Contract& c) { c.statistic = parse_statistic("p90"); }, "statistic: A=median, B=p90"},
      {[](Contract& c) { c.warmup = 3; }, "warmup: A=10, B=3"},
      {[](Contract& c) {
         c.iterations.mode = IterationRule::Mode::fixed;
         c.iterations.count = 50;
       },
       "iterations: A=adaptive:min_samples=20,min_time_ms=20,max_time_ms=1000,target_rel_halfwidth=0.005, B=fixed:50"},
      {[](Contract& c) { c.graph_calls = 7; }, "graph_calls: A=20, B=7"},
      {[](Contract& c) { c.throttle_policy = ThrottlePolicy::discard; }, "throttle_policy: A=flag, B=discard"},
  };
  for (const auto& [mutate, tail] : cases) {
    RunIdentity b = sample_identity();
    mutate(kernel_only(b));
    const std::string out = refused_output(sample_identity(), b);
    EXPECT_NE(out.find("!!! [caliber] contracts[kernel_only]." + tail + "\n"), std::string::npos) << tail << "\n" << out;
  }
  // cupti_reduction exists only under instrument cupti.
  RunIdentity a = sample_identity();
  kernel_only(a).instrument = Instrument::cupti;
  RunIdentity c = a;
  kernel_only(c).cupti_reduction = CuptiReduction::sum;
  EXPECT_NE(refused_output(a, c).find("!!! [caliber] contracts[kernel_only].cupti_reduction: A=busy, B=sum\n"),
            std::string::npos);
  // A contract role one side lacks is a difference of the whole contract.
  RunIdentity b = sample_identity();
  b.contracts.pop_back();
  const std::string out = refused_output(sample_identity(), b);
  EXPECT_NE(out.find("!!! [caliber] contracts[eager]: A=eager{backend=cuda,quantity=device_time,instrument=event,"
                     "schedule=per_iter,"
                     "cache=cold,statistic=median,warmup=10,iterations=adaptive:min_samples=20,min_time_ms=20,"
                     "max_time_ms=1000,target_rel_halfwidth=0.005,throttle_policy=flag,inputs=fresh}, B=<absent>\n"),
            std::string::npos)
      << out;
}

TEST(CaliberCheck, SeveralDifferencesAreAllPrinted) {
  RunIdentity b = sample_identity();
  b.device.arch = "sm_100";
  b.harness.build_type = "Debug";
  kernel_only(b).cache = CachePolicy::cold;
  const std::string out = refused_output(sample_identity(), b);
  EXPECT_NE(out.find("device.arch: A=sm_90, B=sm_100"), std::string::npos);
  EXPECT_NE(out.find("contracts[kernel_only].cache: A=warm, B=cold"), std::string::npos);
  EXPECT_NE(out.find("harness.build_type: A=Release, B=Debug"), std::string::npos);
  EXPECT_NE(out.find("refused: 3 caliber field(s) differ"), std::string::npos) << out;
}

TEST(CaliberCheck, TheOverridePrintsEveryDifferenceAndProceeds) {
  RunIdentity b = sample_identity();
  b.device.name = "NVIDIA H100";
  std::ostringstream out;
  const CaliberComparison c = compare_identities(sample_identity(), b);
  EXPECT_NO_THROW(require_same_caliber(c, /*allow_mismatch=*/true, out));
  EXPECT_EQ(out.str(),
            "!!! [caliber] device.name: A=NVIDIA H200, B=NVIDIA H100\n"
            "!!! [caliber] proceeding anyway (--allow-caliber-mismatch): every number below compares runs of "
            "different caliber\n");
}

TEST(CaliberCheck, AMissingIdentityIsRefused) {
  std::ostringstream out;
  const CaliberComparison c = compare_identities(std::nullopt, sample_identity(), "no run_identity.json for /runs/a");
  EXPECT_THROW(require_same_caliber(c, false, out), CaliberMismatchError);
  EXPECT_EQ(out.str().substr(0, out.str().find('\n') + 1),
            "!!! [caliber] run_identity.json: A=<missing: no run_identity.json for /runs/a>, B=present\n");
}

TEST(CaliberCheck, InformativeFieldsNeverStopAComparison) {
  RunIdentity b = sample_identity();
  b.run_id = "other";
  b.created_at = "2026-12-01T00:00:00Z";
  b.hostname = "another-box";
  b.command = {"caliber", "run", "--op", "softmax"};
  b.outputs = {"x.jsonl"};
  b.device.index = 3;
  b.harness.git_revision = "ffffffffffff";
  b.harness.compiler = "GNU 13.2.0";
  b.harness.executable_sha256 = std::string(64, 'e');
  b.providers[0].sha256 = std::string(64, '9');
  b.baseline_matrix->sha256 = std::string(64, '8');
  const CaliberComparison c = compare_identities(sample_identity(), b);
  EXPECT_TRUE(c.comparable());
  EXPECT_TRUE(c.hazards.empty());
  std::ostringstream out;
  require_same_caliber(c, false, out);
  EXPECT_EQ(out.str(), "");
}

TEST(CaliberCheck, HazardsWarnButDoNotRefuse) {
  RunIdentity b = sample_identity();
  b.device.uuid = "GPU-99999999-1111-2222-3333-444444444444";
  b.clocks_at_start.sm_clock_mhz = 345;  // idle vs boosted (docs/gpu/reference.md)
  b.device_processes_at_start.processes = {{4242, "python3", 1ull << 30}};
  const CaliberComparison c = compare_identities(sample_identity(), b);
  EXPECT_TRUE(c.comparable());
  ASSERT_EQ(c.hazards.size(), 3u);
  EXPECT_EQ(c.hazards[0], "device.uuid: different physical devices of the same model (A=GPU-00000000-1111-2222-3333-"
                          "444444444444, B=GPU-99999999-1111-2222-3333-444444444444): device-to-device variation is "
                          "part of every delta");
  EXPECT_EQ(c.hazards[1].rfind("clocks_at_start: SM clock at start differs by more than 25%: A=1980 MHz, B=345 MHz", 0), 0u)
      << c.hazards[1];
  EXPECT_EQ(c.hazards[2], "device_processes_at_start: another compute process was on the device when B started: 1 "
                          "(nvml): pid 4242 python3");
  std::ostringstream out;
  require_same_caliber(c, false, out);
  EXPECT_EQ(out.str().rfind("warning [caliber] device.uuid: ", 0), 0u) << out.str();
  // Clocks within 25% of each other, or unknown on one side, are no hazard.
  b = sample_identity();
  b.clocks_at_start.sm_clock_mhz = 1600;
  EXPECT_TRUE(compare_identities(sample_identity(), b).hazards.empty());
  b.clocks_at_start = {false, "", "NVML missing", 0, 0};
  EXPECT_TRUE(compare_identities(sample_identity(), b).hazards.empty());
}

TEST(CaliberCheck, CaliberColumnsFollowTheOneDefinition) {
  EXPECT_EQ(caliber_field_names(),
            (std::vector<std::string>{"backend", "device.name", "device.arch", "device.driver_version",
                                      "device.runtime_version", "contracts", "harness.version", "harness.build_type",
                                      "inputs.shape_ledger"}));
  const auto values = caliber_field_values(sample_identity());
  ASSERT_EQ(values.size(), 9u);
  EXPECT_EQ(values[0], "cuda");
  EXPECT_EQ(values[5].rfind("eager{", 0), 0u) << values[5];  // roles sorted
  EXPECT_NE(values[5].find("; kernel_only{backend=cuda,quantity=device_time,instrument=event,schedule=graph,cache=warm,"),
            std::string::npos)
      << values[5];
}

}  // namespace
}  // namespace caliber
