// The outputs of a verified call, judged (docs/integrity.md): output_complete (every element
// written and finite: an element left unwritten still holds the poison) and output_before_timing
// or output_after_timing (the subject's judge; without one, the untimed call's output reproduced
// under the output rule).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "caliber/backend.h"
#include "caliber/integrity.h"
#include "integrity/subject.h"
#include "integrity/subject_buffers.h"

namespace caliber::integrity {

class OutputCheck {
 public:
  // All three must outlive this object.
  OutputCheck(Backend& backend, const Subject& subject, SubjectBuffers& buffers);

  // After the untimed call. Without a judge, what it wrote becomes what the verified timed calls
  // must reproduce.
  void check_untimed(Integrity& integ);
  // After a verified timed call. fresh: it ran on the fresh input set; untimed: what the untimed
  // call established (a failure says whether the call was correct before timing).
  void check_timed(Integrity& integ, bool fresh, const Integrity& untimed);

  // Around loading the fresh inputs: the judged outputs' checksums before (the previous call's
  // result) and after (what the verified call on fresh inputs starts from; they differ for
  // buffers updated in place). They tell a reused result and a skipped call from a wrong one.
  void note_before_fresh_inputs() { held_output_sums_ = buffers_.judged_checksums(); }
  void note_after_fresh_inputs() { start_output_sums_ = buffers_.judged_checksums(); }

 private:
  void check_complete(Integrity& integ, bool untimed);
  void judge(Integrity& integ, bool untimed, bool fresh, const Integrity* untimed_record);
  // What a failed call on fresh inputs left in its outputs, as a parenthesis of the failure.
  std::string what_the_fresh_call_left();
  void keep_untimed_output(Integrity& integ);
  void compare_with_untimed_output(Integrity& integ);

  Backend& backend_;
  const Subject& subject_;
  SubjectBuffers& buffers_;
  // Outputs of the untimed call when there is no judge: checksums (bitwise), host copies (tolerance).
  std::vector<std::uint64_t> golden_sums_;
  std::vector<std::vector<unsigned char>> golden_copies_;
  std::vector<std::uint64_t> held_output_sums_;
  std::vector<std::uint64_t> start_output_sums_;
};

// Why `now` is not within `rule` of `first` (both whole arrays of `dtype`), or "".
std::string compare_within_tolerance(const std::vector<unsigned char>& first, const std::vector<unsigned char>& now,
                                     DType dtype, const OutputRule& rule);

}  // namespace caliber::integrity
