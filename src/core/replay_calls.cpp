#include "core/replay_calls.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace caliber {
namespace {

// The sample's calls: the stretches between caliber's own records when they give `calls` of
// them, else the counted records cut into `calls` equal runs; nullopt when neither works.
std::optional<std::vector<std::vector<DeviceActivity>>> cut(const SampleActivity& sample, std::size_t calls) {
  std::vector<std::vector<DeviceActivity>> pieces = calls_of_sample(sample);
  if (pieces.size() == calls) return pieces;
  if (pieces.size() != 1 || pieces.front().size() % calls != 0) return std::nullopt;
  const std::vector<DeviceActivity>& all = pieces.front();
  const std::size_t per_call = all.size() / calls;
  std::vector<std::vector<DeviceActivity>> out(calls);
  for (std::size_t j = 0; j < calls; ++j) {
    out[j].assign(all.begin() + static_cast<std::ptrdiff_t>(j * per_call),
                  all.begin() + static_cast<std::ptrdiff_t>((j + 1) * per_call));
  }
  return out;
}

// A call's work by name, sorted: kernels a call runs concurrently on forked streams may start in
// either order.
std::vector<std::string> names(const std::vector<DeviceActivity>& call) {
  std::vector<std::string> out;
  for (const DeviceActivity& a : call) out.push_back(a.name);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

SampleCalls split_sample_calls(const SampleActivity& sample, std::size_t calls, CuptiReduction reduction) {
  SampleCalls out;
  const auto pieces = cut(sample, calls);
  if (!pieces) {
    out.why_not = fmt::format("{} records for {} calls: the calls issued different amounts of work, or nothing "
                              "marks where each ends",
                              sample.counted.size(), calls);
    return out;
  }
  std::vector<double> ns;
  const std::vector<std::string> first = names(pieces->front());
  for (std::size_t j = 0; j < pieces->size(); ++j) {
    const std::vector<DeviceActivity>& call = (*pieces)[j];
    ns.push_back(reduce_activity_ns(call, reduction));
    if (out.unlike_work.empty() && names(call) != first) {
      out.unlike_work = fmt::format("call {} ran [{}] where call 0 ran [{}]", j, fmt::join(names(call), ", "),
                                    fmt::join(first, ", "));
    }
  }
  out.call_ns = std::move(ns);
  return out;
}

}  // namespace caliber
