// The bottleneck rule table (docs/reports.md, "Bottleneck classification"). First match wins.
#include "analysis/bottleneck_classification.h"

#include <optional>

#include <fmt/format.h>

#include "caliber/dtype.h"
#include "analysis/roofline.h"
#include "core/enum_names.h"
#include "ops/op_catalog.h"

namespace caliber {
namespace {

constexpr NameTable<Bottleneck, 8> kNames{{{Bottleneck::ok, "ok"},
                                           {Bottleneck::implementation_gap, "implementation_gap"},
                                           {Bottleneck::tuning_gap, "tuning_gap"},
                                           {Bottleneck::algorithm_gap, "algorithm_gap"},
                                           {Bottleneck::codegen_gap, "codegen_gap"},
                                           {Bottleneck::launch_or_roofline_limited, "launch_or_roofline_limited"},
                                           {Bottleneck::measurement_issue, "measurement_issue"},
                                           {Bottleneck::baseline_unfair_or_unmatched, "baseline_unfair_or_unmatched"}}};

std::string speedup_text(double s) { return fmt::format("{:.3f}x", s); }
std::string percent(double f) { return fmt::format("{:.0f}%", f * 100); }

bool under_filled(const ClassificationInput& in) {
  return in.work_units && in.device_parallelism > 0 && *in.work_units < in.device_parallelism;
}

// "1 rows for 132 multiprocessors, vector-aligned, 25% of the memory roofline"
std::string shape_facts(const ClassificationInput& in) {
  std::string out;
  if (in.work_units && in.device_parallelism > 0) {
    out = fmt::format("{} {} for {} {}", *in.work_units, in.work_unit_name, in.device_parallelism,
                      in.device_parallelism_name);
  } else {
    out = "device fill unknown";
  }
  if (in.vector_aligned) out += *in.vector_aligned ? ", vector-aligned" : ", not vector-aligned";
  out += in.roofline_fraction ? fmt::format(", {} of the {} roofline", percent(*in.roofline_fraction), in.roofline_bound)
                              : ", roofline n/a";
  return out;
}

Classification make(Bottleneck b, const char* rule, std::string evidence, std::string fix) {
  return Classification{b, rule, std::move(evidence), std::move(fix)};
}

}  // namespace

std::string_view to_string(Bottleneck b) { return name_of(kNames, b); }

const std::vector<Bottleneck>& all_bottlenecks() {
  static const std::vector<Bottleneck> all = [] {
    std::vector<Bottleneck> v;
    for (const auto& [b, name] : kNames) v.push_back(b);
    return v;
  }();
  return all;
}

ShapeClass shape_class(const ShapeRow& shape) {
  ShapeClass c;
  ops::OpShape s;
  try {
    s = ops::parse_shape(shape.op_type, shape.dtype, shape.layout, shape.args, "", 0, "args");
  } catch (const Error&) {
    return c;  // an op this build does not know: no shape class
  }
  // The op's work and vector extents, from its description (docs/user-ops.md, field work).
  const std::optional<ops::OpWork>& work = s.op_description().description().work;
  if (!work) return c;
  c.work_units = work->units.count(s.values, 0, std::int64_t{1} << 62);
  c.work_unit_name = work->unit_name;
  const auto element = static_cast<std::int64_t>(dtype_size_bytes(shape.dtype));
  c.vector_aligned = true;
  for (const std::string& arg : work->vector_extents) {
    const auto extent = static_cast<std::int64_t>(s.values.at(arg));
    if (extent * element % kVectorAccessBytes != 0) {
      c.vector_aligned = false;
      c.alignment_detail = fmt::format("{} = {} x {} B = {} B is not a multiple of {} B", arg, extent, element,
                                       extent * element, kVectorAccessBytes);
      break;
    }
  }
  return c;
}

namespace {

// C1-C5: what the candidate's own row says before any speedup is read (not measured, wrong,
// impossible, failed, unstable, nothing to compare with); nothing when the speedup decides.
std::optional<Classification> classify_candidate_row(const ClassificationInput& in) {
  using B = Bottleneck;
  const bool measured = in.candidate_status && *in.candidate_status != BenchmarkStatus::skipped &&
                        *in.candidate_status != BenchmarkStatus::not_configured;
  const std::string reason = in.candidate_status_reason.empty() ? "" : ": " + in.candidate_status_reason;
  if (!measured) {
    return make(B::measurement_issue, "C1",
                in.candidate_status ? fmt::format("candidate not measured ({}{})", to_string(*in.candidate_status), reason)
                                    : "candidate not measured (no row in the results)",
                "run the candidate on this shape");
  }
  if (*in.candidate_status == BenchmarkStatus::incorrect) {
    return make(B::baseline_unfair_or_unmatched, "C2",
                fmt::format("candidate failed correctness{}: its timing is not trusted", reason),
                "fix the candidate's output first; no speedup is claimed");
  }
  if (*in.candidate_status == BenchmarkStatus::faster_than_physical) {
    return make(B::baseline_unfair_or_unmatched, "C2",
                fmt::format("candidate faster than the device's ceilings allow{}: its timing is not trusted", reason),
                "find the work the candidate skips (docs/integrity.md); no speedup is claimed");
  }
  if (*in.candidate_status != BenchmarkStatus::ok) {
    return make(B::implementation_gap, "C3", fmt::format("candidate {}{}", to_string(*in.candidate_status), reason),
                "make the candidate support and run this shape");
  }
  if (in.candidate_stable != true) {
    return make(B::measurement_issue, "C4",
                in.candidate_stable ? "candidate timing unstable: " + in.candidate_unstable_reason
                                    : "candidate timing stability not recorded",
                "re-measure (quiet device, more samples) before trusting or profiling");
  }
  if (!in.speedup_vs_best) {
    return make(B::measurement_issue, "C5", "no comparable baseline measured (none ok, correct and stable)",
                "measure at least one baseline on this shape");
  }
  return std::nullopt;
}

}  // namespace

Classification classify(const ClassificationInput& in) {
  using B = Bottleneck;
  if (std::optional<Classification> c = classify_candidate_row(in)) return std::move(*c);
  const double s = *in.speedup_vs_best;
  const std::string vs = fmt::format("{} of best ({})", speedup_text(s), in.best_baseline);
  if (s >= kParitySpeedup) {
    return make(B::ok, "C6", fmt::format("{} >= {}", vs, kParitySpeedup), "none needed");
  }
  if (!in.flags_difference.empty()) {
    return make(B::baseline_unfair_or_unmatched, "C7", fmt::format("{}; {}: not like for like", vs, in.flags_difference),
                "compare like for like (allocation, JIT and layout conversion inside or outside the timing on both)");
  }
  if (in.roofline_fraction && *in.roofline_fraction >= kRooflineLimitedFraction) {
    return make(B::launch_or_roofline_limited, "C8",
                fmt::format("{}; candidate reaches {} of the {} roofline (>= {})", vs, percent(*in.roofline_fraction),
                            in.roofline_bound, percent(kRooflineLimitedFraction)),
                "little left at this shape: the device's measured ceiling limits it");
  }
  if (under_filled(in)) {
    return make(B::implementation_gap, "C9",
                fmt::format("{}; {} {} < {} {}: the device is under-filled", vs, *in.work_units, in.work_unit_name,
                            in.device_parallelism, in.device_parallelism_name),
                "split each row (or tile) across several blocks, or use a variant for few rows");
  }
  if (in.vector_aligned == false) {
    return make(B::implementation_gap, "C10", fmt::format("{}; {}: misses the 16-byte vector path", vs, in.alignment_detail),
                "vectorize the body and handle the unaligned tail separately");
  }
  if (in.local_memory_bytes && *in.local_memory_bytes > 0) {
    return make(B::codegen_gap, "C11",
                fmt::format("{}; profile: {:.0f} bytes of local-memory traffic (register spills); {}", vs,
                            *in.local_memory_bytes, shape_facts(in)),
                "reduce register pressure (launch bounds, fewer live values) and inspect the generated code");
  }
  if (s < kAlgorithmGapSpeedup) {
    return make(B::algorithm_gap, "C12",
                fmt::format("{} < {}; {}: beyond what tuning recovers", vs, kAlgorithmGapSpeedup, shape_facts(in)),
                "a structurally different algorithm");
  }
  return make(B::tuning_gap, "C13", fmt::format("{}; {}: no structural cause", vs, shape_facts(in)),
              "tune the schedule for this shape (block size, rows per block, vector width); confirm with caliber profile");
}

std::string eager_verdict(std::optional<double> share) {
  if (share && *share >= kEagerLaunchBoundShare) return std::string(to_string(Bottleneck::launch_or_roofline_limited));
  return "";
}

std::string honesty_flag_difference(const BenchmarkResultRow& candidate, const BenchmarkResultRow& baseline) {
  std::string out;
  auto check = [&](const char* name, bool c, bool b) {
    if (c == b) return;
    out += fmt::format("{}best baseline {}={}, candidate {}", out.empty() ? "" : "; ", name, b, c);
  };
  // Both medians must be kernel-only (or both eager): a row without a kernel-only measurement
  // reports its eager median as the primary number.
  const bool c_ko = candidate.kernel_only.has_value(), b_ko = baseline.kernel_only.has_value();
  if (c_ko != b_ko) {
    out = fmt::format("best baseline timed {}, candidate {}", b_ko ? "kernel-only" : "eager only (no kernel-only measurement)",
                      c_ko ? "kernel-only" : "eager only");
  }
  check("includes_allocation", candidate.includes_allocation, baseline.includes_allocation);
  check("includes_layout_conversion", candidate.includes_layout_conversion, baseline.includes_layout_conversion);
  check("includes_jit", candidate.includes_jit, baseline.includes_jit);
  return out;
}

ClassificationInput classification_input(const ShapeComparison& sc, const DeviceCeilings* ceilings,
                                         std::optional<double> local_memory_bytes) {
  ClassificationInput in;
  const ShapeClass cls = shape_class(sc.shape);
  in.work_units = cls.work_units;
  in.work_unit_name = cls.work_unit_name;
  in.vector_aligned = cls.vector_aligned;
  in.alignment_detail = cls.alignment_detail;
  in.local_memory_bytes = local_memory_bytes;
  if (!sc.candidate.row) return in;
  const BenchmarkResultRow& c = *sc.candidate.row;
  in.candidate_status = c.benchmark_status;
  // An incorrect row's correctness_error says what was wrong; other statuses say it in status_reason.
  in.candidate_status_reason = c.benchmark_status == BenchmarkStatus::incorrect && c.correctness_error
                                   ? *c.correctness_error
                                   : c.status_reason.value_or("");
  in.candidate_stable = c.stable;
  in.candidate_unstable_reason = row_instability_reason(c);
  in.speedup_vs_best = sc.speedup_vs_best;
  if (sc.best_baseline) {
    in.best_baseline = *sc.best_baseline;
    for (const ProviderCell& b : sc.baselines) {
      if (b.provider == *sc.best_baseline) in.flags_difference = honesty_flag_difference(c, *b.row);
    }
  }
  if (c.kernel_only) {
    in.device_parallelism = c.kernel_only->device.multiprocessors;
    in.device_parallelism_name = c.kernel_only->device.backend == BackendKind::host ? "logical CPUs" : "multiprocessors";
  }
  if (const auto t = sc.candidate.kernel_only_us()) {
    const RooflinePoint p = roofline_point(c.bytes, c.flops, *t, ceilings, c.dtype);
    in.roofline_fraction = p.fraction;
    in.roofline_bound = p.bound;
  }
  return in;
}

}  // namespace caliber
