// What caliber verified about a measurement: the integrity record every Result and every results
// row carries (docs/integrity.md).
//
// A measured callable runs in caliber's process and may be buggy or may game the harness: compute
// once and return early afterwards, write part of its output, change its inputs, launch its work
// where the timer does not look. The integrity layer checks, outside every timed window, that the
// work a number stands for was done where the timer looked; this record says which checks ran,
// what they found, and what could not be checked and why.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "caliber/dtype.h"

namespace caliber {

// A region of device memory (host memory on the host backend) that the measured call reads or
// writes. dtype: when set, every element of an output is scanned for non-finite values (the
// poison caliber writes before a verified call is NaN in every floating-point dtype).
struct BufferRef {
  std::string name;
  void* data = nullptr;
  std::size_t bytes = 0;
  std::optional<DType> dtype;
};

// The buffers of a measured call, declared by whoever hands caliber the callable.
struct DeclaredBuffers {
  std::vector<BufferRef> inputs;   // only read: checksummed before and after, restored if changed
  std::vector<BufferRef> outputs;  // written by every call: poisoned before each verified call
  // Read and written by every call (an in-place update such as x += y): before each verified call
  // they get their original values back instead of the poison, and after it they are judged like
  // outputs; they are not watched as inputs. The timed calls in between run on what the previous
  // call left (docs/integrity.md, "In-place buffers").
  std::vector<BufferRef> in_place;
  // Why outputs without a dtype are not scanned for the poison, for the record ("" : none given).
  std::string unscanned_reason;
  // Set when the judge compares every element of every output without a dtype with a reference
  // (which their poison, 0xFF bytes, fails unless the reference holds that value there): then
  // output_complete passes on the judge's word, with this text.
  std::string unscanned_judged_whole;
  bool empty() const { return inputs.empty() && outputs.empty() && in_place.empty(); }
};

// How the output of a verified timed call is judged when there is no reference: equal to the
// output of the untimed call, bit for bit (the default: the same deterministic code on the same
// inputs writes the same bits), or within a tolerance (for callables whose reductions are not
// deterministic, e.g. floating-point atomics): |out - first| <= rtol |first| + atol.
struct OutputRule {
  enum class Kind { bitwise, tolerance };
  Kind kind = Kind::bitwise;
  double rtol = 0;
  double atol = 0;
};

enum class CheckOutcome { passed, failed, not_run };

// The names of the checks, as written in results (docs/integrity.md explains each).
namespace integrity_check {
inline constexpr std::string_view device_work = "device_work";              // the call launched device work
inline constexpr std::string_view work_on_stream = "work_on_stream";        // all of it ordered on the measured stream
inline constexpr std::string_view graph_complete = "graph_complete";        // the captured graph holds the call's work
inline constexpr std::string_view output_before_timing = "output_before_timing";
inline constexpr std::string_view output_after_timing = "output_after_timing";
inline constexpr std::string_view output_complete = "output_complete";      // every element written and finite
inline constexpr std::string_view inputs_unchanged = "inputs_unchanged";
inline constexpr std::string_view cache_state = "cache_state";              // access-policy window, persisting L2
inline constexpr std::string_view physically_possible = "physically_possible";
inline constexpr std::string_view work_after_timing = "work_after_timing";  // a traced call after timing
inline constexpr std::string_view verified_call_time = "verified_call_time";  // the verified call is no slower
inline constexpr std::string_view fresh_inputs = "fresh_inputs";            // every call ran on inputs drawn for it
inline constexpr std::string_view audited_calls = "audited_calls";          // timed calls judged at random positions
inline constexpr std::string_view calls_alike = "calls_alike";              // no timed call far faster than its siblings
inline constexpr std::string_view work_on_device = "work_on_device";        // all of the call's work on the measured device
// cupti_value auto: the events read below CUPTI by no more than tracing can add (docs/cupti.md)
inline constexpr std::string_view instruments_agree = "instruments_agree";
}  // namespace integrity_check

struct IntegrityCheck {
  std::string name;  // one of integrity_check::*
  CheckOutcome outcome = CheckOutcome::not_run;
  std::string detail;  // what was found, or why the check could not run
  friend bool operator==(const IntegrityCheck&, const IntegrityCheck&) = default;
};

// verified: every check that applies passed. partial: none failed, but a check that applies
// could not run (say, no CUPTI: the work's stream could not be established). unverified: the
// outputs were not verified at all (no buffers declared). failed: a check failed; the number
// must not be used.
enum class IntegrityVerdict { verified, partial, unverified, failed };

struct Integrity {
  std::vector<IntegrityCheck> checks;
  // Set by the checks: the seed the verification drew its random choices from (rows compared
  // with the reference), recorded so a run can be reproduced.
  std::optional<std::uint64_t> verification_seed;
  // The seed the input values of the untimed calls were drawn from (the run's --seed, drawn per
  // run unless pinned, mixed with the shape), recorded so a run can be reproduced.
  std::optional<std::uint64_t> input_seed;

  // Adds or replaces the check of that name (the later outcome of a check wins only when it is
  // worse: passed < not_run < failed).
  void record(std::string_view name, CheckOutcome outcome, std::string detail);
  const IntegrityCheck* find(std::string_view name) const;
  bool failed() const;
  // The first failed check's "name: detail", or empty.
  std::string first_failure() const;
  IntegrityVerdict verdict() const;
  // Merges another record into this one (a row combines its measurements): per check name, the
  // worse outcome wins.
  void merge(const Integrity& other);
  friend bool operator==(const Integrity&, const Integrity&) = default;
};

std::string_view to_string(CheckOutcome o);
std::string_view to_string(IntegrityVerdict v);
// Unknown names throw UsageError listing the accepted values.
CheckOutcome parse_check_outcome(std::string_view s);
IntegrityVerdict parse_integrity_verdict(std::string_view s);

}  // namespace caliber
