#include <gtest/gtest.h>

#include <sstream>

#include "io/result_csv.h"
#include "support/sample_results.h"

namespace caliber {
namespace {

TEST(ResultCsv, Golden) {
  std::ostringstream out;
  write_results_csv(out, {testing_support::sample_result()});
  const std::string want =
      "name,params,device_name,arch,backend,quantity,instrument,schedule,cache,statistic,warmup,"
      "iterations,graph_calls,cupti_reduction,cupti_value,throttle_policy,inputs,value_us,n,min_us,p10_us,p25_us,"
      "median_us,p75_us,p90_us,max_us,mean_us,stdev_us,rel_iqr,stable,stop_reason,flush_bytes,"
      "rotation_copies,flags,warnings,instrument_perturbation_us,instrument_perturbation_pct,integrity,integrity_failure\n"
      "copy,\"{\"\"dtype\"\":\"\"float32\"\",\"\"size_bytes\"\":1073741824}\",NVIDIA H200,sm_90,cuda,"
      "device_time,event,per_iter,cold,median,10,fixed:4,,,,flag,fresh,537.25,4,536.5,536.8,537,537.25,537.5,538,"
      "540,537.75,1.5,0.0009,true,fixed count,125829120,0,,few samples (n = 4): quantiles are coarse,,,unverified,\n";
  EXPECT_EQ(out.str(), want);
}

TEST(ResultCsv, Escaping) {
  EXPECT_EQ(csv_escape("plain"), "plain");
  EXPECT_EQ(csv_escape("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_escape("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(csv_escape("two\nlines"), "\"two\nlines\"");
}

}  // namespace
}  // namespace caliber
