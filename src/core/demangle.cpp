#include "core/demangle.h"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>

namespace caliber {

std::string demangle(const char* symbol) {
  if (symbol == nullptr) return {};
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> out(abi::__cxa_demangle(symbol, nullptr, nullptr, &status),
                                             std::free);
  if (status != 0 || !out) return symbol;
  return out.get();
}

}  // namespace caliber
