// dlopen/dlsym behind an interface: optional runtime libraries (NVML, CUPTI) and user plugins are
// loaded through it, and tests inject load failures through it instead of breaking the machine.
#pragma once

#include <string>

namespace caliber {

class SharedLibraries {
 public:
  virtual ~SharedLibraries() = default;
  // A handle, or nullptr with *error set (dlerror's text). RTLD_NOW: a missing dependency or
  // undefined symbol fails here, not at the first call.
  virtual void* open(const std::string& name_or_path, std::string* error) = 0;
  // The symbol's address, or nullptr with *error set.
  virtual void* symbol(void* handle, const std::string& name, std::string* error) = 0;
  virtual void close(void* handle) = 0;
};

// The process's dynamic loader.
SharedLibraries& system_shared_libraries();

}  // namespace caliber
