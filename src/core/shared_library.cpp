#include "core/shared_library.h"

#include <dlfcn.h>

namespace caliber {
namespace {

std::string last_dl_error() {
  const char* e = dlerror();
  return e ? e : "unknown dynamic loader error";
}

class SystemSharedLibraries final : public SharedLibraries {
 public:
  void* open(const std::string& name, std::string* error) override {
    dlerror();
    void* h = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h && error) *error = last_dl_error();
    return h;
  }
  void* symbol(void* handle, const std::string& name, std::string* error) override {
    dlerror();
    void* p = dlsym(handle, name.c_str());
    if (!p && error) *error = last_dl_error();
    return p;
  }
  void close(void* handle) override {
    if (handle) dlclose(handle);
  }
};

}  // namespace

SharedLibraries& system_shared_libraries() {
  static SystemSharedLibraries libs;
  return libs;
}

}  // namespace caliber
