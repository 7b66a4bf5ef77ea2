// The public entry point (include/caliber/measure.h): every caliber::measure is a checked
// measurement of one subject, the callable with the buffers its options declare.
#include "caliber/measure.h"

#include "measure/checked_subject.h"

namespace caliber {

Result measure(Backend& backend, const Callable& call, const Contract& contract, const MeasureOptions& options) {
  measurement::CheckedSubject subject(backend, measurement::subject_from_options(call, options));
  return subject.measure(contract, options);
}

}  // namespace caliber
