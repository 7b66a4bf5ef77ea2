// C++ symbol names as people read them.
#pragma once

#include <string>

namespace caliber {

// "_Z11scale_kernelPKfPfmf" -> "scale_kernel(float const*, float*, unsigned long, float)".
// A name that is not a mangled C++ symbol (a C kernel, "[memset]") comes back unchanged.
std::string demangle(const char* symbol);

}  // namespace caliber
