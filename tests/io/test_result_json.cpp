#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "support/run_cli.h"
#include "caliber/errors.h"
#include "caliber/result_json.h"
#include "support/sample_results.h"

namespace caliber {
namespace {

using testing_support::sample_result;

TEST(ResultJson, GoldenSerialization) {
  const std::string want = R"({"contract":{"backend":"cuda","cache":"cold","inputs":"fresh","instrument":"event","iterations":{"count":4,"rule":"fixed"},"quantity":"device_time","schedule":"per_iter","statistic":"median","throttle_policy":"flag","warmup":10},"device":{"arch":"sm_90","backend":"cuda","driver_version":"13.0","index":0,"llc_bytes":62914560,"llc_source":"cudaDeviceProp::l2CacheSize","mem_clock_max_mhz":3201,"memory_bytes":150754820096,"multiprocessors":132,"name":"NVIDIA H200","runtime_version":"13.0","sm_clock_max_mhz":1980,"uuid":"GPU-00000000-1111-2222-3333-444444444444"},"flags":[],"flush_bytes":125829120,"instrument_selection":{"kernel_tracing":false,"reason":"","requested":"event"},"integrity":{"checks":[],"input_seed":null,"verdict":"unverified","verification_seed":null},"median_ci95_us":null,"name":"copy","notes":[],"params":{"dtype":"float32","size_bytes":1073741824},"rotation_copies":0,"samples_us":[536.5,537.0,537.5,540.0],"stable":true,"stop_reason":"fixed count","summary":{"max_us":540.0,"mean_us":537.75,"median_us":537.25,"min_us":536.5,"n":4,"p10_us":536.8,"p25_us":537.0,"p75_us":537.5,"p90_us":538.0,"rel_iqr":0.0009,"stdev_us":1.5},"telemetry":{"available":false,"reason":"not sampled"},"timed_calls":4,"value_us":537.25,"wall_time_ms":12.5,"warnings":["few samples (n = 4): quantiles are coarse"]})";
  EXPECT_EQ(to_json(sample_result()).dump(), want);
  // Without samples the key is absent, not empty.
  EXPECT_FALSE(to_json(sample_result(), false).contains("samples_us"));
}

TEST(ResultJson, ScheduleSpecificFieldsOnlyWhereTheyMeanSomething) {
  Contract c = default_contract(BackendKind::cuda);
  EXPECT_FALSE(to_json(c).contains("graph_calls"));
  EXPECT_FALSE(to_json(c).contains("cupti_reduction"));
  c.schedule = Schedule::graph;
  c.instrument = Instrument::cupti;
  c.graph_calls = 8;
  EXPECT_EQ(to_json(c)["graph_calls"], 8);
  EXPECT_EQ(to_json(c)["cupti_reduction"], "busy");
  EXPECT_EQ(to_json(c)["iterations"]["rule"], "adaptive");
  EXPECT_EQ(to_json(c)["iterations"]["target_rel_halfwidth"], 0.005);
}

TEST(ResultJson, RoundTrips) {
  Result r = sample_result();
  Result back = result_from_json(to_json(r), "mem", 0, "r");
  EXPECT_EQ(to_json(back).dump(), to_json(r).dump());
  EXPECT_EQ(back.contract, r.contract);
  EXPECT_FALSE(back.median_ci95_us.has_value());
  r.median_ci95_us = Interval{536.5, 540.0};
  r.stable = false;
  r.flags = {"unstable:throttled", "throttled:sw_power_cap"};
  back = result_from_json(to_json(r), "mem", 0, "r");
  ASSERT_TRUE(back.median_ci95_us.has_value());
  EXPECT_EQ(back.median_ci95_us->lo, 536.5);
  EXPECT_EQ(back.median_ci95_us->hi, 540.0);
  EXPECT_EQ(back.flags, r.flags);
  // A file written before flags existed reads as "no flags".
  nlohmann::json old = to_json(r);
  old.erase("flags");
  EXPECT_TRUE(result_from_json(old, "mem", 0, "r").flags.empty());
  Contract c = default_contract(BackendKind::cuda);
  c.schedule = Schedule::graph;
  c.instrument = Instrument::cupti;
  c.cupti_reduction = CuptiReduction::span;
  c.graph_calls = 3;
  c.statistic = parse_statistic("p90");
  EXPECT_EQ(contract_from_json(to_json(c), "mem", 0, "c"), c);
}

std::string error_of(const nlohmann::json& j) {
  try {
    result_from_json(j, "runs/a.json", 0, "results[1]");
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(ResultJson, StrictReadingNamesTheField) {
  nlohmann::json j = to_json(sample_result());
  j["contract"]["schedule"] = "pipelind";
  EXPECT_EQ(error_of(j),
            "runs/a.json: field 'results[1].contract.schedule': unknown schedule 'pipelind' (expected "
            "isolated|per_iter|pipelined|graph)");
  j = to_json(sample_result());
  j["summary"].erase("p90_us");
  EXPECT_EQ(error_of(j), "runs/a.json: field 'results[1].summary.p90_us': missing");
  j = to_json(sample_result());
  j["value_us"] = "537";
  EXPECT_EQ(error_of(j), "runs/a.json: field 'results[1].value_us': expected a number, got string");
  j = to_json(sample_result());
  j["contract"]["iterations"]["rule"] = "forever";
  EXPECT_EQ(error_of(j),
            "runs/a.json: field 'results[1].contract.iterations.rule': unknown iteration rule 'forever' "
            "(expected fixed|adaptive)");
  j = to_json(sample_result());
  j["samples_us"][2] = nullptr;
  EXPECT_EQ(error_of(j), "runs/a.json: field 'results[1].samples_us[2]': expected a number");
  j = to_json(sample_result());
  j["wall_time_ms"] = -5;
  EXPECT_EQ(error_of(j), "runs/a.json: field 'results[1].wall_time_ms': must be >= 0 (got -5)");
}

std::string write_temp(const std::string& name, const std::string& text) {
  const std::string path = caliber::testing_support::temp_path("") + name;
  std::ofstream(path) << text;
  return path;
}

TEST(ResultsDocument, WritesAndReadsBack) {
  std::ostringstream out;
  write_results_json(out, {sample_result(), sample_result()});
  const auto doc = nlohmann::json::parse(out.str());
  EXPECT_EQ(doc["schema_version"], 2);
  EXPECT_EQ(doc["kind"], "caliber.results");
  EXPECT_EQ(doc["complete"], true);
  EXPECT_EQ(doc["generator"]["name"], "caliber");
  ASSERT_EQ(doc["results"].size(), 2u);
  const auto path = write_temp("doc.json", out.str());
  const auto back = read_results_json(path);
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[1].value_us, 537.25);
}

TEST(ResultsDocument, TruncatedFileIsRefusedWithItsLine) {
  std::ostringstream out;
  write_results_json(out, {sample_result()});
  const std::string text = out.str().substr(0, out.str().size() / 2);
  const auto path = write_temp("truncated.json", text);
  try {
    read_results_json(path);
    FAIL();
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind(path + ":", 0), 0u) << what;
    EXPECT_NE(what.find("malformed JSON"), std::string::npos) << what;
    EXPECT_GT(e.line(), 1);
  }
}

TEST(ResultsDocument, IncompleteRunAndUnknownVersionAreRefused) {
  std::ostringstream out;
  write_results_json(out, {sample_result()}, /*complete=*/false);
  auto path = write_temp("incomplete.json", out.str());
  EXPECT_THROW(read_results_json(path), InputError);
  auto doc = nlohmann::json::parse(out.str());
  doc["complete"] = true;
  doc["schema_version"] = 99;
  path = write_temp("v99.json", doc.dump());
  try {
    read_results_json(path);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              path + ": field 'schema_version': unsupported schema version 99 (this caliber reads 1 to 2)");
  }
  EXPECT_THROW(read_results_json(caliber::testing_support::temp_path("does-not-exist.json")), InputError);
}

}  // namespace
}  // namespace caliber
