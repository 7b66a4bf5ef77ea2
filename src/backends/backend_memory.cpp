// Defaults of the Backend memory primitives: a backend that has none says so.
#include <fmt/format.h>

#include "caliber/backend.h"
#include "caliber/errors.h"

namespace caliber {
namespace {
[[noreturn]] void no_memory(const Backend& b) {
  throw ContractError(fmt::format("the {} backend has no memory primitives", to_string(b.kind())));
}
}  // namespace

void* Backend::allocate(std::size_t) { no_memory(*this); }
void Backend::deallocate(void*) noexcept {}
void Backend::copy_to_device(void*, const void*, std::size_t) { no_memory(*this); }
void Backend::copy_to_host(void*, const void*, std::size_t) { no_memory(*this); }
void Backend::fill_bytes(void*, unsigned char, std::size_t) { no_memory(*this); }

}  // namespace caliber
