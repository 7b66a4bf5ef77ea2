// Forwarding header, kept so that code written against the former home of the checked
// measurement driver still builds: the driver is measurement::CheckedSubject
// (measure/checked_subject.h), the subject it measures integrity::Subject (integrity/subject.h).
// Include those instead; nothing in src/integrity includes this header, and it goes away once no
// caller does.
#pragma once

#include "integrity/subject.h"
#include "measure/checked_subject.h"

namespace caliber::integrity {

using CheckedSubject = measurement::CheckedSubject;

}  // namespace caliber::integrity
