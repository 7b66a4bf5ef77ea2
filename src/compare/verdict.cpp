#include "compare/verdict.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

namespace caliber::compare {

std::string_view to_string(Verdict v) {
  switch (v) {
    case Verdict::same: return "SAME";
    case Verdict::faster: return "FASTER";
    case Verdict::slower: return "SLOWER";
    case Verdict::unknown: return "UNKNOWN";
  }
  return "?";
}

LatencyChange latency_change(double baseline_us, double current_us, const PracticalThreshold& t) {
  LatencyChange c;
  c.baseline_us = baseline_us;
  c.current_us = current_us;
  c.delta_us = current_us - baseline_us;
  if (baseline_us != 0) {
    c.delta_pct = 100.0 * c.delta_us / baseline_us;
  } else {
    c.delta_pct = c.delta_us == 0 ? 0.0 : std::copysign(std::numeric_limits<double>::infinity(), c.delta_us);
  }
  c.slower_beyond = c.delta_pct > t.relative_pct && c.delta_us > t.absolute_us;
  c.faster_beyond = -c.delta_pct > t.relative_pct && -c.delta_us > t.absolute_us;
  return c;
}

std::string format_p_value(double p) {
  if (p < 0.0001) return "<0.0001";
  return fmt::format("{:.4f}", p);
}

namespace {
// "p=0.0012" or "p<0.0001".
std::string p_is(double p) {
  const std::string v = format_p_value(p);
  return v.front() == '<' ? "p" + v : "p=" + v;
}
}  // namespace

StatisticalVerdict decide_verdict(const LatencyChange& change, std::span<const double> base,
                                  std::span<const double> cur, const StatisticsSettings& s) {
  StatisticalVerdict v;
  const bool have_samples = !base.empty() && !cur.empty();
  if (have_samples) v.test = mann_whitney_u(cur, base);
  const std::string test_text =
      v.test ? fmt::format("{} ({}, {} vs {} samples)", p_is(v.test->p_two_sided),
                           v.test->method(), base.size(), cur.size())
             : std::string();
  const Verdict moved = change.slower_beyond ? Verdict::slower : Verdict::faster;

  if (!change.slower_beyond && !change.faster_beyond) {
    v.verdict = Verdict::same;
    v.basis = "within threshold" + (test_text.empty() ? std::string() : "; " + test_text);
    return v;
  }
  if (!have_samples) {
    v.verdict = moved;
    v.basis = fmt::format("threshold only: no raw samples in {}",
                          base.empty() && cur.empty() ? "either file"
                          : base.empty()              ? "the baseline"
                                                      : "current");
    return v;
  }
  const auto min_n = static_cast<std::size_t>(s.min_samples);
  if (base.size() < min_n || cur.size() < min_n) {
    v.verdict = Verdict::unknown;
    v.basis = fmt::format("too few samples: {} vs {} (need {} per side)", base.size(), cur.size(),
                          s.min_samples);
    return v;
  }
  if (v.test->p_two_sided < s.alpha) {
    v.verdict = moved;
    v.basis = fmt::format("{} < {} ({}, {} vs {} samples)", p_is(v.test->p_two_sided),
                          s.alpha, v.test->method(), base.size(), cur.size());
  } else {
    v.verdict = Verdict::unknown;
    v.basis = fmt::format("samples overlap: {} >= {} ({}, {} vs {} samples)",
                          p_is(v.test->p_two_sided), s.alpha, v.test->method(), base.size(),
                          cur.size());
  }
  return v;
}

}  // namespace caliber::compare
