#include "integrity/subject_buffers.h"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "caliber/errors.h"

namespace caliber::integrity {
namespace {


bool overlap(const BufferRef& a, const BufferRef& b) {
  const auto* a0 = static_cast<const unsigned char*>(a.data);
  const auto* b0 = static_cast<const unsigned char*>(b.data);
  return a.bytes > 0 && b.bytes > 0 && a0 < b0 + b.bytes && b0 < a0 + a.bytes;
}

// An in-place buffer declared again as an input or output would be poisoned, or watched for the
// change it makes by design.
void refuse_in_place_declared_twice(const DeclaredBuffers& buffers) {
  for (const BufferRef& p : buffers.in_place) {
    for (const auto* list : {&buffers.inputs, &buffers.outputs}) {
      for (const BufferRef& b : *list) {
        if (!overlap(p, b)) continue;
        throw ContractError(fmt::format("declared in-place buffer '{}' overlaps declared {} '{}': declare it once, "
                                        "as in place",
                                        p.name, list == &buffers.inputs ? "input" : "output", b.name));
      }
    }
  }
}

}  // namespace

SubjectBuffers::SubjectBuffers(Backend& backend, const Subject& subject) : backend_(backend), subject_(subject) {
  for (const BufferRef& b : subject_.buffers.inputs) {
    if (!b.data && b.bytes) throw ContractError(fmt::format("declared input '{}' has no address", b.name));
  }
  for (const BufferRef* b : judged()) {
    const char* what = is_in_place(*b) ? "in-place buffer" : "output";
    if (!b->data && b->bytes) throw ContractError(fmt::format("declared {} '{}' has no address", what, b->name));
    if (b->dtype && b->bytes % dtype_size_bytes(*b->dtype) != 0) {
      throw ContractError(fmt::format("declared {} '{}' holds {} bytes, not a whole number of {} elements", what,
                                      b->name, b->bytes, to_string(*b->dtype)));
    }
    if (subject_.rule.kind == OutputRule::Kind::tolerance && !b->dtype) {
      throw ContractError(fmt::format("output rule tolerance needs the dtype of declared {} '{}'", what, b->name));
    }
  }
  refuse_in_place_declared_twice(subject_.buffers);
}

bool SubjectBuffers::declared() const {
  return !subject_.buffers.empty() || (subject_.poison_outputs && subject_.judge);
}

std::vector<const BufferRef*> SubjectBuffers::judged() const {
  std::vector<const BufferRef*> out;
  for (const BufferRef& b : subject_.buffers.outputs) out.push_back(&b);
  for (const BufferRef& b : subject_.buffers.in_place) out.push_back(&b);
  return out;
}

bool SubjectBuffers::is_in_place(const BufferRef& b) const {
  const std::vector<BufferRef>& p = subject_.buffers.in_place;
  return !p.empty() && &b >= p.data() && &b < p.data() + p.size();
}

std::vector<std::uint64_t> SubjectBuffers::input_checksums() {
  std::vector<std::uint64_t> sums;
  for (const BufferRef& i : subject_.buffers.inputs) sums.push_back(backend_.checksum(i.data, i.bytes));
  return sums;
}

std::vector<std::uint64_t> SubjectBuffers::judged_checksums() {
  std::vector<std::uint64_t> sums;
  for (const BufferRef* o : judged()) sums.push_back(backend_.checksum(o->data, o->bytes));
  return sums;
}

void SubjectBuffers::keep_input_originals() {
  if (subject_.restore_inputs || !input_copies_.empty()) return;
  for (const BufferRef& b : subject_.buffers.inputs) {
    input_copies_.emplace_back(b.bytes);
    if (b.bytes) backend_.copy_to_host(input_copies_.back().data(), b.data, b.bytes);
  }
}

void SubjectBuffers::keep_in_place_originals() {
  if (subject_.restore_inputs || !in_place_copies_.empty()) return;
  for (const BufferRef& b : subject_.buffers.in_place) {
    in_place_copies_.emplace_back(b.bytes);
    if (b.bytes) backend_.copy_to_host(in_place_copies_.back().data(), b.data, b.bytes);
  }
}

void SubjectBuffers::restore_original_inputs() {
  if (subject_.restore_inputs) {
    subject_.restore_inputs();
    return;
  }
  for (std::size_t k = 0; k < input_copies_.size(); ++k) {
    const BufferRef& b = subject_.buffers.inputs[k];
    backend_.copy_to_device(b.data, input_copies_[k].data(), b.bytes);
  }
}

void SubjectBuffers::restore_in_place() {
  if (subject_.buffers.in_place.empty()) return;
  if (subject_.restore_inputs) {
    subject_.restore_inputs();  // the caller's copy holds every input, the in-place ones too
    return;
  }
  for (std::size_t k = 0; k < in_place_copies_.size(); ++k) {
    const BufferRef& b = subject_.buffers.in_place[k];
    backend_.copy_to_device(b.data, in_place_copies_[k].data(), b.bytes);
  }
}

void SubjectBuffers::poison_outputs() {
  // A verified call starts from the original values of what it updates in place, as the untimed
  // call did: its result is then comparable, and a call that skipped its work leaves them as they were.
  restore_in_place();
  if (subject_.poison_outputs) {
    subject_.poison_outputs();
    return;
  }
  for (const BufferRef& o : subject_.buffers.outputs) backend_.fill_bytes(o.data, kPoisonByte, o.bytes);
}

bool SubjectBuffers::poisons_asynchronously() const {
  if (subject_.poison_outputs || !subject_.buffers.in_place.empty()) return false;
  return std::all_of(subject_.buffers.outputs.begin(), subject_.buffers.outputs.end(),
                     [](const BufferRef& o) { return o.dtype.has_value(); });
}

void SubjectBuffers::poison_outputs_async() {
  if (!poisons_asynchronously()) {
    poison_outputs();
    return;
  }
  for (const BufferRef& o : subject_.buffers.outputs) poison_async(backend_, o.data, *o.dtype, o.bytes);
}

void poison_async(Backend& backend, void* data, DType dtype, std::size_t bytes) {
  DrawParams nan;  // uniform in [NaN, NaN): every element NaN
  nan.a = nan.b = std::numeric_limits<double>::quiet_NaN();
  if (!backend.fill_draw(data, element_of(dtype), bytes / dtype_size_bytes(dtype), nan)) {
    backend.fill_bytes(data, kPoisonByte, bytes);
  }
}

}  // namespace caliber::integrity
