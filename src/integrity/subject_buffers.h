// The declared buffers of a subject and what the checks do to them, always outside the timed
// windows (docs/integrity.md): checksum the inputs, keep and restore their original values,
// poison the outputs, and give the buffers updated in place their original values back before a
// verified call.
#pragma once

#include <cstdint>
#include <vector>

#include "caliber/backend.h"
#include "integrity/subject.h"

namespace caliber::integrity {

// The byte outputs without a dtype are poisoned with: NaN in every floating-point dtype, -1 in
// signed integers.
inline constexpr unsigned char kPoisonByte = 0xFF;

// Fills `bytes` of `dtype` at `data` with NaN on the device, without waiting for it (the device
// draw with lo = hi = NaN), or with the poison byte where the backend has no device draw.
void poison_async(Backend& backend, void* data, DType dtype, std::size_t bytes);

class SubjectBuffers {
 public:
  // Refuses what the checks cannot keep (ContractError): a buffer without an address, an output
  // that is not a whole number of its elements, a tolerance without a dtype, an in-place buffer
  // declared again as an input or an output. `subject` must outlive this object.
  SubjectBuffers(Backend& backend, const Subject& subject);

  // Whether the outputs are verified: declared buffers, or a workload's own poison and judge.
  bool declared() const;
  // The outputs, then the buffers updated in place: what a verified call's judge looks at.
  std::vector<const BufferRef*> judged() const;
  bool is_in_place(const BufferRef& b) const;

  std::vector<std::uint64_t> input_checksums();
  std::vector<std::uint64_t> judged_checksums();

  // Host copies of the original inputs, and of the in-place buffers' original values, for the
  // restores below (kept only when the subject has no restore hook; each copy is taken once).
  void keep_input_originals();
  void keep_in_place_originals();
  // Writes the original input values back (the subject's restore hook, or the copies).
  void restore_original_inputs();
  // Puts the original values back into the buffers updated in place, then poisons the outputs: a
  // verified call starts from what the untimed call started from.
  void poison_outputs();
  // The same without waiting for the device, so that it can run between calls and be captured
  // into a graph: each output of a known dtype is filled with NaN by the backend's device draw on
  // the measured stream (the uniform draw with lo = hi = NaN writes NaN in every floating-point
  // dtype); other outputs, or a backend without a device draw, get poison_outputs(). False when
  // an output cannot be poisoned asynchronously (no dtype, or a workload's own poison).
  void poison_outputs_async();
  bool poisons_asynchronously() const;

 private:
  void restore_in_place();

  Backend& backend_;
  const Subject& subject_;
  std::vector<std::vector<unsigned char>> input_copies_;     // when the subject has no restore hook
  std::vector<std::vector<unsigned char>> in_place_copies_;  // likewise, of the in-place buffers
};

}  // namespace caliber::integrity
