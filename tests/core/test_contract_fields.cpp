// The one table of the contract's fields (core/contract_fields.h), and proof that every projection
// of a contract carries every field in it: the results JSON (writer and reader), the `caliber
// bench` CSV and its compare importer, benchmark_results.csv and its compare importer,
// `caliber compare`'s contract check, the run identity's `contracts` field and its per-field
// check, and the shipped schemas. A field added to Contract and to the table but forgotten in
// one projection fails here.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "results/benchmark_results.h"
#include "caliber/caliber_check.h"
#include "caliber/errors.h"
#include "io/result_csv.h"
#include "caliber/result_json.h"
#include "compare/compare_row.h"
#include "compare/importers.h"
#include "core/contract_fields.h"
#include "core/csv_records.h"
#include "identity/contract_description.h"
#include "support/report_rows.h"
#include "support/sample_identity.h"
#include "support/sample_results.h"
#include "io/embedded_schemas.h"
#include "io/benchmark_results_csv.h"
#include "io/benchmark_results_json.h"

namespace caliber {
namespace {

// Every field away from its default and every field applying (graph, cupti), so a projection
// that drops or defaults one field shows it.
Contract every_field_set() {
  Contract c;
  c.backend = BackendKind::cuda;
  c.quantity = Quantity::host_dispatch;
  c.instrument = Instrument::cupti;
  c.schedule = Schedule::graph;
  c.cache = CachePolicy::rotate;
  c.statistic = parse_statistic("p90");
  c.warmup = 7;
  c.iterations.mode = IterationRule::Mode::fixed;
  c.iterations.count = 33;
  c.graph_calls = 9;
  c.cupti_reduction = CuptiReduction::span;
  c.cupti_value = CuptiValue::event;
  c.throttle_policy = ThrottlePolicy::discard;
  c.inputs = InputValues::fixed;
  return c;
}

// every_field_set() with field `f` back at Contract's default.
Contract with_default(const ContractField& f) {
  Contract c = every_field_set();
  f.set(c, f.text(Contract{}));
  return c;
}

// A projection shows every field: every_field_set() with any one field back at its default
// projects differently.
template <typename Projection>
void expect_every_field_shows(Projection project) {
  const auto all = project(every_field_set());
  for (const ContractField& f : contract_field_table()) EXPECT_NE(project(with_default(f)), all) << f.name;
}

// A writer of one file format shows every field, and compare's importer of that format reads
// every field back.
template <typename Write>
void expect_written_and_read_back(Write write,
                                  std::vector<compare::CompareRow> (*import)(const std::string&, const std::string&)) {
  const auto rows = import(write(every_field_set()), "written.csv");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].contract, compare::contract_fields(every_field_set()));
  expect_every_field_shows(write);
}

std::vector<std::string> table_names() {
  std::vector<std::string> out;
  for (const ContractField& f : contract_field_table()) out.emplace_back(f.name);
  return out;
}

TEST(ContractFields, TheTableHasEveryFieldOfContractOnce) {
  EXPECT_EQ(table_names(),
            (std::vector<std::string>{"backend", "quantity", "instrument", "schedule", "cache", "statistic", "warmup",
                                      "iterations", "graph_calls", "cupti_reduction", "cupti_value", "throttle_policy",
                                      "inputs"}));
  const Contract all = every_field_set();
  for (const ContractField& f : contract_field_table()) {
    EXPECT_TRUE(f.applies(all)) << f.name;
    // The test's premise: each field's default differs from every_field_set()'s value, and set()
    // changes that field alone.
    EXPECT_NE(f.text(with_default(f)), f.text(all)) << f.name;
    EXPECT_FALSE(with_default(f) == all) << f.name;
    EXPECT_EQ(canonical_field_text(f, f.text(all)), f.text(all)) << f.name;
    EXPECT_EQ(find_contract_field(f.name), &f);
  }
  EXPECT_EQ(find_contract_field("bogus"), nullptr);
  // Compiles only while Contract has exactly these thirteen members: a member added to Contract
  // stops the build here until it is added to the table (and to every_field_set()).
  [[maybe_unused]] const auto& [backend, quantity, instrument, schedule, cache, statistic, warmup, iterations,
                                graph_calls, cupti_reduction, cupti_value, throttle_policy, inputs] = all;
  EXPECT_EQ(contract_field_table().size(), 13u);
  // Field by field from the table's texts, a default contract becomes every_field_set().
  Contract rebuilt;
  for (const ContractField& f : contract_field_table()) f.set(rebuilt, f.text(all));
  EXPECT_EQ(rebuilt, all);
}

TEST(ContractFields, CanonicalTextRefusesWhatTheFieldDoesNotAccept) {
  EXPECT_EQ(canonical_field_text(*find_contract_field("statistic"), "p90.0"), "p90");
  EXPECT_THROW(canonical_field_text(*find_contract_field("schedule"), "PER_ITER"), UsageError);
  EXPECT_THROW(canonical_field_text(*find_contract_field("warmup"), " 10"), UsageError);
  EXPECT_THROW(canonical_field_text(*find_contract_field("graph_calls"), "-1"), UsageError);
  EXPECT_THROW(canonical_field_text(*find_contract_field("iterations"), "nvbench:x"), UsageError);
}

TEST(ContractFields, FieldsThatDoNotApplyAreWrittenNowhere) {
  const Contract c = default_contract(BackendKind::cuda);  // per_iter, event
  std::vector<std::string> names;
  for (const auto& [name, text] : contract_field_texts(c)) names.push_back(name);
  EXPECT_EQ(names, (std::vector<std::string>{"backend", "quantity", "instrument", "schedule", "cache", "statistic",
                                             "warmup", "iterations", "throttle_policy", "inputs"}));
  EXPECT_FALSE(to_json(c).contains("graph_calls"));
  EXPECT_TRUE(compare::contract_fields(c)["cupti_reduction"].empty());
}

TEST(ContractFields, ResultsJsonWritesAndReadsEveryField) {
  const Contract all = every_field_set();
  const nlohmann::json j = to_json(all);
  std::vector<std::string> keys;
  for (const auto& [k, v] : j.items()) keys.push_back(k);
  const std::vector<std::string> names = table_names();
  EXPECT_EQ(std::set<std::string>(keys.begin(), keys.end()), std::set<std::string>(names.begin(), names.end()));
  EXPECT_EQ(contract_from_json(j, "mem", 0, "contract"), all);
  expect_every_field_shows([](const Contract& c) { return to_json(c); });
}

// A file written before `inputs` was recorded leaves it out: its timed calls may all have seen one
// set of values, so it reads as fixed; every other field stays required.
TEST(ContractFields, AResultsFileWithoutInputsReadsAsFixedInputs) {
  nlohmann::json j = to_json(default_contract(BackendKind::cuda));
  j.erase("inputs");
  EXPECT_EQ(contract_from_json(j, "old.json", 3, "contract").inputs, InputValues::fixed);
  j.erase("cache");
  EXPECT_THROW(contract_from_json(j, "old.json", 3, "contract"), InputError);
  for (const ContractField& f : contract_field_table()) EXPECT_EQ(f.absent.empty(), f.name != "inputs") << f.name;
}

// Two measurements alike but for their input values are not like for like.
TEST(ContractFields, CompareSeesFreshAgainstFixedInputs) {
  Contract fresh = default_contract(BackendKind::cuda);
  Contract fixed = fresh;
  fixed.inputs = InputValues::fixed;
  const auto diffs = compare::contract_differences(compare::contract_fields(fixed), compare::contract_fields(fresh));
  ASSERT_EQ(diffs.size(), 1u);
  EXPECT_EQ(compare::describe_differences(diffs), "inputs fixed→fresh");
}

Result measured_under(const Contract& c) {
  Result r = testing_support::sample_result();
  r.contract = c;
  return r;
}

TEST(ContractFields, BenchCsvWritesEveryFieldAndItsImporterReadsEveryField) {
  const std::vector<std::string>& columns = results_csv_columns();
  for (const std::string& name : table_names()) {
    EXPECT_EQ(std::count(columns.begin(), columns.end(), name), 1) << name;
  }
  auto csv = [](const Contract& c) {
    std::ostringstream out;
    write_results_csv(out, {measured_under(c)});
    return out.str();
  };
  expect_written_and_read_back(csv, compare::import_caliber_csv);
}

TEST(ContractFields, BenchmarkResultsCsvWritesEveryFieldOfEachMeasurementAndItsImporterReadsThem) {
  const std::vector<std::string>& columns = benchmark_results_csv_columns();
  for (const std::string& name : table_names()) {
    for (const char* prefix : {"kernel_only.", "eager."}) {
      EXPECT_EQ(std::count(columns.begin(), columns.end(), prefix + name), 1) << prefix << name;
    }
  }
  auto csv = [](const Contract& c) {
    BenchmarkResultRow row = testing_support::ok_result(testing_support::ledger_shape(8, 4096), "caliber", 20.0);
    row.kernel_only->contract = c;
    std::ostringstream out;
    write_benchmark_results_csv(out, {row});
    return out.str();
  };
  expect_written_and_read_back(csv, compare::import_benchmark_results_csv);
}

// A benchmark_results.csv written before the inputs columns existed is still read: its measured
// rows read as fixed inputs, a measurement not taken stays empty.
TEST(ContractFields, ABenchmarkResultsCsvWithoutTheInputsColumnsReadsAsFixedInputs) {
  BenchmarkResultRow row = testing_support::ok_result(testing_support::ledger_shape(8, 4096), "caliber", 20.0);
  row.eager.reset();
  std::ostringstream out;
  write_benchmark_results_csv(out, {row});
  const std::vector<std::string>& columns = benchmark_results_csv_columns();
  std::vector<std::size_t> dropped;
  for (std::size_t i = 0; i < columns.size(); ++i) {
    if (columns[i] == "kernel_only.inputs" || columns[i] == "eager.inputs") dropped.push_back(i);
  }
  ASSERT_EQ(dropped.size(), 2u);
  std::string old_file;
  for (const CsvRecord& rec : parse_csv_records(out.str(), "new.csv")) {
    std::vector<std::string> kept;
    for (std::size_t i = 0; i < rec.fields.size(); ++i) {
      if (std::find(dropped.begin(), dropped.end(), i) == dropped.end()) kept.push_back(csv_escape(rec.fields[i]));
    }
    old_file += fmt::format("{}\n", fmt::join(kept, ","));
  }
  const std::vector<nlohmann::json> rows = parse_benchmark_results_csv(old_file, "old.csv");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].at("kernel_only.inputs"), "fixed");
  EXPECT_TRUE(rows[0].at("eager.inputs").is_null());
  const auto imported = compare::import_benchmark_results_csv(old_file, "old.csv");
  ASSERT_EQ(imported.size(), 1u);
  EXPECT_EQ(imported[0].contract["inputs"], "fixed");
}

TEST(ContractFields, CompareChecksEveryField) {
  const Contract all = every_field_set();
  const compare::ContractFields base = compare::contract_fields(all);
  for (const ContractField& f : contract_field_table()) {
    EXPECT_FALSE(base[f.name].empty()) << f.name;
    const auto diffs = compare::contract_differences(base, compare::contract_fields(with_default(f)));
    ASSERT_FALSE(diffs.empty()) << f.name;
    EXPECT_EQ(diffs.front().field, f.name);
    EXPECT_EQ(diffs.front().baseline, f.text(all));
  }
  EXPECT_TRUE(compare::contract_differences(base, base).empty());
  EXPECT_THROW(base["bogus"], std::logic_error);
}

TEST(ContractFields, TheRunIdentityDescribesAndChecksEveryField) {
  const Contract all = every_field_set();
  expect_every_field_shows([](const Contract& c) { return describe_contracts({{"kernel_only", c}}); });
  const std::string described = describe_contracts({{"kernel_only", all}});
  for (const ContractField& f : contract_field_table()) {
    EXPECT_NE(described.find(std::string(f.name) + "=" + f.text(all)), std::string::npos) << f.name;
    RunIdentity a = testing_support::sample_identity(), b = a;
    a.contracts = {{"kernel_only", all}};
    b.contracts = {{"kernel_only", with_default(f)}};
    const CaliberComparison cmp = compare_identities(a, b, "", "");
    const std::string field = "contracts[kernel_only]." + std::string(f.name);
    EXPECT_TRUE(std::any_of(cmp.differences.begin(), cmp.differences.end(),
                            [&](const CaliberDifference& d) { return d.field == field; }))
        << field;
  }
}

const nlohmann::json& schema(std::string_view name) {
  static std::map<std::string, nlohmann::json, std::less<>> parsed;
  auto it = parsed.find(name);
  if (it == parsed.end()) {
    for (const EmbeddedSchema& s : embedded_schemas()) {
      if (s.name == name) it = parsed.emplace(std::string(name), nlohmann::json::parse(s.text)).first;
    }
  }
  if (it == parsed.end()) throw std::logic_error("no embedded schema " + std::string(name));
  return it->second;
}

std::set<std::string> property_names(const nlohmann::json& object_schema) {
  std::set<std::string> out;
  for (const auto& [k, v] : object_schema.at("properties").items()) out.insert(k);
  return out;
}

TEST(ContractFields, TheSchemasDefineEveryField) {
  const std::vector<std::string> names = table_names();
  const std::set<std::string> want(names.begin(), names.end());
  EXPECT_EQ(property_names(schema("results.schema.json").at("definitions").at("contract")), want);
  EXPECT_EQ(property_names(schema("benchmark_result.v1.schema.json").at("definitions").at("contract")), want);
  const std::set<std::string> csv = property_names(schema("benchmark_results_csv.v1.schema.json"));
  for (const std::string& name : names) {
    EXPECT_TRUE(csv.count("kernel_only." + name)) << name;
    EXPECT_TRUE(csv.count("eager." + name)) << name;
  }
}

TEST(ContractFields, AdaptiveRulesThatDifferOnlyInTheirBudgetCompare) {
  const std::string a = "adaptive:min_samples=6,min_time_ms=0,max_time_ms=25,target_rel_halfwidth=0.01";
  const std::string b = "adaptive:min_samples=6,min_time_ms=5,max_time_ms=400,target_rel_halfwidth=0.01";
  IterationRule r = parse_iteration_rule(a);
  ASSERT_EQ(r.describe(), a);  // the text the tests compare is the rule's own
  EXPECT_TRUE(differ_only_in_budget("iterations", a, b));
  EXPECT_FALSE(differ_only_in_budget("warmup", a, b));
  EXPECT_FALSE(differ_only_in_budget(
      "iterations", a, "adaptive:min_samples=7,min_time_ms=0,max_time_ms=25,target_rel_halfwidth=0.01"));
  EXPECT_FALSE(differ_only_in_budget(
      "iterations", a, "adaptive:min_samples=6,min_time_ms=0,max_time_ms=25,target_rel_halfwidth=0.005"));
  EXPECT_FALSE(differ_only_in_budget("iterations", "fixed:10", "fixed:20"));
  EXPECT_FALSE(differ_only_in_budget("iterations", a, "fixed:20"));
}

}  // namespace
}  // namespace caliber
