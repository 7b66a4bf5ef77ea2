#include "core/kernel_attribution.h"

#include <algorithm>
#include <unordered_map>
#include <utility>

#include <fmt/format.h>

namespace caliber {

std::vector<SampleActivity> attribute_activity(std::span<const DeviceActivity> activities,
                                               std::span<const ExternalCorrelation> correlations,
                                               std::uint64_t first_external_id, std::size_t samples,
                                               const std::unordered_set<std::uint64_t>& own_graph_nodes) {
  std::unordered_map<std::uint32_t, std::uint64_t> external_of;  // correlation id -> external id
  external_of.reserve(correlations.size());
  for (const ExternalCorrelation& c : correlations) external_of[c.correlation_id] = c.external_id;

  // The sample a record's API call belongs to, or `samples` for none.
  auto sample_of = [&](std::uint32_t correlation_id) -> std::size_t {
    if (correlation_id == 0) return samples;
    const auto it = external_of.find(correlation_id);
    if (it == external_of.end() || it->second < first_external_id) return samples;
    const std::uint64_t i = it->second - first_external_id;
    return i < samples ? static_cast<std::size_t>(i) : samples;
  };

  std::vector<SampleActivity> out(samples);
  for (const DeviceActivity& a : activities) {
    std::size_t i = sample_of(a.correlation_id);
    if (i == samples) i = sample_of(a.runtime_correlation_id);
    if (i == samples) continue;
    const bool own = a.graph_node_id != 0 && own_graph_nodes.count(a.graph_node_id) != 0;
    (own ? out[i].excluded : out[i].counted).push_back(a);
  }
  return out;
}

std::vector<std::vector<DeviceActivity>> calls_of_sample(const SampleActivity& sample) {
  auto by_start = [](const DeviceActivity& a, const DeviceActivity& b) {
    return a.start_ns != b.start_ns ? a.start_ns < b.start_ns : a.end_ns < b.end_ns;
  };
  std::vector<DeviceActivity> counted = sample.counted;
  std::stable_sort(counted.begin(), counted.end(), by_start);
  if (sample.excluded.empty()) return {std::move(counted)};
  std::vector<std::uint64_t> own_starts;  // where caliber's records begin, in time order
  for (const DeviceActivity& e : sample.excluded) own_starts.push_back(e.start_ns);
  std::sort(own_starts.begin(), own_starts.end());
  // A counted record belongs to the stretch after the last own record that started before it.
  std::vector<std::vector<DeviceActivity>> calls;
  std::size_t stretch = own_starts.size() + 1;  // none yet
  for (DeviceActivity& a : counted) {
    const auto s = static_cast<std::size_t>(
        std::upper_bound(own_starts.begin(), own_starts.end(), a.start_ns) - own_starts.begin());
    if (s != stretch) {
      calls.emplace_back();
      stretch = s;
    }
    calls.back().push_back(std::move(a));
  }
  return calls;
}

std::optional<std::string> why_attribution_failed(std::span<const SampleActivity> samples,
                                                  std::span<const std::size_t> own_nodes_per_graph,
                                                  std::size_t first_sample) {
  for (std::size_t i = 0; i < samples.size(); ++i) {
    const SampleActivity& s = samples[i];
    const std::size_t n = first_sample + i;
    if (s.counted.empty()) {
      return fmt::format("no kernel, copy or fill was attributed to sample {}: the call launched no "
                         "device work from the calling thread, or the tracer lost its records",
                         n);
    }
    for (const DeviceActivity& a : s.counted) {
      if ((a.start_ns == 0 && a.end_ns == 0) || a.end_ns < a.start_ns) {
        return fmt::format("the tracer could not time '{}' of sample {} (start {} ns, end {} ns)",
                           a.name, n, a.start_ns, a.end_ns);
      }
    }
    if (!s.excluded.empty()) {
      const auto calls = calls_of_sample(s);
      for (std::size_t c = 0; c < calls.size(); ++c) {
        std::uint64_t first = calls[c].front().start_ns, last = calls[c].front().end_ns;
        for (const DeviceActivity& a : calls[c]) last = std::max(last, a.end_ns);
        for (const DeviceActivity& e : s.excluded) {
          const std::uint64_t overlap_ns =
              std::min(last, e.end_ns) > std::max(first, e.start_ns) ? std::min(last, e.end_ns) - std::max(first, e.start_ns) : 0;
          if (overlap_ns > kFlushAdjacencySkewNs) {
            return fmt::format("caliber's own '{}' [{}, {}] ns ran inside call {} of sample {} (its work "
                               "spans [{}, {}] ns): the cache flush overlapped the call, so it cannot "
                               "be kept out of the sample",
                               e.name, e.start_ns, e.end_ns, c, n, first, last);
          }
        }
      }
    }
    if (!own_nodes_per_graph.empty() &&
        std::find(own_nodes_per_graph.begin(), own_nodes_per_graph.end(), s.excluded.size()) ==
            own_nodes_per_graph.end()) {
      return fmt::format("graph-node identity check failed in sample {}: {} of caliber's own nodes "
                         "(the captured cache flush) were excluded, the graph holds {}; the flush "
                         "could be counted or a kernel dropped",
                         n, s.excluded.size(), own_nodes_per_graph[0]);
    }
  }
  return std::nullopt;
}

ExecutedNodes executed_graph_nodes(std::span<const std::uint64_t> template_ids,
                                   const std::unordered_map<std::uint64_t, std::uint64_t>& clones,
                                   std::uint32_t exec_graph_id) {
  ExecutedNodes out;
  for (std::uint64_t t : template_ids) {
    auto it = clones.find(t);
    if (it != clones.end()) {
      // Follow a chain of clones (a graph cloned before it was instantiated) to its end.
      std::uint64_t id = it->second;
      for (int step = 0; step < 16 && (it = clones.find(id)) != clones.end() && it->second != id; ++step) {
        id = it->second;
      }
      out.ids.push_back(id);
    } else {
      out.ids.push_back((std::uint64_t{exec_graph_id} << 32) | (t & 0xffffffffull));
      out.by_index = true;
    }
  }
  return out;
}

double reduce_activity_ns(std::span<const DeviceActivity> activities, CuptiReduction reduction) {
  if (activities.empty()) return 0;
  switch (reduction) {
    case CuptiReduction::sum: {
      double total = 0;
      for (const auto& a : activities) total += static_cast<double>(a.end_ns - a.start_ns);
      return total;
    }
    case CuptiReduction::span: {
      std::uint64_t first = activities[0].start_ns, last = activities[0].end_ns;
      for (const auto& a : activities) {
        first = std::min(first, a.start_ns);
        last = std::max(last, a.end_ns);
      }
      return static_cast<double>(last - first);
    }
    case CuptiReduction::busy: {
      std::vector<std::pair<std::uint64_t, std::uint64_t>> iv;
      iv.reserve(activities.size());
      for (const auto& a : activities) iv.emplace_back(a.start_ns, a.end_ns);
      std::sort(iv.begin(), iv.end());
      double busy = 0;
      std::uint64_t lo = iv[0].first, hi = iv[0].second;
      for (std::size_t k = 1; k < iv.size(); ++k) {
        if (iv[k].first > hi) {  // a gap: close the current union interval
          busy += static_cast<double>(hi - lo);
          lo = iv[k].first;
          hi = iv[k].second;
        } else {
          hi = std::max(hi, iv[k].second);
        }
      }
      return busy + static_cast<double>(hi - lo);
    }
  }
  return 0;
}

double reduce_sample_ns(const SampleActivity& sample, CuptiReduction reduction) {
  double total = 0;
  for (const auto& call : calls_of_sample(sample)) total += reduce_activity_ns(call, reduction);
  return total;
}

void KernelBreakdown::add(const SampleActivity& sample) {
  KernelSet set;
  for (const DeviceActivity& a : sample.counted) {
    Totals& t = totals_[a.name];
    ++t.launches;
    t.total_ns += static_cast<double>(a.end_ns - a.start_ns);
    t.max_blocks = std::max(t.max_blocks, a.blocks);
    ++set[a.name];
  }
  if (samples_ == 0) {
    first_set_ = std::move(set);
  } else if (set != first_set_) {
    if (changed_samples_ == 0) {
      first_change_index_ = samples_;
      first_change_set_ = std::move(set);
    }
    ++changed_samples_;
  }
  ++samples_;
}

std::vector<KernelStat> KernelBreakdown::stats() const {
  std::vector<KernelStat> out;
  for (const auto& [name, t] : totals_) {
    KernelStat k;
    k.name = name;
    k.launches = t.launches;
    k.total_us = t.total_ns / 1000.0;
    k.mean_us = t.launches > 0 ? k.total_us / static_cast<double>(t.launches) : 0.0;
    k.max_blocks = t.max_blocks;
    out.push_back(std::move(k));
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const KernelStat& a, const KernelStat& b) { return a.total_us > b.total_us; });
  return out;
}

std::string KernelBreakdown::describe(const KernelSet& set) {
  if (set.empty()) return "{nothing}";
  std::string out;
  for (const auto& [name, n] : set) out += fmt::format("{}{} x{}", out.empty() ? "" : ", ", name, n);
  return "{" + out + "}";
}

std::string KernelBreakdown::change_warning() const {
  if (changed_samples_ == 0) return {};
  return fmt::format("kernel set changed in {} of {} samples: sample 0 ran {}, sample {} ran {}",
                     changed_samples_, samples_, describe(first_set_), first_change_index_,
                     describe(first_change_set_));
}

}  // namespace caliber
